"""Bad input and bad days: each gets one clear error naming the culprit, and loses nothing."""

from __future__ import annotations

import json
import socket
import uuid
from pathlib import Path

import psycopg
import pytest
from hermes_memory_builtin.pg_store import MEMORY_SCHEMA, PgMemoryStore
from hermes_memory_builtin.tool import run_memory_tool
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from hermes_core.config.models import ConfigError, HermesConfig, StorageConfig, validate_section
from hermes_core.storage.errors import StorageError
from hermes_core.storage.pool import Database
from hermes_core.storage.schema import migrate
from hermes_core.storage.settings import PostgresTarget, redact_dsn
from hermes_core.testing.postgres import require, restart_server

LIMITS = {"memory": 2200, "user": 1375}


def add(store: PgMemoryStore, content: str) -> dict[str, object]:
    return run_memory_tool(store, {"action": "add", "target": "memory", "content": content})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_database_down_at_start_is_a_visible_tool_error(pg_dsn: str) -> None:
    port = free_port()
    env = {"DSN": f"postgresql://postgres@127.0.0.1:{port}/postgres"}
    store = PgMemoryStore(StorageConfig(backend="postgres", dsn_env="DSN"), LIMITS, environ=env)
    result = add(store, "kept?")
    assert result["success"] is False
    assert "unavailable" in str(result["error"]) and str(port) in str(result["error"])
    assert "Nothing was saved" in str(result["error"])


def test_unset_dsn_variable_names_the_variable() -> None:
    store = PgMemoryStore(StorageConfig(backend="postgres", dsn_env="NO_SUCH_DSN_VAR"), LIMITS, environ={})
    result = add(store, "x")
    assert result["success"] is False and "NO_SUCH_DSN_VAR" in str(result["error"])


@pytest.fixture
def password_role(pg_dsn: str) -> str:
    """A role that must log in with a password (the test server trusts everyone else)."""
    data = Path(require("HERMES_TEST_PG_DATA"))
    hba = data / "pg_hba.conf"
    original = hba.read_text()
    role = f"hermes_pw_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'right-secret'")  # a generated name
    hba.write_text(f"host all {role} 127.0.0.1/32 scram-sha-256\n" + original)
    restart_server("reload")
    try:
        yield role
    finally:
        hba.write_text(original)
        restart_server("reload")
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"DROP ROLE IF EXISTS {role}")


def test_wrong_password_is_an_auth_error_with_the_password_masked(pg_dsn: str, password_role: str) -> None:
    parts = conninfo_to_dict(pg_dsn)
    dsn = f"postgresql://{password_role}:wrong-secret@127.0.0.1:{parts.get('port', 5432)}/{parts['dbname']}"
    with pytest.raises(StorageError) as caught:
        Database(PostgresTarget(dsn=dsn, namespace="x"))
    assert caught.value.kind == "auth"
    assert "wrong-secret" not in str(caught.value) and "password" in str(caught.value).lower()
    good = dsn.replace("wrong-secret", "right-secret")
    Database(PostgresTarget(dsn=good, namespace="x")).close()  # the right one gets in


def test_schema_from_a_newer_version_is_refused_and_left_alone(pg_dsn: str, storage: StorageConfig) -> None:
    assert add(PgMemoryStore(storage, LIMITS), "before the upgrade")["success"] is True
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("UPDATE hermes_schema SET version = 99 WHERE component = 'memory'")
    try:
        with psycopg.connect(pg_dsn) as conn, pytest.raises(StorageError) as caught:
            migrate(conn, MEMORY_SCHEMA)
        assert caught.value.kind == "schema" and "99" in str(caught.value) and "newer" in str(caught.value)
        with psycopg.connect(pg_dsn) as conn:
            assert conn.execute("SELECT version FROM hermes_schema WHERE component = 'memory'").fetchone() == (99,)
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute("UPDATE hermes_schema SET version = %s WHERE component = 'memory'", (MEMORY_SCHEMA.latest,))


@pytest.mark.parametrize("bad", ["", " lead", "trail ", "nul\x00", "tab\there", "zw\u200bsp", "x" * 201])
def test_unusable_namespaces_are_config_errors(bad: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate_section(HermesConfig, {"storage": {"backend": "postgres", "namespace": bad}}, source="config.yaml")
    assert "storage.namespace" in str(caught.value)


ODD_NAMESPACES = ["a'; DROP TABLE memory_stores; --", "%", "_", "a_b", "a%b", "back\\slash", '"quoted"',
                  "名前空間", "emoji 🙂", "x" * 200, "default"]


def test_odd_namespaces_are_stored_safely_and_kept_apart(storage: StorageConfig) -> None:
    base = storage.namespace
    stores = {ns: PgMemoryStore(storage.model_copy(update={"namespace": f"{base}/{ns}"}), LIMITS)
              for ns in ODD_NAMESPACES}
    for ns, store in stores.items():
        assert add(store, f"canary for {ns}")["success"] is True
    for ns, store in stores.items():
        assert store.entries("memory") == [f"canary for {ns}"]


def test_lock_held_too_long_is_a_clear_busy_error(pg_dsn: str, storage: StorageConfig) -> None:
    from hermes_core.storage.locks import advisory_key

    store = PgMemoryStore(storage, LIMITS, lock_timeout=0.3)
    with psycopg.connect(pg_dsn) as other:
        other.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key("memory", storage.namespace, "memory"),))
        result = add(store, "waits")
    assert result["success"] is False and "locked by another writer" in str(result["error"])
    assert add(store, "waits")["success"] is True  # the lock went with the other transaction


def test_exhausted_pool_is_a_busy_error_not_a_hang(pg_dsn: str) -> None:
    db = Database(PostgresTarget(dsn=pg_dsn, namespace="x", pool_size=1))
    db.pool.timeout = 0.3
    try:
        with db.pool.connection(), pytest.raises(StorageError) as caught:
            db.transact(lambda conn: conn.execute("SELECT 1").fetchone(), deadline_s=0.8)
        assert caught.value.kind == "busy"
    finally:
        db.close()


class _CommitThenBreak:
    """Wraps ``Connection.commit``: the first call commits, or not, and then 'loses the connection'."""

    def __init__(self, commit_first: bool) -> None:
        self.commit_first, self.fired = commit_first, False

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real = psycopg.Connection.commit

        def commit(conn: psycopg.Connection) -> None:  # type: ignore[type-arg]
            if self.fired:
                return real(conn)
            self.fired = True
            if self.commit_first:
                real(conn)
            else:
                conn.rollback()
            raise psycopg.OperationalError("server closed the connection unexpectedly")

        monkeypatch.setattr(psycopg.Connection, "commit", commit)


@pytest.mark.parametrize("committed", [True, False], ids=["commit-landed", "commit-lost"])
def test_a_commit_cut_off_is_resolved_not_repeated_or_dropped(storage: StorageConfig, committed: bool,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store = PgMemoryStore(storage, LIMITS)
    store.database()  # schema first, with the real commit
    calls = []

    def change(entries: list[str]) -> tuple[list[str], str]:
        calls.append(list(entries))
        return [*entries, "exactly once"] if "exactly once" not in entries else entries, "done"

    _CommitThenBreak(commit_first=committed).install(monkeypatch)
    assert store.mutate("memory", change) == "done"
    monkeypatch.undo()
    assert store.entries("memory") == ["exactly once"]
    assert len(calls) == (1 if committed else 2)  # re-applied only when the first commit did not land


def test_redacted_dsn_hides_passwords() -> None:
    assert redact_dsn("postgresql://u:s3cret@h:5/db") == "postgresql://u:***@h:5/db"
    assert "s3cret" not in redact_dsn(make_conninfo("host=h password=s3cret dbname=d"))


def test_cli_memory_show_reports_a_down_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_core.cli import main

    (tmp_path / "config.yaml").write_text(json.dumps({"storage": {"backend": "postgres", "dsn_env": "DOWN_DSN"}}))
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    monkeypatch.setenv("DOWN_DSN", f"postgresql://postgres:pw@127.0.0.1:{free_port()}/postgres")
    assert main(["memory", "show"]) == 1
    out = capsys.readouterr().out
    assert "unavailable" in out and ":pw@" not in out


def test_serialization_failures_and_deadlocks_are_retried(pg_dsn: str) -> None:
    from psycopg import errors

    db = Database(PostgresTarget(dsn=pg_dsn, namespace="x", pool_size=2))
    failures = [errors.SerializationFailure("could not serialize access"), errors.DeadlockDetected("deadlock")]
    attempts = []

    def work(conn: psycopg.Connection) -> int:  # type: ignore[type-arg]
        attempts.append(1)
        conn.execute("SELECT 1")
        if failures:
            raise failures.pop(0)
        return 42

    try:
        assert db.transact(work) == 42 and len(attempts) == 3
        with pytest.raises(errors.UniqueViolation):  # anything else is not retried
            db.transact(lambda conn: (_ for _ in ()).throw(errors.UniqueViolation("dup")))
    finally:
        db.close()


def test_doctor_probe_reports_the_database(tmp_path: Path, storage: StorageConfig) -> None:
    from hermes_memory_builtin import BuiltinMemoryProvider

    from hermes_core.plugin.context import PluginContext

    def status(config: StorageConfig) -> dict[str, object]:
        provider = BuiltinMemoryProvider(PluginContext.default(home=tmp_path, config=HermesConfig(storage=config)))
        return provider.get_status(probe=True)

    assert status(storage)["state"] == "ok" and storage.namespace in str(status(storage)["summary"])
    down = status(storage.model_copy(update={"dsn_env": "NO_SUCH_DSN_VAR"}))
    assert down["state"] == "unavailable" and "NO_SUCH_DSN_VAR" in str(down["summary"])

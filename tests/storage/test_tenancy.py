"""Namespace isolation: a canary written in one namespace never shows in another.

Through every path a user or a model has: the memory tool, ``hermes-core memory``, the
frozen prompt snapshot, the LCM tools with ``scope: all`` (full text and regex) and ids
taken from another namespace, and many sessions of different namespaces at once in one
process. Each check has a positive control (the owner does see its canary), so an
empty result cannot pass for isolation.
"""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_core.config.models import HermesConfig
from hermes_core.session.session import Session
from hermes_core.testing.postgres import DSN_ENV


def config(namespace: str) -> dict[str, Any]:
    return {"storage": {"backend": "postgres", "dsn_env": DSN_ENV, "namespace": namespace},
            "context": {"engine": "lcm"}}


def home_for(root: Path, namespace: str) -> Path:
    home = root / uuid.uuid4().hex[:8]
    home.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump(config(namespace)))
    return home


def write_canary(session: Session, canary: str) -> None:
    for target in ("memory", "user"):
        result = json.loads(session.call_tool("memory", {"action": "add", "target": target, "content": canary}))
        assert result["success"] is True, result
    session.start_turn(f"please remember {canary}")
    session.request()  # the engine stores the turn's messages
    session.add_response(f"noted {canary}")


def visible_to(session: Session, canary: str) -> dict[str, bool]:
    """Where ``canary`` shows up for ``session``."""
    def grep(mode: str) -> bool:
        found = json.loads(session.call_tool("lcm_grep", {"pattern": canary, "scope": "all", "mode": mode}))
        assert "error" not in found, found
        return found["count"] > 0

    memory = session.call_tool("memory", {"action": "read", "target": "memory"})
    user = session.call_tool("memory", {"action": "read", "target": "user"})
    return {"tool": canary in memory + user, "prompt": canary in session.system_prompt,
            "grep": grep("full_text"), "regex": grep("regex")}


@pytest.fixture
def namespaces(pg_dsn: str) -> tuple[str, str]:
    tag = uuid.uuid4().hex[:6]
    return f"tenant-a-{tag}", f"tenant-b-{tag}"


def test_a_canary_stays_in_its_namespace_on_every_path(tmp_path: Path, namespaces: tuple[str, str],
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_core.cli import main

    a, b = namespaces
    canary = f"CANARY{uuid.uuid4().hex[:12]}"
    home_a, home_b = home_for(tmp_path, a), home_for(tmp_path, b)
    with Session.open(home=home_a) as writer:
        write_canary(writer, canary)
        grep = json.loads(writer.call_tool("lcm_grep", {"pattern": canary, "scope": "all"}))
        msg_id = next(hit["id"] for hit in grep["results"] if hit["type"] == "message")
    with Session.open(home=home_a) as owner, Session.open(home=home_b) as stranger:  # new sessions: new snapshots
        assert visible_to(owner, canary) == {"tool": True, "prompt": True, "grep": True, "regex": True}
        assert visible_to(stranger, canary) == {"tool": False, "prompt": False, "grep": False, "regex": False}
        for tool in ("lcm_describe", "lcm_expand"):  # an id from the other namespace does not resolve
            assert canary in owner.call_tool(tool, {"id": msg_id})
            out = stranger.call_tool(tool, {"id": msg_id})
            assert canary not in out and "error" in json.loads(out)
    for home, expected in ((home_a, True), (home_b, False)):
        monkeypatch.setenv("HERMES_HOME", str(home))
        assert main(["memory", "show", "--json"]) == 0
        assert (canary in capsys.readouterr().out) is expected


def test_concurrent_sessions_of_different_namespaces_in_one_process(tmp_path: Path, pg_dsn: str) -> None:
    tag = uuid.uuid4().hex[:6]
    names = [f"ns{i}-{tag}" for i in range(4)]
    canaries = {f"CAN{i}X{tag}": names[i % 4] for i in range(12)}
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(canaries))

    def run(canary: str, namespace: str) -> None:
        try:
            with Session.open(HermesConfig.model_validate(config(namespace)), home=tmp_path) as session:
                barrier.wait(timeout=60)
                write_canary(session, canary)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=item) for item in canaries.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    for namespace in names:
        with Session.open(HermesConfig.model_validate(config(namespace)), home=tmp_path) as session:
            for canary, owner in canaries.items():
                seen = visible_to(session, canary)
                assert seen == dict.fromkeys(seen, owner == namespace), (namespace, canary, seen)


def test_every_lcm_store_read_is_scoped(pg_dsn: str, namespaces: tuple[str, str]) -> None:
    """Below the tools too: no store method hands one namespace another's ids or rows."""
    from hermes_context_lcm.dag import NewSummary
    from hermes_context_lcm.pg_store import PgStore
    from hermes_context_lcm.query import parse_query

    from hermes_core.config.models import StorageConfig

    a, b = (PgStore(StorageConfig(backend="postgres", dsn_env=DSN_ENV, namespace=ns)) for ns in namespaces)
    canary = f"CANARY{uuid.uuid4().hex[:12]}"
    ids = a.append("same-session-id", [{"role": "user", "content": f"secret {canary}"}])
    a.add_summary(NewSummary(session_id="same-session-id", depth=0, content=f"summary {canary}", hint="", tokens=3,
                             source="deterministic", covers_kind="messages", covers=ids, first_message=ids[0],
                             last_message=ids[0], message_count=1))
    a.save_layout("same-session-id", [ids[0]], ids[0])
    match = parse_query(canary)
    assert a.search_messages(match, limit=10) == ids and a.search_summaries(match, limit=10)  # the owner finds both
    assert b.search_messages(match, limit=10) == [] and b.search_summaries(match, limit=10) == []
    assert b.search_substring(canary, None, 10) == [] and b.get_messages(ids) == []
    assert b.scan_messages(None, None, 100) == [] and b.all_summaries(None) == []
    assert b.session_messages("same-session-id") == [] and b.session_size("same-session-id") == 0
    assert b.roots("same-session-id") == [] and b.load_layout("same-session-id") is None
    assert b.stats(None)["messages_total"] == 0

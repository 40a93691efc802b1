"""MEMORY.md / USER.md in PostgreSQL, with exactly the semantics of the files.

One row per (namespace, target) holds the bytes a file would hold (``bytea``: a NUL is as
storable as in a file), produced and parsed by
the file store's own ``parse`` / ``serialize`` / ``drift_reason``, so entries, ordering,
char limits, the round-trip rules and the snapshot are the same code on both backends.

A mutation is one transaction: take the advisory lock of (namespace, target), re-read the
row, apply ``change``, write, commit. Writers on any number of hosts therefore serialize
per store and each sees the previous commit. A write is acknowledged only after COMMIT
returned. Failures before the commit are retried (nothing was applied); a connection
lost during the commit is resolved by looking for the operation id the transaction wrote
in ``memory_ops``, so a retry never applies a write twice and never drops one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_core.storage.errors import StorageError
from hermes_core.storage.locks import advisory_key, lock_for_transaction
from hermes_core.storage.schema import Component, migrate
from hermes_memory_builtin.store import FILES, MemoryFileError, MemoryWriteError, drift_reason, parse, serialize

if TYPE_CHECKING:
    import psycopg

    from hermes_core.config.models import StorageConfig
    from hermes_core.storage.pool import Database

T = TypeVar("T")
LOCK_TIMEOUT_S = 10.0
WRITE_DEADLINE_S = 20.0  # how long a write keeps retrying through a server restart

MEMORY_SCHEMA = Component("memory", migrations=(
    """
    CREATE TABLE memory_stores (
        namespace text NOT NULL,
        target text NOT NULL CHECK (target IN ('memory', 'user')),
        body bytea NOT NULL,
        revision bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (namespace, target)
    );
    CREATE TABLE memory_ops (
        op_id uuid PRIMARY KEY,
        namespace text NOT NULL,
        target text NOT NULL,
        done_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX memory_ops_done_at ON memory_ops (done_at);
    CREATE TABLE memory_backups (
        id bigserial PRIMARY KEY,
        namespace text NOT NULL,
        target text NOT NULL,
        body bytea NOT NULL,
        saved_at timestamptz NOT NULL DEFAULT now()
    );
    """,
))


class MemoryDatabaseError(MemoryWriteError):
    """The database could not be reached or refused the operation; nothing was changed."""


class PgMemoryStore:
    """The two memory stores of one namespace, with per-target char limits.

    Opening is lazy: a database that is down when the agent starts makes memory calls fail
    visibly (a tool error naming the server) while the rest of the turn goes on.
    """

    def __init__(self, storage: StorageConfig, limits: Mapping[str, int], *,
                 lock_timeout: float = LOCK_TIMEOUT_S, environ: dict[str, str] | None = None) -> None:
        self.storage = storage
        self.namespace = storage.namespace
        self.limits = dict(limits)
        self.lock_timeout = lock_timeout
        self._environ = environ
        self._db: Database | None = None

    # -- the database --------------------------------------------------------------------

    def database(self) -> Database:
        if self._db is None:
            from hermes_core.storage.pool import database
            from hermes_core.storage.settings import postgres_target

            db = database(postgres_target(self.storage, self._environ))
            db.ensure(MEMORY_SCHEMA.name, lambda conn: migrate(conn, MEMORY_SCHEMA) and None)
            self._db = db
        return self._db

    def location(self, target: str) -> str:
        """Where ``target`` lives, for messages: the database (password masked), namespace, file name."""
        import os

        from hermes_core.storage.settings import redact_dsn

        env = os.environ if self._environ is None else self._environ
        return f"{redact_dsn(env.get(self.storage.dsn_env, ''))} namespace {self.namespace!r} {FILES[target]}"

    def _failed(self, exc: StorageError, doing: str) -> MemoryDatabaseError:
        tail = " Nothing was saved." if doing == "write" else ""
        return MemoryDatabaseError(f"Memory {doing} failed: {exc}{tail}", storage_error=exc.kind)

    # -- reading --------------------------------------------------------------------------

    def read_text(self, target: str) -> str:
        """The text a MEMORY.md / USER.md file would hold; ``""`` when nothing was written yet."""
        try:
            return self.database().transact(lambda conn: self._select(conn, target)[0])
        except StorageError as exc:
            raise self._failed(exc, "read") from None

    def entries(self, target: str) -> list[str]:
        return parse(self.read_text(target))

    def _select(self, conn: psycopg.Connection[Any], target: str) -> tuple[str, int | None]:
        row = conn.execute("SELECT body, revision FROM memory_stores WHERE namespace = %s AND target = %s",
                           (self.namespace, target)).fetchone()
        return (bytes(row[0]).decode("utf-8"), int(row[1])) if row else ("", None)

    # -- writing --------------------------------------------------------------------------

    def mutate(self, target: str, change: Callable[[list[str]], tuple[list[str], T]]) -> T:
        """Apply ``change`` to the freshly re-read entries under the store's lock; commit; return its result.

        ``change`` may raise to refuse, and then nothing is written. It may run more than
        once when a transaction is retried, always on the entries as committed.
        """
        if target not in FILES:
            raise KeyError(target)  # as with the files
        op_id = uuid.uuid4()

        def work(conn: psycopg.Connection[Any]) -> T:
            conn.execute("SELECT set_config('lock_timeout', %s, true), pg_advisory_xact_lock(%s)",
                         (f"{int(self.lock_timeout * 1000)}ms", advisory_key("memory", self.namespace, target)))
            text, revision = self._select(conn, target)  # after the lock: sees the previous writer's commit
            reason = drift_reason(text)
            if reason:
                self._backup(conn, target, text)
                raise MemoryFileError(
                    f"Refusing to write {FILES[target]} in namespace {self.namespace!r}: its stored text would not "
                    f"round-trip ({reason}).",
                    remediation="Export it with `hermes-core storage migrate --to files`, fix the file, and migrate "
                                "it back; a copy was kept in the memory_backups table.",
                )
            before = parse(text)
            after, result = change(list(before))
            if after != before:
                body = serialize(after) + "\n" if after else ""
                conn.execute(  # the new text and the operation id, in one statement
                    "WITH saved AS (INSERT INTO memory_stores (namespace, target, body, revision) "
                    "VALUES (%s, %s, %s, 1) ON CONFLICT (namespace, target) DO UPDATE SET body = EXCLUDED.body, "
                    "revision = memory_stores.revision + 1, updated_at = now() RETURNING 1) "
                    "INSERT INTO memory_ops (op_id, namespace, target) SELECT %s, %s, %s FROM saved",
                    (self.namespace, target, body.encode("utf-8"), op_id, self.namespace, target),
                )
                if (revision or 0) % 256 == 255:  # now and then, forget old operation ids
                    conn.execute("DELETE FROM memory_ops WHERE done_at < now() - interval '1 day'")
            return result

        def committed(conn: psycopg.Connection[Any]) -> bool:
            return conn.execute("SELECT 1 FROM memory_ops WHERE op_id = %s", (op_id,)).fetchone() is not None

        try:
            return self.database().transact(work, resolve_unknown=committed, deadline_s=WRITE_DEADLINE_S)
        except StorageError as exc:
            raise self._failed(exc, "write") from None
        except Exception as exc:
            if type(exc).__name__ == "LockNotAvailable":
                raise MemoryWriteError(
                    f"{FILES[target]} in namespace {self.namespace!r} is locked by another writer (waited "
                    f"{self.lock_timeout:g}s). Nothing was saved; retry shortly."
                ) from None
            raise

    def _backup(self, conn: psycopg.Connection[Any], target: str, text: str) -> None:
        conn.execute(
            "INSERT INTO memory_backups (namespace, target, body) SELECT %s, %s, %s WHERE NOT EXISTS ("
            "SELECT 1 FROM memory_backups WHERE namespace = %s AND target = %s AND body = %s)",
            (self.namespace, target, text.encode("utf-8"), self.namespace, target, text.encode("utf-8")),
        )
        conn.commit()  # the copy is kept even though the write is refused

    # -- moving data in and out (``hermes-core storage migrate``) ------------------------

    def replace_text(self, target: str, text: str) -> None:
        """Store ``text`` verbatim as ``target`` (a migrated file), or delete the row for ``""``."""
        def work(conn: psycopg.Connection[Any]) -> None:
            lock_for_transaction(conn, "memory", self.namespace, target)
            if text:
                conn.execute(
                    "INSERT INTO memory_stores (namespace, target, body, revision) VALUES (%s, %s, %s, 1) "
                    "ON CONFLICT (namespace, target) DO UPDATE SET body = EXCLUDED.body, "
                    "revision = memory_stores.revision + 1, updated_at = now()",
                    (self.namespace, target, text.encode("utf-8")),
                )
            else:
                conn.execute("DELETE FROM memory_stores WHERE namespace = %s AND target = %s",
                             (self.namespace, target))

        try:
            self.database().transact(work)
        except StorageError as exc:
            raise self._failed(exc, "write") from None


def open_store(storage: StorageConfig, limits: Mapping[str, int]) -> PgMemoryStore:
    return PgMemoryStore(storage, limits)

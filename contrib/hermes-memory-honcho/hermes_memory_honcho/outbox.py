"""A durable, ordered outbox for writes to Honcho (SQLite, WAL, ``synchronous=FULL``).

Every turn, mirrored memory and delegation result is appended here first and deleted
only once Honcho accepted it, so nothing is lost when Honcho is down or the process
dies. Exactly-once delivery rests on two things:

* ``maybe_sent`` is committed *before* a send, so an entry whose fate is unknown (a
  timeout, a crash between send and delete) is checked on the server before it is
  sent again;
* one process drains at a time (an ``flock`` on ``<outbox>.lock``), in id order within
  each session (sessions do not wait for each other).

It stays small: delivered entries are deleted and their pages returned to the file
system (incremental vacuum, a bounded WAL), and at most ``max_pending`` turns wait; past
that the oldest waiting turns are dropped and counted (conclusions are never dropped).
Entries Honcho refused are set aside with a cause and can be re-sent or dropped
(``hermes-core memory outbox``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    session TEXT NOT NULL,
    payload TEXT NOT NULL,
    created REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    maybe_sent INTEGER NOT NULL DEFAULT 0,
    rejected TEXT
);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (rejected, id);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""
WAL_LIMIT = 1 << 20  # bytes the WAL file is truncated to after a checkpoint
VACUUM_PAGES = 64  # free pages that trigger an incremental vacuum after deliveries
TRIM_TO = 0.95  # a full outbox drops its oldest turns down to this share of the cap


def _open_private(path: Path) -> sqlite3.Connection:
    """Open the database readable by its owner only: it holds whole conversations.

    Under umask 077 the directory is created 0700 and the database, ``-wal`` and
    ``-shm`` 0600 (SQLite gives later ``-wal``/``-shm`` files the database's mode). The
    umask is process-wide, so it is set only around these calls. Files an earlier
    version created with looser modes are tightened.
    """
    old = os.umask(0o077)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
        if db.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:  # 2 = incremental; set before tables
            db.execute("PRAGMA auto_vacuum=INCREMENTAL")
            db.execute("VACUUM")  # applies it to a file an earlier version created
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
        db.executescript(SCHEMA)
        columns = {row[1] for row in db.execute("PRAGMA table_info(outbox)")}
        if "cause" not in columns:
            db.execute("ALTER TABLE outbox ADD COLUMN cause TEXT")
    finally:
        os.umask(old)
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(OSError):  # gone already, or not ours to change
            if file.stat().st_mode & 0o077:
                file.chmod(0o600)
    return db


@dataclass
class Entry:
    id: int
    key: str
    kind: str  # "turn" | "conclusion"
    session: str
    payload: dict[str, Any]
    attempts: int
    maybe_sent: bool


@dataclass
class Aside:
    """An entry Honcho refused, kept for ``hermes-core memory outbox list|retry|drop``."""

    id: int
    key: str
    kind: str
    session: str
    created: float
    cause: str
    reason: str
    chars: int


class Outbox:
    """Thread-safe; several processes may append, one drains (see :meth:`drain_lock`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = _open_private(path)
        self._lockfile = path.with_name(path.name + ".lock")

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def append(self, kind: str, session: str, payload: dict[str, Any], key: str | None = None) -> str:
        """Store one write durably (fsynced on commit); returns its idempotency key."""
        key = key or uuid.uuid4().hex
        self._run(
            "INSERT INTO outbox (key, kind, session, payload, created) VALUES (?, ?, ?, ?, ?)",
            (key, kind, session, json.dumps(payload, ensure_ascii=False), time.time()),
        )
        return key

    def pending(self, limit: int = 100) -> list[Entry]:
        """The oldest waiting entries, in id order."""
        rows = self._run(
            "SELECT id, key, kind, session, payload, attempts, maybe_sent FROM outbox "
            "WHERE rejected IS NULL ORDER BY id LIMIT ?", (limit,),
        )
        return [Entry(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], bool(r[6])) for r in rows]

    def mark_sending(self, ids: list[int]) -> None:
        """Committed before the request: from now on a retry must check first."""
        self._many("UPDATE outbox SET attempts = attempts + 1, maybe_sent = 1 WHERE id = ?", ids)

    def mark_not_sent(self, ids: list[int]) -> None:
        """The server certainly did not store these (refused connection, 4xx, checked)."""
        self._many("UPDATE outbox SET maybe_sent = 0 WHERE id = ?", ids)

    def delivered(self, ids: list[int]) -> None:
        self._many("DELETE FROM outbox WHERE id = ?", ids)
        with self._lock:
            if self._db.execute("PRAGMA freelist_count").fetchone()[0] >= VACUUM_PAGES:
                # executescript steps it to the end; execute() would free a single page
                self._db.executescript("PRAGMA incremental_vacuum;")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def reject(self, entry_id: int, reason: str, cause: str = "payload") -> None:
        """Honcho refused this entry for good: keep it aside (never drop it) with why."""
        self._run("UPDATE outbox SET rejected = ?, cause = ? WHERE id = ?", (reason[:500], cause, entry_id))

    def reject_session(self, session: str, reason: str) -> int:
        """Set aside every waiting entry of ``session`` (deleted on the server); returns how many."""
        with self._lock:
            cur = self._db.execute("UPDATE outbox SET rejected = ?, cause = 'session' WHERE session = ? "
                                   "AND rejected IS NULL", (reason[:500], session))
            return cur.rowcount

    def state(self, key: str) -> tuple[str, str]:
        """``("pending"|"aside"|"delivered", reason)`` of the entry appended under ``key``."""
        rows = self._run("SELECT rejected, cause FROM outbox WHERE key = ?", (key,))
        if not rows:
            return "delivered", ""
        reason, cause = rows[0]
        return ("pending", "") if reason is None else ("aside", f"{cause or 'payload'}: {reason}")

    def set_aside(self) -> list[Aside]:
        rows = self._run("SELECT id, key, kind, session, created, cause, rejected, length(payload) FROM outbox "
                         "WHERE rejected IS NOT NULL ORDER BY id")
        return [Aside(r[0], r[1], r[2], r[3], r[4], r[5] or "payload", r[6], r[7]) for r in rows]

    def retry(self, ids: list[int] | None = None, cause: str | None = None) -> int:
        """Put set-aside entries back in the queue (all, by id, or by cause); returns how many."""
        sql = "UPDATE outbox SET rejected = NULL, cause = NULL, maybe_sent = 0 WHERE rejected IS NOT NULL"
        return self._select_aside(sql, ids, cause)

    def drop(self, ids: list[int] | None = None, cause: str | None = None) -> int:
        """Delete set-aside entries for good (all, by id, or by cause); returns how many."""
        return self._select_aside("DELETE FROM outbox WHERE rejected IS NOT NULL", ids, cause)

    def _select_aside(self, sql: str, ids: list[int] | None, cause: str | None) -> int:
        args: list[Any] = []
        if ids is not None:
            sql += f" AND id IN ({','.join('?' * len(ids))})"
            args += ids
        if cause is not None:
            sql += " AND coalesce(cause, 'payload') = ?"
            args.append(cause)
        with self._lock:
            return self._db.execute(sql, args).rowcount

    def enforce_cap(self, max_pending: int) -> tuple[int, int]:
        """Past ``max_pending`` waiting entries, drop the oldest waiting turns down to
        ``TRIM_TO`` of it (in one transaction, so trimming is rare: not one delete per turn).
        Never conclusions, never an entry that may be on the server already. Returns
        (entries waiting before, turns dropped)."""
        with self._lock:
            count = self._db.execute("SELECT COUNT(*) FROM outbox WHERE rejected IS NULL").fetchone()[0]
            if count <= max_pending:
                return count, 0
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE rejected IS NULL AND kind = 'turn' "
                    "AND maybe_sent = 0 ORDER BY id LIMIT ?)", (count - int(max_pending * TRIM_TO),))
                dropped = cur.rowcount
                self._db.execute("INSERT INTO counters VALUES ('dropped', ?) ON CONFLICT(name) DO UPDATE SET "
                                 "value = value + excluded.value", (dropped,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return count, dropped

    def _many(self, sql: str, ids: list[int]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(sql, [(i,) for i in ids])
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def counts(self) -> dict[str, Any]:
        pending, rejected, oldest = self._run(
            "SELECT SUM(rejected IS NULL), SUM(rejected IS NOT NULL), MIN(CASE WHEN rejected IS NULL "
            "THEN created END) FROM outbox"
        )[0]
        causes = dict(self._run("SELECT coalesce(cause, 'payload'), COUNT(*) FROM outbox WHERE rejected IS NOT NULL "
                                "GROUP BY 1"))
        dropped = self._run("SELECT value FROM counters WHERE name = 'dropped'")
        age = round(time.time() - oldest, 1) if oldest else 0.0
        return {"pending": pending or 0, "rejected": rejected or 0, "rejected_by_cause": causes,
                "oldest_pending_age_s": age, "dropped": dropped[0][0] if dropped else 0,
                "bytes": self.size()}

    def size(self) -> int:
        """Bytes on disk: the database and its WAL."""
        total = 0
        for file in (self.path, self.path.with_name(self.path.name + "-wal")):
            with contextlib.suppress(OSError):
                total += file.stat().st_size
        return total

    @contextlib.contextmanager
    def drain_lock(self) -> Iterator[bool]:
        """Hold the cross-process drain lock if free; yields whether we got it."""
        import fcntl

        with open(self._lockfile, "a+") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def close(self) -> None:
        with self._lock:
            self._db.close()

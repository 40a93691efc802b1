"""A durable, ordered outbox for writes to Honcho (SQLite, WAL, ``synchronous=FULL``).

Every turn, mirrored memory and delegation result is appended here first and deleted
only once Honcho accepted it, so nothing is lost when Honcho is down or the process
dies. Exactly-once delivery rests on two things:

* ``maybe_sent`` is committed *before* a send, so an entry whose fate is unknown (a
  timeout, a crash between send and delete) is checked on the server before it is
  sent again;
* one process drains at a time (an ``flock`` on ``<outbox>.lock``), in id order.
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
"""


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
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.executescript(SCHEMA)
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

    def reject(self, entry_id: int, reason: str) -> None:
        """Honcho refused this entry for good (400/422): keep it aside, never drop it."""
        self._run("UPDATE outbox SET rejected = ? WHERE id = ?", (reason[:500], entry_id))

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
        age = round(time.time() - oldest, 1) if oldest else 0.0
        return {"pending": pending or 0, "rejected": rejected or 0, "oldest_pending_age_s": age}

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

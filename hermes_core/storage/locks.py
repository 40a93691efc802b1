"""PostgreSQL advisory locks: per-transaction write locks and per-session ownership locks.

Keys are 64-bit hashes of text parts (namespace, kind, name), computed here and passed as
bound parameters, so any namespace or session id is safe. A hash collision can only make
two unrelated keys wait for each other, never mix their data.

:class:`SessionLocks` holds session-level locks ("one live engine per session, across
hosts") on a single dedicated connection per process, not one per session, so a gateway
with a thousand sessions holds one extra connection. A lock dies with its connection, so
a crashed host never blocks a session forever.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from typing import TYPE_CHECKING, Any

from hermes_core.storage.errors import StorageError

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger("hermes_core.storage")


def advisory_key(*parts: str) -> int:
    """A signed 64-bit key for ``parts`` (PostgreSQL's ``bigint`` advisory key space)."""
    digest = hashlib.blake2b("\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def lock_for_transaction(conn: psycopg.Connection[Any], *parts: str) -> None:
    """Wait for the exclusive transaction-scoped lock on ``parts`` (released at commit/rollback)."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key(*parts),))


class SessionLocks:
    """Session-level advisory locks of one process, on one connection of their own."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self._conn: psycopg.Connection[Any] | None = None
        self._held: dict[int, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def _connection(self) -> psycopg.Connection[Any]:
        import psycopg

        from hermes_core.storage.pool import CONNECT_TIMEOUT_S, describe_error

        if self._conn is not None and not self._conn.closed and not self._conn.broken:
            return self._conn
        lost = dict(self._held)
        try:
            self._conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        except psycopg.Error as exc:
            raise describe_error(exc, self.dsn) from None
        self._held = {}
        for key, parts in lost.items():  # the server forgot them with the old connection: take them back
            if self._try(key):
                self._held[key] = parts
            else:
                log.warning("storage: lost the session lock on %s to another host after a reconnect", parts)
        return self._conn

    def _try(self, key: int) -> bool:
        assert self._conn is not None
        row = self._conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
        return bool(row and row[0])

    def acquire(self, *parts: str) -> bool:
        """Take the lock on ``parts`` unless any live engine (here or on another host) has it."""
        import psycopg

        key = advisory_key(*parts)
        with self._lock:
            if key in self._held:  # advisory locks are re-entrant per connection; ownership is not
                return False
            for attempt in range(2):
                try:
                    self._connection()
                    if not self._try(key):
                        return False
                    self._held[key] = parts
                    return True
                except psycopg.OperationalError as exc:
                    if attempt:
                        from hermes_core.storage.pool import describe_error

                        raise describe_error(exc, self.dsn) from None
            return False

    def release(self, *parts: str) -> None:
        import psycopg

        key = advisory_key(*parts)
        with self._lock:
            if self._held.pop(key, None) is None:
                return
            conn = self._conn
            if conn is None or conn.closed or conn.broken:
                return
            try:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            except psycopg.Error as exc:  # the connection is gone, and with it the lock
                log.debug("storage: unlock after a lost connection: %s", exc)

    def held(self) -> int:
        return len(self._held)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
            self._conn = None
            self._held.clear()


_by_dsn: dict[str, SessionLocks] = {}
_by_dsn_lock = threading.Lock()


def session_locks(dsn: str) -> SessionLocks:
    """The process-wide :class:`SessionLocks` for ``dsn``."""
    with _by_dsn_lock:
        locks = _by_dsn.get(dsn)
        if locks is None:
            locks = _by_dsn[dsn] = SessionLocks(dsn)
        return locks


def check_available() -> None:
    """Raise :class:`StorageError` when psycopg is missing (for commands that need it)."""
    from hermes_core.storage.pool import _driver

    _driver()


__all__ = ["SessionLocks", "StorageError", "advisory_key", "check_available", "lock_for_transaction",
           "session_locks"]


def close_all() -> None:
    """Close every process-wide lock connection (releasing its locks)."""
    with _by_dsn_lock:
        for locks in _by_dsn.values():
            locks.close()
        _by_dsn.clear()

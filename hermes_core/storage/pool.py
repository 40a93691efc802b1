"""One bounded connection pool per database per process, and transactions that retry safely.

A gateway with a thousand open sessions shares one pool of ``storage.pool_size``
connections: sessions borrow a connection for one transaction and give it back, so the
database sees a handful of connections per host, not one per session.

:meth:`Database.transact` is the only way writes run. It retries a transaction that
failed *before* its commit was sent (server restarting, connection dropped, serialization
failure, deadlock): nothing of it was applied, so running it again is safe. A connection
lost *during* the commit leaves the outcome unknown; the caller resolves it (the memory
store records an operation id in the same transaction and looks for it), and only a
confirmed commit is reported as done.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_core.storage.errors import StorageError
from hermes_core.storage.settings import PostgresTarget, redact_dsn

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

log = logging.getLogger("hermes_core.storage")
T = TypeVar("T")

CONNECT_TIMEOUT_S = 5
POOL_WAIT_S = 10.0
RETRY_DEADLINE_S = 30.0
_RETRY_SQLSTATES = {"40001", "40P01"}  # serialization failure, deadlock detected


class CommitUnknown(Exception):
    """The connection broke while COMMIT was in flight: the transaction may or may not be durable."""


def _driver() -> Any:
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise StorageError(
            "storage.backend is 'postgres' but psycopg is not installed; run: pip install 'hermes-core[postgres]'",
            kind="missing_driver",
        ) from None
    return psycopg


def describe_error(exc: BaseException, dsn: str) -> StorageError:
    """A :class:`StorageError` naming the database (password masked) and the cause."""
    where = redact_dsn(dsn)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    low = str(exc).lower()
    if "password authentication failed" in low or "authentication failed" in low or "no password supplied" in low:
        return StorageError(f"PostgreSQL at {where} refused the login: {text}. Check the user and password in "
                            "the DSN.", kind="auth")
    if "does not exist" in low and "database" in low:
        return StorageError(f"PostgreSQL at {where}: {text}. Create the database or fix the DSN.", kind="config")
    if "invalid dsn" in low or "invalid connection option" in low or "missing \"=\"" in low:
        return StorageError(f"the PostgreSQL DSN {where} is malformed: {text}", kind="config")
    if type(exc).__name__ == "PoolTimeout":
        return StorageError(f"no PostgreSQL connection free or reachable at {where} within {POOL_WAIT_S:g}s "
                            "(pool exhausted or server down); retry shortly", kind="busy")
    return StorageError(f"PostgreSQL at {where} is unavailable: {text}. Is the server running and reachable?",
                        kind="unavailable")


def _is_connection_failure(exc: BaseException) -> bool:
    import psycopg

    if isinstance(exc, psycopg.OperationalError):
        state = getattr(exc, "sqlstate", None)
        return state is None or state.startswith("08") or state.startswith("57P")
    return type(exc).__name__ == "PoolTimeout"


class Database:
    """A pool over one DSN. Build it with :func:`database`, which shares one per process."""

    def __init__(self, target: PostgresTarget) -> None:
        psycopg = _driver()
        from psycopg_pool import ConnectionPool

        self.target = target
        self.dsn = target.dsn
        try:  # one direct connection first: its error says *why* (password, refused, no database)
            psycopg.connect(self.dsn, connect_timeout=CONNECT_TIMEOUT_S).close()
        except psycopg.Error as exc:
            raise describe_error(exc, self.dsn) from None
        self.pool: ConnectionPool = ConnectionPool(
            self.dsn, min_size=1, max_size=target.pool_size, timeout=POOL_WAIT_S, open=True,
            kwargs={"connect_timeout": CONNECT_TIMEOUT_S}, name="hermes-storage",
        )
        self._ensured: set[str] = set()
        self._ensure_lock = threading.Lock()

    @property
    def display(self) -> str:
        return redact_dsn(self.dsn)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """Borrow a connection for one unit of work (it goes back to the pool after)."""
        try:
            with self.pool.connection() as conn:
                yield conn
        except StorageError:
            raise
        except Exception as exc:
            if _is_connection_failure(exc):
                raise describe_error(exc, self.dsn) from exc
            raise

    def ensure(self, component: str, apply: Callable[[psycopg.Connection[Any]], None]) -> None:
        """Run ``apply`` (a schema migration) once per component per process."""
        if component in self._ensured:
            return
        with self._ensure_lock:
            if component in self._ensured:
                return
            self.transact(lambda conn: apply(conn))
            self._ensured.add(component)

    def transact(self, work: Callable[[psycopg.Connection[Any]], T], *,
                 resolve_unknown: Callable[[psycopg.Connection[Any]], bool] | None = None,
                 deadline_s: float = RETRY_DEADLINE_S) -> T:
        """``work(conn)`` in one transaction, committed; retried only while that is safe.

        ``resolve_unknown(conn)`` answers, on a fresh connection, whether a transaction whose
        COMMIT was cut off did commit. Without it such a failure is an error saying so.
        """
        import psycopg

        deadline = time.monotonic() + deadline_s
        delay = 0.05
        last: BaseException | None = None
        pending: tuple[T] | None = None  # the result of a transaction whose commit is unknown
        while True:
            try:
                with self.pool.connection() as conn:
                    if pending is not None and resolve_unknown is not None:
                        committed = resolve_unknown(conn)
                        conn.commit()
                        if committed:
                            return pending[0]
                        pending = None
                    result = work(conn)
                    try:
                        conn.commit()
                    except psycopg.OperationalError as exc:
                        if resolve_unknown is None:
                            raise StorageError(
                                f"the connection to {self.display} broke during COMMIT; the write may or may not "
                                f"have been saved: {exc}", kind="unavailable") from None
                        pending = (result,)
                        raise CommitUnknown(str(exc)) from exc
                    return result
            except CommitUnknown as exc:
                last = exc
            except psycopg.Error as exc:
                if not (_is_connection_failure(exc) or getattr(exc, "sqlstate", None) in _RETRY_SQLSTATES):
                    raise
                last = exc
            except Exception as exc:
                if type(exc).__name__ != "PoolTimeout":
                    raise
                last = exc
            if time.monotonic() + delay > deadline:
                error = describe_error(last, self.dsn)
                if pending is not None:
                    error = StorageError(f"{error} A write's COMMIT was cut off and could not be confirmed; "
                                         "check before repeating it.", kind="unavailable")
                raise error from None
            log.debug("storage: retrying after %s", last)
            time.sleep(delay)
            delay = min(delay * 2, 1.0)

    def close(self) -> None:
        self.pool.close()


_shared: dict[tuple[str, int], Database] = {}
_shared_lock = threading.Lock()


def database(target: PostgresTarget) -> Database:
    """The process-wide :class:`Database` for ``target.dsn`` (created on first use)."""
    key = (target.dsn, target.pool_size)
    with _shared_lock:
        db = _shared.get(key)
        if db is None or db.pool.closed:
            db = _shared[key] = Database(target)
        return db


def close_all() -> None:
    """Close every shared pool (tests, and processes that fork)."""
    with _shared_lock:
        for db in _shared.values():
            db.close()
        _shared.clear()


def connection_count(db: Database) -> dict[str, int]:
    """Pool statistics that matter for capacity: open connections and waiting clients."""
    stats = db.pool.get_stats()
    return {"pool_size": int(stats.get("pool_size", 0)), "pool_available": int(stats.get("pool_available", 0)),
            "requests_waiting": int(stats.get("requests_waiting", 0))}


"""One bounded, process-wide pool of daemon threads that runs every plugin's serial queue.

A gateway holds many sessions, each with its own providers; a thread per (session,
provider) queue made 1,000 sessions cost ~2,000 threads. Instead each queue
(:class:`~hermes_core.guard.worker.OrderedWorker`) is put on this pool only while it has
work, at most one pool thread runs a given queue at a time (so its order holds), and a pool
thread runs at most :attr:`WorkerPool.batch` of its tasks before putting it at the back of
the line, so one busy queue does not starve the others.

A hung call cannot be killed, only outlived: it holds its pool thread until it returns.
So no owner (a plugin, by its origin) may hold more than :attr:`WorkerPool.per_owner`
threads at once; the queues of an owner at its cap wait, everyone else keeps going.
Daemon threads, not an executor: a plugin stuck in a network call must not keep the
interpreter from exiting. Size: ``HERMES_WORKER_POOL_SIZE``, else ``hooks.worker_pool_size`` in
config.yaml (applied by :func:`configure_shared_pool` when a host is built), else min(32, 4 x
cores), at least 8.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import Counter, deque
from typing import Protocol

log = logging.getLogger("hermes_core.plugins")

SIZE_ENV = "HERMES_WORKER_POOL_SIZE"


class Queue(Protocol):
    """What the pool needs of a serial queue."""

    owner: str

    def run_some(self, limit: int) -> None:
        """Run up to ``limit`` tasks here, in order; reschedule itself if work is left."""


def default_size(configured: int | None = None) -> int:
    """The pool size: ``HERMES_WORKER_POOL_SIZE`` (it wins, so one process can be tuned without
    editing config.yaml), else ``configured``, else min(32, 4 x cores), at least 8."""
    raw = os.environ.get(SIZE_ENV, "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            log.warning("%s=%r is not a whole number; ignoring it", SIZE_ENV, raw)
    if configured is not None:
        return configured
    return max(8, min(32, 4 * (os.cpu_count() or 1)))


class WorkerPool:
    """At most ``size`` daemon threads, started as work needs them, shared by all queues."""

    def __init__(self, size: int | None = None, per_owner: int | None = None, batch: int = 4) -> None:
        self.size = size if size is not None else default_size()
        self._own_share = per_owner is None  # the share follows the size when the pool is resized
        #: The most threads one owner's queues may occupy at once (a hung plugin's share).
        self.per_owner = per_owner if per_owner is not None else max(1, self.size // 2)
        self.batch = batch
        self._ready: deque[Queue] = deque()
        self._busy: Counter[str] = Counter()  # owner -> pool threads running its queues now
        self._cond = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._idle = 0

    def schedule(self, queue: Queue) -> None:
        """Put ``queue`` in line; the caller guarantees it is not in line or running already."""
        with self._cond:
            self._ready.append(queue)
            self._threads = [t for t in self._threads if t.is_alive()]
            if self._idle == 0 and len(self._threads) < self.size:
                thread = threading.Thread(target=self._loop, name="hermes-pool", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._cond.notify()

    def resize(self, size: int) -> None:
        """Allow ``size`` threads from now on; threads above it leave as soon as they are idle."""
        if size < 1:
            raise ValueError(f"a worker pool needs at least one thread, not {size}")
        with self._cond:
            self.size = size
            if self._own_share:
                self.per_owner = max(1, size // 2)
            self._cond.notify_all()

    @property
    def threads(self) -> int:
        """Pool threads alive now."""
        with self._cond:
            return sum(t.is_alive() for t in self._threads)

    def _next(self) -> Queue | None:
        for index, queue in enumerate(self._ready):
            if self._busy[queue.owner] < self.per_owner:
                del self._ready[index]
                return queue
        return None

    def _loop(self) -> None:
        while True:
            with self._cond:
                if self._surplus():
                    return
                self._idle += 1
                queue = self._next()
                while queue is None:
                    self._cond.wait()
                    if self._surplus(idle=True):
                        return
                    queue = self._next()
                self._idle -= 1
                self._busy[queue.owner] += 1
            try:
                queue.run_some(self.batch)
            except BaseException:  # queues isolate their tasks already; this keeps the thread alive regardless
                log.exception("a worker pool queue failed")
            finally:
                with self._cond:
                    self._busy[queue.owner] -= 1
                    self._cond.notify_all()  # an owner below its cap again: its waiting queues may run


    def _surplus(self, idle: bool = False) -> bool:
        """Under the lock: whether this thread is one more than the size allows (it then leaves)."""
        self._threads = [t for t in self._threads if t.is_alive()]
        if len(self._threads) <= self.size:
            return False
        self._threads.remove(threading.current_thread())
        if idle:
            self._idle -= 1
        return True


_shared: WorkerPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> WorkerPool:
    """The process-wide pool, made on first use (no threads at import)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = WorkerPool()
        return _shared


def configure_shared_pool(configured: int | None) -> WorkerPool:
    """Size the process-wide pool from config.yaml's ``hooks.worker_pool_size`` (``None``: the
    default); ``HERMES_WORKER_POOL_SIZE`` still wins. The last host built decides."""
    pool = shared_pool()
    size = default_size(configured)
    if size != pool.size:
        pool.resize(size)
    return pool

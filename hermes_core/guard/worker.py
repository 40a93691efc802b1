"""A serial queue per plugin (per session): its background calls run one at a time, in order.

The queue owns no thread: it goes on the process-wide :class:`~hermes_core.guard.pool.WorkerPool`
only while it has work, and at most one pool thread runs it at a time. Each task runs
isolated against ``BaseException``, so a ``SystemExit`` in a provider's ``sync_turn`` costs
that call, not the queue; a pool thread that dies anyway while running the queue is noticed
on the next submission, the queue is put back in line and the restart is counted.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from hermes_core.guard.pool import WorkerPool, shared_pool

log = logging.getLogger("hermes_core.plugins")

_Task = tuple[str, Callable[[], object]]  # (kind: the hook's short name, the call)


class PendingCall:
    """One queued call: its outcome ``(ok, value)`` once ``done`` is set."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.done = threading.Event()
        self.outcome: tuple[bool, Any] = (False, None)

    def run(self, call: Callable[[], tuple[bool, Any]]) -> None:
        try:
            self.outcome = call()
        finally:
            self.done.set()


class OrderedWorker:
    """Runs submitted tasks one at a time, in submission order, on the shared pool."""

    def __init__(self, name: str, pool: WorkerPool | None = None, owner: str | None = None) -> None:
        self.name = name
        #: Whose share of the pool this queue counts against (the plugin's origin).
        self.owner = owner or name
        self._pool = pool
        self._tasks: deque[_Task] = deque()
        self._cond = threading.Condition()
        self._scheduled = False  # in the pool's line or being run by a pool thread
        self._thread: threading.Thread | None = None  # the pool thread running this queue now
        self._running: str | None = None  # the kind of the task running now
        self._closed = False
        #: How often the thread running the queue was found dead and the queue put back in line.
        self.restarts = 0

    @property
    def pool(self) -> WorkerPool:
        return self._pool if self._pool is not None else shared_pool()

    def submit(self, task: Callable[[], object], kind: str) -> bool:
        """Queue ``task``; ``False`` once the worker is closed."""
        with self._cond:
            if self._closed:
                return False
            if self._thread is not None and not self._thread.is_alive():
                self.restarts += 1
                log.warning("%s: its worker thread had died; started a new one", self.name)
                self._thread, self._running, self._scheduled = None, None, False
            self._tasks.append((kind, task))
            self._cond.notify_all()
            if self._scheduled:
                return True
            self._scheduled = True
        self.pool.schedule(self)
        return True

    def run_some(self, limit: int) -> None:
        """Called by one pool thread: run up to ``limit`` tasks, then leave the line or rejoin it."""
        with self._cond:
            self._thread = threading.current_thread()
        for _ in range(limit):
            with self._cond:
                if self._closed or not self._tasks:
                    break
                self._running, task = self._tasks.popleft()
            try:
                task()
            except BaseException:  # tasks are isolated already; this keeps the queue going regardless
                log.exception("%s: a background task failed", self.name)
            with self._cond:
                self._running = None
                self._cond.notify_all()
        with self._cond:
            self._thread = None
            again = bool(self._tasks) and not self._closed
            self._scheduled = again
        if again:
            self.pool.schedule(self)  # to the back of the line: fairness between queues

    def kinds(self) -> list[str]:
        """The kinds of the running task and the queued ones, in order."""
        with self._cond:
            return self._kinds()

    def _kinds(self) -> list[str]:
        head = [self._running] if self._running is not None else []
        return head + [kind for kind, _ in self._tasks]

    def wait(self, until: Callable[[list[str]], bool], timeout: float) -> bool:
        """Wait until ``until(kinds of the running and queued tasks)``; ``False`` on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: until(self._kinds()), max(0.0, timeout))

    def close(self) -> tuple[Counter[str], str | None]:
        """Accept and start no more work: the kinds of the queued tasks dropped, and the kind still running."""
        with self._cond:
            self._closed = True
            dropped = Counter(kind for kind, _ in self._tasks)
            self._tasks.clear()
            self._cond.notify_all()
            return dropped, self._running

    @property
    def closed(self) -> bool:
        return self._closed

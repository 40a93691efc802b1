"""One daemon thread per plugin that runs its background calls one at a time, in order.

A daemon thread, not an executor: a plugin stuck in a network call must not keep the
interpreter from exiting. Each task runs isolated against ``BaseException``, so a
``SystemExit`` in a provider's ``sync_turn`` costs that call, not the worker; a worker
thread that dies anyway is restarted on the next submission and the restart is counted.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

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
    """Runs submitted tasks one at a time, in submission order, on one daemon thread."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._tasks: deque[_Task] = deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._running: str | None = None  # the kind of the task running now
        self._closed = False
        #: How often the thread was found dead and started again.
        self.restarts = 0

    def submit(self, task: Callable[[], object], kind: str) -> bool:
        """Queue ``task``; ``False`` once the worker is closed."""
        with self._cond:
            if self._closed:
                return False
            if self._thread is None or not self._thread.is_alive():
                if self._thread is not None:
                    self.restarts += 1
                    log.warning("%s: its worker thread had died; started a new one", self.name)
                    self._running = None
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._tasks.append((kind, task))
            self._cond.notify_all()
            return True

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._tasks or self._closed)
                if not self._tasks:
                    return
                self._running, task = self._tasks.popleft()
            try:
                task()
            except BaseException:  # tasks are isolated already; this keeps the thread alive regardless
                log.exception("%s: a background task failed", self.name)
            with self._cond:
                self._running = None
                self._cond.notify_all()

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

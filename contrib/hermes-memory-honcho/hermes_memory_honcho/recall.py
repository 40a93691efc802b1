"""Recalled context, fetched in the background and served from a cache.

``request(query)`` starts (or queues) a fetch on a daemon thread; ``latest`` is the last
good result. Requests made while a fetch runs collapse into one: only the newest query
is fetched next. A failed fetch keeps the previous result, so an outage serves slightly
stale context instead of none.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from hermes_memory_honcho.link import Recall
from hermes_memory_honcho.mapping import clip


class RecallCache:
    def __init__(self, fetch: Callable[[str], Recall | None]) -> None:
        self._fetch = fetch
        self._lock = threading.Lock()
        self._next: str | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self.latest: Recall | None = None
        self.fetched_at: float | None = None
        self.closed = False

    def request(self, query: str) -> None:
        with self._lock:
            if self.closed:
                return
            self._next = query
            self._done.clear()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="honcho-recall", daemon=True)
                self._thread.start()

    def wait(self, timeout: float) -> bool:
        """Wait for the fetch in flight (if any) for at most ``timeout`` seconds."""
        return self._done.wait(timeout) if timeout > 0 else self._done.is_set()

    def _run(self) -> None:
        while True:
            with self._lock:
                query, self._next = self._next, None
                if query is None or self.closed:
                    self._done.set()
                    self._thread = None
                    return
            result = self._fetch(query)
            if result is not None:
                self.latest, self.fetched_at = result, time.time()

    def close(self, timeout: float) -> None:
        """No new fetches; wait (bounded) for the one in flight, so no thread of ours is
        still importing or talking when the interpreter exits."""
        with self._lock:
            self.closed = True
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
        self._done.set()


def render(recall: Recall | None, budget: int, dialectic_max: int) -> str:
    """The recalled-context block, headed sections within ``budget`` chars."""
    if recall is None:
        return ""
    sections = []
    if recall.summary.strip():
        sections.append("## Session summary\n" + recall.summary.strip())
    if recall.representation.strip():
        sections.append("## What you know about the user\n" + recall.representation.strip())
    if recall.card:
        sections.append("## User profile\n" + "\n".join(f"- {fact}" for fact in recall.card))
    if recall.dialectic.strip():
        sections.append("## Honcho's answer for this turn\n" + clip(recall.dialectic.strip(), dialectic_max))
    return clip("\n\n".join(sections), budget)

"""Recalled context, fetched in the background and served from a cache.

``request(query)`` starts (or queues) a fetch on a daemon thread; ``latest`` is the last
good result. Requests made while a fetch runs collapse into one: only the newest query
is fetched next. A failed fetch keeps the previous result, so an outage serves slightly
stale context instead of none. The dialectic answer (an LLM call on Honcho's side,
seconds) has a cache of its own, so a slow or failing answer never holds back or
discards the context fetched beside it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from hermes_memory_honcho.link import Recall
from hermes_memory_honcho.mapping import clip

SUMMARY_SHARE = 0.6  # of the budget, when a representation, card or answer follows


class RecallCache:
    def __init__(self, fetch: Callable[[str], Any], name: str = "honcho-recall") -> None:
        self._name = name
        self._fetch = fetch
        self._lock = threading.Lock()
        self._next: str | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self._progress = threading.Event()  # set after every fetch
        self.latest: Any = None
        self.fetched_at: float | None = None
        self.closed = False

    def request(self, query: str) -> None:
        with self._lock:
            if self.closed:
                return
            self._next = query
            self._done.clear()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

    def wait(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds for a first result, or for the queue to run dry."""
        deadline = time.monotonic() + timeout
        while self.latest is None and not self._done.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._progress.wait(min(remaining, 0.05))
            self._progress.clear()
        return True

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
            self._progress.set()

    def close(self, timeout: float, give_up: Callable[[], bool] = lambda: False) -> None:
        """No new fetches; wait (bounded, and not for a request nobody answers: ``give_up``)
        for the one in flight, so no thread of ours is still importing when the interpreter exits."""
        with self._lock:
            self.closed = True
            thread = self._thread
        deadline = time.monotonic() + timeout
        while thread is not None and thread.is_alive() and time.monotonic() < deadline and not give_up():
            thread.join(min(0.05, max(0.0, deadline - time.monotonic())))
        self._done.set()


def render(recall: Recall | None, budget: int, dialectic_max: int, dialectic: str = "") -> str:
    """The recalled-context block, headed sections within ``budget`` chars.

    Honcho's summary arrives whole (see ``HonchoLink.recall``); it is clipped here, to
    our budget, so a long summary is shortened rather than left out.
    """
    if recall is None:
        return ""
    if dialectic:
        recall = Recall(recall.summary, recall.representation, recall.card, dialectic)
    others = bool(recall.representation.strip() or recall.card or recall.dialectic.strip())
    sections = []
    if recall.summary.strip():
        room = int(budget * SUMMARY_SHARE) if others else budget  # leave room for what follows
        sections.append(clip("## Session summary\n" + recall.summary.strip(), room))
    if recall.representation.strip():
        sections.append("## What you know about the user\n" + recall.representation.strip())
    if recall.card:
        sections.append("## User profile\n" + "\n".join(f"- {fact}" for fact in recall.card))
    if recall.dialectic.strip():
        sections.append("## Honcho's answer for this turn\n" + clip(recall.dialectic.strip(), dialectic_max))
    return clip("\n\n".join(sections), budget)

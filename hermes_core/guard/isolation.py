"""A :class:`Guard` runs one plugin's calls isolated and within their time bounds.

Isolation covers ``BaseException``: ``SystemExit``, ``GeneratorExit`` leaking from a
wrapper, a ``KeyboardInterrupt`` raised by plugin code on a worker thread. The one thing
that passes is a real Ctrl-C, a ``KeyboardInterrupt`` on the main thread. A bounded call
runs on its own daemon thread and is waited for up to its bound; a call of the same hook
still running from an earlier turn makes the next one skip instead of piling up threads.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from hermes_core.guard.bounds import Bounds
from hermes_core.guard.worker import OrderedWorker, PendingCall

log = logging.getLogger("hermes_core.plugins")

Outcome = tuple[bool, Any]  # (the call returned, its value)


def real_interrupt(exc: BaseException) -> bool:
    """A Ctrl-C of the user: the only exception plugin isolation lets through."""
    return isinstance(exc, KeyboardInterrupt) and threading.current_thread() is threading.main_thread()


class Guard:
    """Isolation, bounds and an ordered background worker for one plugin object.

    ``origin`` names the plugin and its distribution in every log line. ``bounded`` is
    false for hermes-core's own built-ins, which run inline (they are tested to be quick);
    everything else runs under :class:`Bounds`.
    """

    def __init__(self, origin: str, bounds: Bounds, *, bounded: bool = True) -> None:
        self.origin = origin
        self.bounds = bounds
        self.bounded = bounded
        self._busy: dict[str, threading.Thread] = {}
        self._worker: OrderedWorker | None = None
        self._late: threading.Event | None = None  # an ordered call we stopped waiting for
        #: Calls that raised or overran, and the last such problem (for ``doctor``).
        self.failures = 0
        self.last_problem = ""

    # -- synchronous calls ----------------------------------------------------------

    def call(self, hook: str, fn: Callable[..., Any], *args: Any) -> Outcome:
        """Run ``fn(*args)`` for ``hook`` isolated, within the hook's bound when bounded."""
        timeout = self.bounds[hook] if self.bounded else 0.0
        if timeout <= 0:
            return self.run(hook, fn, *args)
        busy = self._busy.get(hook)
        if busy is not None and busy.is_alive():
            log.info("%s: %s from an earlier call is still running; skipped this time", self.origin, _short(hook))
            return False, None
        box: list[Outcome] = []
        thread = threading.Thread(
            target=lambda: box.append(self.run(hook, fn, *args)), name=f"hermes-{_short(hook)}", daemon=True
        )
        self._busy[hook] = thread
        thread.start()
        thread.join(timeout)
        if thread.is_alive():
            self.timed_out(hook, timeout)
            return False, None
        return box[0] if box else (False, None)

    def run(self, hook: str, fn: Callable[..., Any], *args: Any) -> Outcome:
        """Run ``fn(*args)`` here, isolated; never raises but for a real Ctrl-C."""
        try:
            return True, fn(*args)
        except BaseException as exc:
            if real_interrupt(exc):
                raise
            self.failed(hook, f"{type(exc).__name__}: {exc}", exc)
            return False, None

    def failed(self, hook: str, problem: str, exc: BaseException | None = None) -> None:
        self.failures += 1
        self.last_problem = f"{_short(hook)}: {problem}"
        trace = exc is not None and log.isEnabledFor(logging.DEBUG)
        log.warning("%s failed in %s: %s", self.origin, hook, problem, exc_info=trace)

    def timed_out(self, hook: str, timeout: float) -> None:
        self.failures += 1
        self.last_problem = f"{_short(hook)}: timed out after {timeout:g}s"
        log.warning("%s: %s timed out after %.1fs; carrying on without it", self.origin, _short(hook), timeout)

    # -- background calls, in order on the plugin's worker -----------------------------

    @property
    def worker(self) -> OrderedWorker:
        if self._worker is None:
            self._worker = OrderedWorker(f"hermes-worker {self.origin}", owner=self.origin)
        return self._worker

    @property
    def has_worker(self) -> bool:
        return self._worker is not None

    def submit(self, hook: str, fn: Callable[..., Any], *args: Any) -> PendingCall | None:
        """Queue ``fn(*args)`` after this plugin's earlier background work; ``None`` once closed."""
        pending = PendingCall(self.origin)
        if not self.worker.submit(lambda: pending.run(lambda: self.run(hook, fn, *args)), _short(hook)):
            log.warning("%s: %s dropped, the plugin's worker is shut down", self.origin, _short(hook))
            return None
        return pending

    def ordered(self, hook: str, fn: Callable[..., Any], *args: Any, skip_if_late: bool = False) -> Outcome:
        """Queue ``fn(*args)`` after earlier background work and wait up to the hook's bound."""
        if skip_if_late and self._late is not None and not self._late.is_set():
            log.info("%s: still busy with a call that timed out; skipped %s", self.origin, _short(hook))
            return False, None
        pending = self.submit(hook, fn, *args)
        if pending is None:
            return False, None
        timeout = self.bounds[hook]
        if not pending.done.wait(timeout):
            self.timed_out(hook, timeout)
            self._late = pending.done
            return False, None
        return pending.outcome


def _short(hook: str) -> str:
    for prefix in ("hermes_memory_", "hermes_engine_", "hermes_"):
        if hook.startswith(prefix):
            return hook[len(prefix) :]
    return hook


_IMMUTABLE = (str, int, float, bool, type(None), bytes)


def deep_copy(value: Any) -> Any:
    """A deep copy of JSON-like data (messages, usage, tool arguments), fast on dicts and lists.

    Plugins get their own copy of every mutable argument, so nothing they do to it
    reaches the caller's history; anything exotic goes through :func:`copy.deepcopy`.
    """
    kind = type(value)
    if kind is dict:
        return {key: deep_copy(item) for key, item in value.items()}
    if kind is list:
        return [deep_copy(item) for item in value]
    if kind in _IMMUTABLE:
        return value
    import copy

    return copy.deepcopy(value)

"""Is Honcho reachable? One small state machine, logged on transitions only.

States: ``starting`` (not yet connected), ``ok``, ``degraded`` (failing; writes wait in
the outbox and are retried with backoff), ``unavailable`` (cannot work here: SDK
missing or not configured), ``closed``. A degraded provider logs one warning when it
degrades and one info line when it recovers, not one line per failed request.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from hermes_memory_honcho.link import Failure

log = logging.getLogger("hermes_memory_honcho")


class Health:
    def __init__(self, retry_initial: float, retry_max: float) -> None:
        self.state = "starting"
        self.reason = ""
        self.failure: Failure | None = None
        self.last_error = ""  # the latest failure, kept after recovery (doctor shows it)
        self.last_ok: float | None = None
        self.last_failure_at: float | None = None
        self.failures = 0
        self._retry_initial = retry_initial
        self._retry_max = retry_max
        self._next_attempt = 0.0
        self._lock = threading.Lock()

    def ok(self) -> None:
        with self._lock:
            if self.state == "degraded":
                log.info("Honcho is reachable again; delivering queued turns")
            if self.state in ("starting", "degraded"):
                self.state, self.reason, self.failure = "ok", "", None
            self.failures = 0
            self.last_ok = time.time()
            self._next_attempt = 0.0

    def failed(self, failure: Failure) -> float:
        """Record a failure; returns seconds to wait before the next attempt."""
        with self._lock:
            self.failures += 1
            self.failure, self.last_failure_at = failure, time.time()
            self.last_error = failure.describe()
            if failure.kind == "sdk_missing":
                return self._unavailable_locked(failure.message)
            if self.state in ("starting", "ok"):
                log.warning("Honcho memory degraded (%s); turns are kept in the local outbox and retried",
                            failure.describe())
                self.state = "degraded"
            self.reason = failure.describe()
            slow = 4 if failure.kind == "auth" else 1  # wrong credentials rarely fix themselves
            delay: float = min(self._retry_max, self._retry_initial * slow * 2.0 ** min(self.failures - 1, 16))
            self._next_attempt = time.monotonic() + delay
            return delay

    def note(self, failure: Failure) -> None:
        """A refusal of one write: remembered as the last error, the connection is fine."""
        with self._lock:
            self.last_error = failure.describe()

    def unavailable(self, reason: str) -> None:
        with self._lock:
            self._unavailable_locked(reason)

    def _unavailable_locked(self, reason: str) -> float:
        if self.state != "unavailable":
            log.warning("Honcho memory unavailable: %s; turns are kept in the local outbox", reason)
        self.state, self.reason = "unavailable", reason
        self._next_attempt = time.monotonic() + self._retry_max
        return self._retry_max

    def close(self) -> None:
        with self._lock:
            self.state = "closed"

    def defer(self, seconds: float) -> float:
        """Push the next attempt at least ``seconds`` out; returns the wait."""
        with self._lock:
            self._next_attempt = max(self._next_attempt, time.monotonic() + seconds)
            return self._next_attempt - time.monotonic()

    def backoff_remaining(self) -> float:
        return max(0.0, self._next_attempt - time.monotonic())

    def may_try(self) -> bool:
        """Outside the backoff window (reads use this so they do not hammer a dead server)."""
        return self.state not in ("unavailable", "closed") and time.monotonic() >= self._next_attempt

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "state": self.state,
                "reason": self.reason,
                "error_kind": self.failure.kind if self.failure else "",
                "consecutive_failures": self.failures,
                "last_ok": self.last_ok,
                "last_failure": self.last_failure_at,
                "last_error": self.last_error,
            }

"""The background thread that carries the outbox to Honcho, in order, exactly once."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hermes_memory_honcho.health import Health
from hermes_memory_honcho.link import PART_KEY, Failure, HonchoLink, classify
from hermes_memory_honcho.outbox import Entry, Outbox

log = logging.getLogger("hermes_memory_honcho")

IDLE_POLL = 5.0  # seconds; picks up entries other processes appended
MAX_BATCH_MESSAGES = 100  # the server's limit per add_messages call
SETTLE_FACTOR = 2.0  # after a timeout, wait this many timeouts before checking what landed
STALL_GIVE_UP = 1.0  # seconds a request may go unanswered before a flush stops waiting for it


class Courier:
    """Owns one daemon thread; ``wake()`` after appending, ``flush()`` to wait for delivery."""

    def __init__(self, outbox: Outbox, link: HonchoLink, health: Health, connect: Callable[[], None]) -> None:
        self.outbox = outbox
        self.link = link
        self.health = health
        self._connect = connect
        self._connected = False
        self._wake = threading.Event()
        self._stopping = False
        self._force = False
        self._passes = threading.Condition()
        self._pass_count = 0
        self._last_pass_ok = False
        self._in_pass = False
        self._single_until = 0  # after a rejected batch, resend one entry at a time
        self._thread = threading.Thread(target=self._run, name="honcho-courier", daemon=True)
        self.delivered = 0

    def start(self) -> None:
        with contextlib.suppress(Exception):  # refusals caused by the server's setup get one more try per start
            self.outbox.retry(cause="server")
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def wake(self) -> None:
        self._wake.set()

    def flush(self, timeout: float) -> bool:
        """Immediate attempts (backoff or not) until the outbox is empty, one fails, or ``timeout``.

        Returns True when the outbox was emptied; False when an attempt failed (Honcho
        is down: no point waiting longer), a request went unanswered for
        ``STALL_GIVE_UP`` seconds (a server that accepts and never answers), or time ran out.
        """
        deadline = time.monotonic() + timeout
        with self._passes:
            while self._thread.is_alive():
                # a pass already running may have read the outbox before our entry: wait for the next
                target = self._pass_count + (2 if self._in_pass else 1)
                self._force = True
                self.wake()
                while self._pass_count < target:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0 or self.link.stalled_for() > STALL_GIVE_UP:
                        return False
                    self._passes.wait(min(remaining, 0.05))
                if not self.outbox.pending(1):
                    return True
                if not self._last_pass_ok:
                    return False
        return False

    def stop(self, timeout: float) -> None:
        """Last delivery attempt, bounded by ``timeout``; undelivered entries stay queued."""
        self._stopping = True
        self._wake.set()
        deadline = time.monotonic() + timeout
        while self._thread.is_alive() and time.monotonic() < deadline:
            if self.link.stalled_for() > STALL_GIVE_UP:
                return  # a request nobody answers: it stays queued (maybe_sent) for the next start
            self._thread.join(min(0.05, max(0.0, deadline - time.monotonic())))

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    # -- the loop -----------------------------------------------------------------------

    def _run(self) -> None:
        delay = 0.0
        while True:
            if delay:
                self._wake.wait(delay)
            self._wake.clear()
            if not (self._stopping or self._force):
                delay = self.health.backoff_remaining()
                if delay > 0:  # a wake-up inside the backoff window does not hammer Honcho
                    continue
            with self._passes:
                self._force = False
                self._in_pass = True
            try:
                delay = self._pass()
            except Exception:  # e.g. the outbox file became unreadable: say so, keep going
                log.exception("Honcho courier pass failed; retrying in %.0fs", IDLE_POLL)
                delay = IDLE_POLL
            with self._passes:
                self._in_pass = False
                self._pass_count += 1
                self._passes.notify_all()
            if self._stopping:
                return

    def _pass(self) -> float:
        """Deliver until empty or a failure; returns how long to wait before the next pass."""
        self._last_pass_ok = False
        try:
            if not self._connected:
                self._connect()
                self._connected = True
                self.health.ok()
        except Exception as exc:
            return self.health.failed(classify(exc))
        with self.outbox.drain_lock() as mine:
            if not mine:
                return IDLE_POLL
            while True:
                batch = self._next_batch()
                if not batch:
                    self._last_pass_ok = True
                    return IDLE_POLL
                failure = self._deliver(batch)
                if failure is not None:
                    delay = self.health.failed(failure)
                    if failure.kind == "timeout":
                        # the server may still be working on the request we gave up on; give it
                        # time to finish before we look for it, or the check misses it
                        delay = self.health.defer(SETTLE_FACTOR * self.link.settings.timeout)
                    return delay

    def _next_batch(self) -> list[Entry]:
        """The head of the queue, plus following turns of the same session (one request).

        A turn of more than ``MAX_BATCH_MESSAGES`` chunks goes alone, in several requests.
        """
        entries = self.outbox.pending(MAX_BATCH_MESSAGES)
        if not entries:
            return []
        head = entries[0]
        batch = [head]
        if head.kind != "turn" or head.id <= self._single_until:
            return batch
        count = len(head.payload["messages"])
        for entry in entries[1:]:
            size = len(entry.payload.get("messages", ()))
            if entry.kind != "turn" or entry.session != head.session or count + size > MAX_BATCH_MESSAGES:
                break
            batch.append(entry)
            count += size
        return batch

    def _deliver(self, batch: list[Entry]) -> Failure | None:
        try:
            batch, started = self._skip_landed(batch)
        except Exception as exc:
            return classify(exc)
        if not batch:
            return None
        ids = [e.id for e in batch]
        self.outbox.mark_sending(ids)
        try:
            if batch[0].kind == "turn":
                for request in _requests(batch):
                    self.link.add_turns(batch[0].session, [request])
                    started = True
            else:
                self.link.add_conclusion(batch[0].session, batch[0].payload)
        except Exception as exc:
            failure = classify(exc)
            if not failure.maybe_sent and not started:  # part on the server: the retry checks what landed
                self.outbox.mark_not_sent(ids)
            if failure.reject or failure.kind == "not_found":
                self.health.note(failure)
            if failure.kind == "not_found":
                self.link.forget_session(batch[0].session)
                if not failure.maybe_sent:
                    # Honcho answers 404 for good to a session deleted on the server: set its
                    # writes aside so the other sessions' writes behind them go on
                    count = self.outbox.reject_session(batch[0].session, f"HTTP 404: {failure.message}")
                    log.error("Honcho has no session %s (deleted on the server?); %d write(s) of it set aside "
                              "in %s (hermes-core memory outbox list)", batch[0].session, count, self.outbox.path)
                    return None
            if failure.reject:
                if len(batch) == 1:
                    log.error("Honcho refused outbox entry %s (%s); set aside in %s (hermes-core memory outbox "
                              "list)", batch[0].key, failure.message, self.outbox.path)
                    self.outbox.reject(batch[0].id, failure.message, failure.cause or "payload")
                    return None
                self._single_until = batch[-1].id
                return None
            return failure
        self.outbox.delivered(ids)
        self.delivered += len(ids)
        self.health.ok()
        return None

    def _skip_landed(self, batch: list[Entry]) -> tuple[list[Entry], bool]:
        """Entries whose earlier send may have landed are checked on the server first.

        A turn that went out in several requests may have landed in part: only its
        missing chunks are kept. Also returns whether any kept entry is partly stored.
        """
        fresh, started = [], False
        for entry in batch:
            if entry.maybe_sent:
                if entry.kind == "turn":
                    landed = self.link.landed_parts(entry.session, entry.key)
                    messages = entry.payload["messages"]
                    missing = [m for i, m in enumerate(messages) if m["metadata"].get(PART_KEY, i) not in landed]
                    if missing and len(missing) < len(messages):
                        fresh.append(replace(entry, payload={**entry.payload, "messages": missing}))
                        started = True
                        continue
                    done = not missing
                else:
                    done = self.link.conclusion_landed(entry.session, entry.payload)
                if done:
                    self.outbox.delivered([entry.id])
                    self.delivered += 1
                    continue
                self.outbox.mark_not_sent([entry.id])
            fresh.append(entry)
        return fresh, started


def _requests(batch: list[Entry]) -> list[dict[str, Any]]:
    """The batch's messages as payloads of at most ``MAX_BATCH_MESSAGES`` each, in order."""
    messages = [m for entry in batch for m in entry.payload["messages"]]
    return [{**batch[0].payload, "messages": messages[i:i + MAX_BATCH_MESSAGES]}
            for i in range(0, len(messages), MAX_BATCH_MESSAGES)]

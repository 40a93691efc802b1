"""A session boundary reaches an external provider after that provider's queued turns.

The reviewer's scenario: an external provider whose ``sync_turn`` is slow, ``reset()`` to a
new session, one more turn, ``close()``. Each turn must be stored under the session it
belongs to, ``on_session_end`` must follow that session's turns, and ``shutdown`` must
never run while a sync is still running (skipped and reported instead).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest

from hermes_core import MemoryProvider
from hermes_core.session.session import Session

SYNC = 0.3  # seconds each sync_turn takes


class SlowSync(MemoryProvider):
    """Records each hook with the session the provider believed it was in at the time."""

    def __init__(self, ctx: Any = None) -> None:
        super().__init__(ctx)
        self.sid: str | None = None
        self.log: list[tuple[str, ...]] = []
        self.active = 0  # calls running right now: shutdown must never overlap a sync
        self.overlaps = 0
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "ext"

    def is_available(self) -> tuple[bool, str]:
        return True, ""

    def _enter(self) -> None:
        with self._lock:
            self.overlaps += self.active
            self.active += 1

    def _leave(self, *event: str) -> None:
        with self._lock:
            self.active -= 1
            self.log.append(event)

    def initialize(self, session_id: str) -> None:
        self.sid = session_id
        self.log.append(("initialize", session_id))

    def sync_turn(self, user_content: str, assistant_content: str) -> None:
        self._enter()
        time.sleep(SYNC)
        self._leave("sync", user_content, f"stored under {self.sid}")

    def on_session_end(self, session_id: str, messages: list[dict[str, Any]]) -> None:
        self.log.append(("session_end", session_id))

    def shutdown(self) -> None:
        self._enter()
        self._leave("shutdown")


def run_reviewer_scenario(make_host: Any, drain_timeout: float) -> tuple[Session, SlowSync, float]:
    """Session A with one turn, reset to B, one turn, close; returns the close time too."""
    host = make_host(providers={"ext": SlowSync}, **{"memory.provider": "ext"})
    host.memory.drain_timeout = drain_timeout
    host.memory.hook_timeout = 3.0
    provider = host.memory.external
    assert isinstance(provider, SlowSync)
    session = Session(host, session_id="A")
    session.start_turn("turn1 in A")
    session.add_response("ok")
    started = time.monotonic()
    session.reset("B")
    assert time.monotonic() - started < 3.0 + 0.5  # bounded by hook_timeout, not by the provider
    session.start_turn("turn1 in B")
    session.add_response("ok")
    started = time.monotonic()
    session.close()
    return session, provider, time.monotonic() - started


def test_each_turn_lands_in_its_own_session_and_shutdown_waits_for_none(
    make_host: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="hermes_core.memory")
    session, provider, took = run_reviewer_scenario(make_host, drain_timeout=0.1)
    assert took < 0.1 + 0.5  # close keeps its bound although B's sync is still running
    state = dict(session.host.memory.shutdown_state)
    time.sleep(SYNC + 0.2)  # let the running sync finish: nothing may run after it
    assert provider.log == [
        ("initialize", "A"),
        ("sync", "turn1 in A", "stored under A"),
        ("session_end", "A"),
        ("initialize", "B"),
        ("sync", "turn1 in B", "stored under B"),
    ]
    assert provider.overlaps == 0
    # B's running sync is counted; its session end and the shutdown queued behind it never ran
    assert state == {"status": "timed_out", "dropped": 3, "unsynced": {"ext": 1}, "shutdown_skipped": ["ext"]}
    ext_logs = [r.getMessage() for r in caplog.records if "ext" in r.getMessage()]
    assert any("did not receive 1 turn(s)" in m for m in ext_logs), ext_logs
    assert any("on_session_end x1" in m and "shutdown x1" in m for m in ext_logs), ext_logs
    assert any("shutdown skipped" in m for m in ext_logs), ext_logs


def test_with_time_to_drain_the_boundary_and_shutdown_follow_the_last_turn(make_host: Any) -> None:
    session, provider, took = run_reviewer_scenario(make_host, drain_timeout=2.0)
    assert SYNC - 0.1 < took < 2.0  # waited for B's sync, then its end and shutdown
    assert session.host.memory.shutdown_state == {
        "status": "drained", "dropped": 0, "unsynced": {}, "shutdown_skipped": []}
    assert provider.log == [
        ("initialize", "A"),
        ("sync", "turn1 in A", "stored under A"),
        ("session_end", "A"),
        ("initialize", "B"),
        ("sync", "turn1 in B", "stored under B"),
        ("session_end", "B"),
        ("shutdown",),
    ]
    assert provider.overlaps == 0


def test_reset_behind_a_stuck_sync_is_bounded_and_stays_ordered(make_host: Any) -> None:
    release = threading.Event()

    class Stuck(SlowSync):
        def sync_turn(self, user_content: str, assistant_content: str) -> None:
            release.wait(5)
            super().sync_turn(user_content, assistant_content)

    host = make_host(providers={"ext": Stuck}, **{"memory.provider": "ext"})
    host.memory.hook_timeout = 0.3
    provider = host.memory.external
    assert isinstance(provider, Stuck)
    try:
        session = Session(host, session_id="A", close_host=False)
        session.start_turn("turn1 in A")
        session.add_response("ok")
        started = time.monotonic()
        session.reset("B")  # waits hook_timeout for B's initialize, then skips its prompt block
        assert time.monotonic() - started < 0.3 + 0.5
        assert provider.log == [("initialize", "A")]  # the boundary waits behind A's turn
    finally:
        release.set()
    assert host.memory.flush_pending(SYNC + 2)
    assert provider.log == [
        ("initialize", "A"),
        ("sync", "turn1 in A", "stored under A"),
        ("session_end", "A"),
        ("initialize", "B"),
    ]

"""A provider that hangs in a lifecycle hook costs the session a bounded wait, never the hang.

Real slow providers, registered through ``make_host``: each sleeps 5 s in one hook while
the manager's ``hook_timeout`` is 0.3 s, so an unbounded wait would show as seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from hermes_core.session.session import Session

HANG = 5.0
BOUND = 0.3


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at teardown so the stuck provider threads end with the test."""
    event = threading.Event()
    yield event
    event.set()


def hanging_provider(recorder: type, hook: str, release: threading.Event) -> type:
    """A Recorder whose ``hook`` blocks for up to HANG seconds (or until released)."""
    original = getattr(recorder, hook)

    def stuck(self: Any, *args: Any) -> Any:
        release.wait(HANG)
        return original(self, *args)

    return type("Hanging", (recorder,), {hook: stuck})


def make_session(make_host: Any, provider: type) -> Session:
    host = make_host(providers={"recorder": provider}, **{"memory.provider": "recorder"})
    host.memory.hook_timeout = BOUND
    host.memory.drain_timeout = BOUND
    return Session(host, session_id="s-hang")


@pytest.mark.parametrize("hook", ["initialize", "system_prompt_block"])
def test_a_hang_while_the_session_starts_is_bounded(
    hook: str, make_host: Any, recorder: type, release: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="hermes_core.memory")
    started = time.monotonic()
    session = make_session(make_host, hanging_provider(recorder, hook, release))
    assert time.monotonic() - started < 3 * BOUND + 1.0  # not HANG
    assert any("recorder" in r.getMessage() and hook in r.getMessage() and "timed out" in r.getMessage()
               for r in caplog.records)
    # the block is read on the provider's worker after its initialize: never before it, never twice
    assert "recorder block" not in session.system_prompt
    session.start_turn("hello")
    session.add_response("hi")
    started = time.monotonic()
    session.close()
    assert time.monotonic() - started < 4 * BOUND + 1.0


@pytest.mark.parametrize("hook", ["on_session_end", "shutdown"])
def test_a_hang_while_the_session_closes_is_bounded(
    hook: str, make_host: Any, recorder: type, release: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="hermes_core.memory")
    provider = hanging_provider(recorder, hook, release)
    session = make_session(make_host, provider)
    session.start_turn("hello")
    session.add_response("hi")
    started = time.monotonic()
    session.close()
    assert time.monotonic() - started < 3 * BOUND + 1.0  # not HANG
    assert any("recorder" in r.getMessage() and hook in r.getMessage() and "timed out" in r.getMessage()
               for r in caplog.records)
    assert ("sync_turn", "hello", "hi") in provider.log  # what came before the hang was delivered
    state = session.host.memory.shutdown_state
    if hook == "on_session_end":  # shutdown is ordered after it: never run alongside the hung call
        assert ("shutdown",) not in provider.log and state["shutdown_skipped"] == ["recorder"]
    else:
        assert ("shutdown",) not in provider.log and state["shutdown_skipped"] == []


def test_turns_a_stuck_provider_never_received_are_counted_not_silently_dropped(
    make_host: Any, recorder: type, release: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="hermes_core.memory")
    provider = hanging_provider(recorder, "sync_turn", release)
    session = make_session(make_host, provider)
    for n in range(3):
        session.start_turn(f"turn {n}")
        session.add_response(f"reply {n}")
    started = time.monotonic()
    session.close()
    assert time.monotonic() - started < 4 * BOUND + 1.0
    state = session.host.memory.shutdown_state
    # turn 0 is stuck inside sync_turn (counted: it never finished); turns 1 and 2 were queued behind it
    assert state["status"] == "timed_out" and state["unsynced"] == {"recorder": 3}
    assert state["shutdown_skipped"] == ["recorder"]
    messages = [r.getMessage() for r in caplog.records]
    assert any("recorder" in m and "did not receive 3 turn(s)" in m for m in messages), messages
    release.set()
    time.sleep(0.2)
    assert [e[1] for e in provider.log if e[0] == "sync_turn"] == ["turn 0"]  # the dropped two never ran late

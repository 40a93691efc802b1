"""A dead session blocks nobody; a 500 never poisons the next request."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hermes_memory_honcho.fake_server import FakeHonchoServer, Fault
from honcho.http.exceptions import ServerError

BOTH = pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)


@BOTH
def test_a_session_deleted_on_the_server_blocks_no_other_session(
    make_provider: Any, backend: Any, stored: Any, eventually: Any, caplog: pytest.LogCaptureFixture
) -> None:
    dead = make_provider()
    dead.initialize("dead")
    dead.sync_turn("before", "the delete")
    dead.on_session_end("dead", [])
    assert stored(backend, "dead") == ["before", "the delete"]
    backend.delete_session("dead")  # the server answers 404 for it from now on, for good

    dead.sync_turn("after", "the delete")  # queued ahead of the other session's turns
    alive = make_provider()  # same $HERMES_HOME, same outbox
    alive.initialize("alive")
    alive.sync_turn("hello", "hi")
    alive.on_session_end("alive", [])
    assert eventually(lambda: stored(backend, "alive") == ["hello", "hi"])
    assert eventually(lambda: alive.get_status()["outbox"]["rejected_by_cause"] == {"session": 1})
    assert any("no session dead" in r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)


def test_after_a_500_the_next_request_gets_a_fresh_connection(
    make_provider: Any, server: FakeHonchoServer, stored: Any, eventually: Any
) -> None:
    """The fake resets the next request on a connection that answered a 500, as the real one does."""
    provider = make_provider()
    provider.initialize("fresh")
    provider.sync_turn("q0", "a0")
    provider.on_session_end("fresh", [])
    server.faults.append(Fault(status=500, path="/messages", method="POST", times=1))
    provider.sync_turn("q1", "a1")
    provider.on_session_end("fresh", [])
    assert eventually(lambda: stored(server, "fresh") == ["q0", "a0", "q1", "a1"])
    assert server.resets == 0 and provider.link.transport.renewals >= 1
    assert provider.get_status()["error_kind"] in ("", "server")  # never "unreachable"


@pytest.mark.parametrize("backend", ["real"], indirect=True)
def test_real_server_500_does_not_reset_the_next_request(make_provider: Any, backend: Any) -> None:
    """A metadata filter holding NUL makes the real server fail (500); right after it, on the
    same client, requests must still go through (the server resets a reused connection)."""
    provider = make_provider()
    provider.initialize("reset")
    provider.sync_turn("q", "a")
    provider.on_session_end("reset", [])
    for _ in range(6):
        with pytest.raises(ServerError):
            provider.link.landed_parts("reset", "bad\x00key")
        provider.link.ping()  # raises a connection error if it reused the poisoned connection
        assert provider.link.landed_parts("reset", (provider.outbox.pending(1) and "x") or "none") == set()

"""Honcho down, slow, wrong or missing: the turn goes on, nothing queued is lost or doubled."""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hermes_memory_honcho.fake_server import FakeHonchoServer, Fault

BOTH = pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)


def expected(turns: range) -> list[str]:
    return [text for i in turns for text in (f"user {i}", f"assistant {i}")]


def sync(provider: Any, turns: range, budget: float = 0.25) -> None:
    for i in turns:
        started = time.perf_counter()
        provider.sync_turn(f"user {i}", f"assistant {i}")
        assert time.perf_counter() - started < budget, "sync_turn waited on the network"


@BOTH
def test_stop_and_restart_mid_session_delivers_every_turn_once_in_order(
    make_provider: Any, backend: Any, stored: Any, eventually: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="hermes_memory_honcho")
    provider = make_provider()
    provider.initialize("outage")
    sync(provider, range(0, 10))
    assert eventually(lambda: len(stored(backend, "outage")) == 20)

    backend.stop()
    sync(provider, range(10, 20))
    assert eventually(lambda: provider.get_status()["state"] == "degraded")
    status = provider.get_status()
    assert status["error_kind"] == "unreachable" and status["outbox"]["pending"] >= 1
    assert "queued" in status["summary"]
    assert status["connection"] == "unreachable" and status["summary"].startswith("honcho: unreachable")
    started = time.perf_counter()
    provider.prefetch("still answering?")  # serves the cache, does not wait for a dead server
    assert time.perf_counter() - started < 0.5
    provider.shutdown()  # the agent exits during the outage too: its turns wait on disk

    again = make_provider()
    again.initialize("outage")
    sync(again, range(20, 25))
    backend.start()
    sync(again, range(25, 30))
    assert eventually(lambda: len(stored(backend, "outage")) >= 60)
    again.on_session_end("outage", [])
    assert stored(backend, "outage") == expected(range(30))
    assert again.get_status()["state"] == "ok" and again.get_status()["outbox"]["pending"] == 0
    degraded = [r for r in caplog.records if "degraded" in r.getMessage()]
    recovered = [r for r in caplog.records if "reachable again" in r.getMessage()]
    assert all(r.levelno == logging.WARNING for r in degraded)
    # one line per provider that saw the outage (the second may connect only after it), not one per request
    assert 1 <= len(degraded) <= 2 and len(recovered) == len(degraded) - 1


def test_turns_queued_before_a_restart_of_the_agent_are_delivered_once(
    make_provider: Any, backend: Any, stored: Any, tmp_path: Path
) -> None:
    backend.stop()
    first = make_provider()
    first.initialize("restart")
    sync(first, range(0, 5))
    first.shutdown()  # Honcho still down: the turns stay in the outbox on disk
    backend.start()
    assert stored(backend, "restart") == []
    second = make_provider()
    second.initialize("restart")
    sync(second, range(5, 8))
    second.on_session_end("restart", [])
    assert stored(backend, "restart") == expected(range(8))


@pytest.mark.parametrize("fault", [
    Fault(status=500, after_commit=True, path="/messages", method="POST", times=1),
    Fault(status=0, after_commit=True, path="/messages", method="POST", times=1),
    Fault(delay=0.8, path="/messages", method="POST", times=1),
], ids=["500-after-commit", "dropped-after-commit", "stored-after-client-timeout"])
def test_ambiguous_failures_are_checked_not_resent(
    make_provider: Any, server: FakeHonchoServer, stored: Any, eventually: Any, fault: Fault
) -> None:
    server.faults.append(fault)
    started = time.monotonic()
    provider = make_provider(timeout=0.5)
    provider.initialize("ambiguous")
    sync(provider, range(0, 3))
    assert eventually(lambda: len(stored(server, "ambiguous")) >= 6)
    sync(provider, range(3, 5))
    provider.on_session_end("ambiguous", [])
    time.sleep(max(0.3, started + 1.2 - time.monotonic()))  # let a would-be duplicate arrive
    assert stored(server, "ambiguous") == expected(range(5))


@BOTH
def test_a_crash_between_send_and_delete_does_not_duplicate(
    make_provider: Any, backend: Any, stored: Any, tmp_path: Path
) -> None:
    from hermes_memory_honcho.outbox import Outbox

    first = make_provider()
    first.initialize("crash")
    first.shutdown()
    box = Outbox(tmp_path / "home" / "honcho" / "outbox.sqlite3")
    # Simulate: the turn was sent and stored, then the process died before deleting it.
    provider = make_provider()
    provider.initialize("crash")
    provider.courier.stop(1)  # freeze delivery so we can stage the crash
    provider.sync_turn("user 0", "assistant 0")
    entry = box.pending()[0]
    provider.link.add_turns("crash", [entry.payload])
    box.mark_sending([entry.id])
    provider.shutdown()
    assert stored(backend, "crash") == expected(range(1))

    survivor = make_provider()
    survivor.initialize("crash")
    survivor.sync_turn("user 1", "assistant 1")
    survivor.on_session_end("crash", [])
    assert stored(backend, "crash") == expected(range(2))


def test_starting_during_an_outage_prefetch_waits_at_most_once(make_provider: Any, server: FakeHonchoServer) -> None:
    server.stop()
    provider = make_provider(first_turn_wait=0.3)
    provider.initialize("cold")
    times = []
    for i in range(5):
        started = time.perf_counter()
        assert provider.prefetch(f"q{i}") == ""
        times.append(time.perf_counter() - started)
    assert max(times) <= 0.5 and sum(times[1:]) < 0.1, times


def test_a_hanging_server_never_blocks_a_turn(
    make_provider: Any, server: FakeHonchoServer, stored: Any, eventually: Any
) -> None:
    server.faults.append(Fault(delay=2.0, times=3))
    provider = make_provider(timeout=0.3, first_turn_wait=0.2)
    provider.initialize("hang")
    started = time.perf_counter()
    assert provider.prefetch("hello") == ""
    sync(provider, range(0, 3))
    assert time.perf_counter() - started < 1.0
    assert eventually(lambda: provider.get_status()["error_kind"] == "timeout", 5)
    provider.on_session_end("hang", [])
    assert eventually(lambda: stored(server, "hang") == expected(range(3)), 10)


def test_wrong_credentials_are_reported_and_nothing_is_lost(
    make_provider: Any, server: FakeHonchoServer, stored: Any, eventually: Any,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    server.api_key = "right-key"
    monkeypatch.setenv("TEST_HONCHO_KEY", "wrong-key")
    provider = make_provider(api_key_env="TEST_HONCHO_KEY")
    provider.initialize("creds")
    sync(provider, range(0, 3))
    assert eventually(lambda: provider.get_status()["error_kind"] == "auth")
    status = provider.get_status()
    assert status["state"] == "degraded" and "credentials" in status["reason"] and "401" in status["reason"]
    assert any("credentials" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    error = json.loads(provider.handle_tool_call("honcho_search", {"query": "anything"}))
    assert "auth" in error["error"] and error["status"] == "degraded"
    provider.shutdown()
    assert stored(server, "creds") == []

    monkeypatch.setenv("TEST_HONCHO_KEY", "right-key")  # the user fixes the key and restarts
    fixed = make_provider(api_key_env="TEST_HONCHO_KEY")
    fixed.initialize("creds")
    fixed.on_session_end("creds", [])
    assert stored(server, "creds") == expected(range(3))


def test_server_errors_are_retried_in_order(make_provider: Any, server: FakeHonchoServer, stored: Any,
                                           eventually: Any) -> None:
    server.faults.append(Fault(status=503, path="/messages", times=3))
    provider = make_provider()
    provider.initialize("5xx")
    sync(provider, range(0, 6))
    assert eventually(lambda: stored(server, "5xx") == expected(range(6)))
    assert eventually(lambda: provider.get_status()["state"] == "ok")


def test_malformed_responses_degrade_and_recover(
    make_provider: Any, server: FakeHonchoServer, stored: Any, eventually: Any
) -> None:
    provider = make_provider()
    provider.initialize("garbage")
    server.faults.append(Fault(malformed=True, path="/messages", times=2))
    server.faults.append(Fault(malformed=True, path="/context", times=1))
    provider.queue_prefetch("q")
    sync(provider, range(0, 2))
    assert eventually(lambda: provider.get_status()["error_kind"] == "malformed")
    assert isinstance(provider.prefetch("q"), str)
    provider.on_session_end("garbage", [])
    assert eventually(lambda: stored(server, "garbage") == expected(range(2)))


def test_a_payload_honcho_rejects_is_kept_aside_and_the_rest_flows(
    make_provider: Any, server: FakeHonchoServer, stored: Any, eventually: Any, caplog: pytest.LogCaptureFixture
) -> None:
    provider = make_provider()
    provider.initialize("reject")
    provider.courier.stop(1)  # queue three turns, then let one courier see them together
    sync(provider, range(0, 3))
    provider.shutdown()
    server.faults.append(Fault(status=422, path="/messages", times=2))  # the batch, then its first entry
    retry = make_provider()
    retry.initialize("reject")
    retry.on_session_end("reject", [])
    assert eventually(lambda: stored(server, "reject") == expected(range(1, 3)))
    status = retry.get_status()
    assert status["outbox"]["rejected"] == 1 and "refused by Honcho and set aside" in status["summary"]
    assert any("refused" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)


def test_sdk_not_installed(make_provider: Any, server: FakeHonchoServer, stored: Any, eventually: Any,
                           monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    for name in [m for m in sys.modules if m == "honcho" or m.startswith("honcho.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "honcho", None)
    provider = make_provider()
    ok, reason = provider.is_available()
    assert not ok and "honcho-ai is not installed" in reason and "pip install honcho-ai" in reason
    provider.initialize("nosdk")
    sync(provider, range(0, 2))
    assert provider.prefetch("q") == ""
    assert eventually(lambda: provider.get_status()["state"] == "unavailable")
    status = provider.get_status()
    assert "not installed" in status["reason"] and status["outbox"]["pending"] == 2 and status["sdk_version"]
    assert "not installed" in json.loads(provider.handle_tool_call("honcho_profile", {}))["error"]
    assert any("not installed" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    provider.shutdown()
    monkeypatch.undo()  # the SDK is back (installed later): the queued turns go out
    later = make_provider()
    later.initialize("nosdk")
    later.on_session_end("nosdk", [])
    assert stored(server, "nosdk") == expected(range(2))


def test_tools_during_an_outage_return_json_errors(make_provider: Any, server: FakeHonchoServer) -> None:
    provider = make_provider()
    provider.initialize("tool-outage")
    server.stop()
    for name, args in [("honcho_search", {"query": "x"}), ("honcho_profile", {}), ("honcho_context", {})]:
        result = json.loads(provider.handle_tool_call(name, args))
        assert "error" in result and name in result["error"]
    queued = json.loads(provider.handle_tool_call("honcho_conclude", {"conclusion": "Likes tea"}))
    assert queued["result"] == "queued"
    server.start()
    provider.on_session_end("tool-outage", [])
    assert [c["content"] for c in server.conclusions] == ["Likes tea"]


def test_an_unusable_outbox_is_reported_and_the_turn_goes_on(
    make_provider: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    provider = make_provider(outbox_path=str(blocker / "outbox.sqlite3"))
    provider.initialize("no-outbox")
    provider.sync_turn("hello", "hi")  # must not raise
    status = provider.get_status()
    assert status["state"] == "unavailable" and "outbox" in status["reason"]
    assert any("cannot be opened" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)
    assert any("not recorded" in r.getMessage() for r in caplog.records)


def test_status_probe_for_doctor(make_provider: Any, server: FakeHonchoServer) -> None:
    server.stop()
    queued = make_provider()
    queued.initialize("doctor")
    sync(queued, range(0, 2))
    queued.shutdown()

    fresh = make_provider()  # never initialised, like the provider doctor builds
    down = fresh.get_status(probe=True)
    assert down["state"] == "degraded" and down["error_kind"] == "unreachable"
    assert down["outbox"]["pending"] == 2 and "2 write(s) queued" in down["summary"]
    server.start()
    up = make_provider().get_status(probe=True)
    assert up["state"] == "ok" and up["outbox"]["pending"] == 2 and up["summary"].startswith("honcho: ok")
    assert json.dumps(up)  # JSON-able for `doctor --json`

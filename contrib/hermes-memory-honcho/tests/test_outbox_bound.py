"""The outbox stays small: delivered entries are compacted away, a long outage is capped
with a warning, and a server that never answers costs a session almost nothing."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest
from hermes_memory_honcho.fake_server import FakeHonchoServer

SHM = Path("/dev/shm")


def fast_dir(tmp_path: Path) -> Path:
    """tmpfs when there is one: 10,000 fsyncs on a virtual disk take ~20 s, on tmpfs ~3 s.
    The sizes and the policy under test do not depend on it."""
    if SHM.is_dir():
        import tempfile

        return Path(tempfile.mkdtemp(dir=SHM, prefix="honcho-outbox-"))
    return tmp_path


@pytest.fixture
def outbox_dir(tmp_path: Path) -> Any:
    import shutil

    path = fast_dir(tmp_path)
    yield path
    if path != tmp_path:
        shutil.rmtree(path, ignore_errors=True)


def test_a_10000_turn_outage_keeps_the_outbox_bounded(
    make_provider: Any, server: FakeHonchoServer, stored: Any, eventually: Any, outbox_dir: Path,
    caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="hermes_memory_honcho")
    server.stop()
    provider = make_provider(outbox_path=str(outbox_dir / "outbox.sqlite3"), outbox_max_pending=2000)
    provider.initialize("long-outage")
    slowest = 0.0
    for i in range(10_000):
        started = time.perf_counter()
        provider.sync_turn(f"user {i} " + "x" * 200, f"assistant {i}")
        slowest = max(slowest, time.perf_counter() - started)
    counts = provider.get_status()["outbox"]
    assert counts["pending"] <= 2000 and counts["pending"] + counts["dropped"] == 10_000
    assert counts["bytes"] < 4 * 2**20, counts
    warnings = [r.getMessage() for r in caplog.records]
    assert len([w for w in warnings if "faster than Honcho takes them" in w]) == 1
    assert len([w for w in warnings if "dropping the oldest queued turns" in w]) == 1
    assert "dropped when the outbox was full" in provider.get_status()["summary"]
    assert slowest < 0.5

    server.start()  # the newest turns arrive, in order
    kept = counts["pending"]
    assert eventually(lambda: len(stored(server, "long-outage")) == 2 * kept, 30)
    got = stored(server, "long-outage")
    assert got[0].startswith(f"user {10_000 - kept} ") and got[-1] == "assistant 9999"
    provider.shutdown()


def test_delivered_entries_are_compacted_away(make_provider: Any, server: FakeHonchoServer, eventually: Any,
                                              outbox_dir: Path) -> None:
    server.stop()  # a backlog of ~6 MB builds up, then drains
    provider = make_provider(outbox_path=str(outbox_dir / "outbox.sqlite3"))
    provider.initialize("compact")
    for i in range(1500):
        provider.sync_turn(f"question {i} " + "q" * 2000, f"answer {i} " + "a" * 2000)
    assert provider.get_status()["outbox"]["bytes"] > 6 * 2**20
    server.start()
    assert eventually(lambda: provider.get_status()["outbox"]["pending"] == 0, 60)
    provider.sync_turn("one more", "turn")
    provider.on_session_end("compact", [])
    assert len(server.messages("compact")) == 3002
    provider.shutdown()
    path = outbox_dir / "outbox.sqlite3"
    size = sum(f.stat().st_size for f in (path, path.with_name(path.name + "-wal")) if f.exists())
    assert size < 2 * 2**20  # 6 MB passed through it


def test_a_server_that_never_answers_costs_a_session_little(make_provider: Any, silent_server: str) -> None:
    provider = make_provider(base_url=silent_server, timeout=5.0, flush_wait=3.0, first_turn_wait=0.5)
    started = time.perf_counter()
    provider.initialize("silent")
    provider.prefetch("hello")  # the first turn may wait first_turn_wait, once
    for i in range(3):
        provider.sync_turn(f"q{i}", f"a{i}")
        provider.prefetch(f"q{i}")
    time.sleep(1.2)
    status = provider.get_status()
    assert status["summary"].startswith("honcho: unreachable") and status["connection"] == "unreachable"
    assert status["outbox"]["pending"] == 3
    provider.on_session_end("silent", [])
    provider.shutdown()
    assert time.perf_counter() - started < 1.2 + 2.5  # not timeout + 3 x flush_wait


def test_doctor_says_unreachable_for_a_silent_server(make_provider: Any, silent_server: str) -> None:
    status = make_provider(base_url=silent_server, timeout=0.5).get_status(probe=True)
    assert status["connection"] == "unreachable" and status["summary"].startswith("honcho: unreachable (timeout")

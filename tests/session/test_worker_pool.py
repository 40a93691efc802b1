"""Many sessions share one bounded worker pool; each (session, provider) queue keeps its order.

Real sessions on real hosts (``make_host``), real threads: the gateway case of many open
sessions with an external provider each, a slow provider driven from many threads at
once, and a provider hung in one session while another session's provider must go on.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import pytest

from hermes_core import MemoryProvider
from hermes_core.guard import shared_pool
from hermes_core.session.session import Session

THREAD_BOUND = 64


def provider_class(name: str, *, sync_delay: float = 0.0, hang: threading.Event | None = None) -> type:
    """An external provider that logs, per session, every background call in the order it ran."""

    class Logged(MemoryProvider):
        log: ClassVar[dict[str, list[tuple[Any, ...]]]] = defaultdict(list)
        overlaps: ClassVar[list[str]] = []

        @property
        def name(self) -> str:
            return name

        def is_available(self) -> tuple[bool, str]:
            return True, ""

        def initialize(self, session_id: str) -> None:
            self.sid, self.busy = session_id, False
            self.log[session_id].append(("initialize",))

        def sync_turn(self, user_content: str, assistant_content: str) -> None:
            if self.busy:  # two pool threads inside one queue at once
                self.overlaps.append(self.sid)
            self.busy = True
            if hang is not None:
                hang.wait(30)
            time.sleep(sync_delay)
            self.log[self.sid].append(("sync_turn", user_content))
            self.busy = False

    return Logged


def turn(session: Session, text: str) -> None:
    session.start_turn(text)
    session.request()
    session.add_response(f"reply to {text}")


def open_session(make_host: Any, provider: type, sid: str) -> Session:
    host = make_host(providers={provider().name: provider}, **{"memory.provider": provider().name})
    return Session(host, session_id=sid)


def test_a_thousand_sessions_stay_under_a_thread_bound_and_in_order(make_host: Any) -> None:
    provider = provider_class("tally")
    sessions = [open_session(make_host, provider, f"s{i}") for i in range(1000)]
    peak = threading.active_count()
    for turn_no in range(2):
        for i, session in enumerate(sessions):
            turn(session, f"s{i} turn {turn_no}")
        peak = max(peak, threading.active_count())
    assert all(s.host.memory.flush_pending(10.0) for s in sessions)
    peak = max(peak, threading.active_count())
    assert peak < THREAD_BOUND, f"{peak} threads for 1,000 sessions"
    assert shared_pool().threads <= shared_pool().size
    for i in range(1000):
        assert provider.log[f"s{i}"] == [("initialize",), ("sync_turn", f"s{i} turn 0"), ("sync_turn", f"s{i} turn 1")]
    assert not provider.overlaps
    for session in sessions:
        session.close()
        assert session.host.memory.shutdown_state["status"] == "drained"


def test_a_slow_provider_keeps_each_sessions_order_under_concurrency(make_host: Any) -> None:
    provider = provider_class("slow", sync_delay=0.002)
    sessions = [open_session(make_host, provider, f"c{i}") for i in range(24)]

    def drive(index: int) -> None:
        for turn_no in range(8):
            turn(sessions[index], f"c{index} turn {turn_no}")

    with ThreadPoolExecutor(max_workers=12) as drivers:
        list(drivers.map(drive, range(len(sessions))))
    assert all(s.host.memory.flush_pending(10.0) for s in sessions)
    assert not provider.overlaps, f"one queue ran on two pool threads at once: {provider.overlaps[:3]}"
    for i in range(len(sessions)):
        synced = [entry[1] for entry in provider.log[f"c{i}"] if entry[0] == "sync_turn"]
        assert synced == [f"c{i} turn {n}" for n in range(8)]
    for session in sessions:
        session.close()


def test_a_hung_provider_in_some_sessions_does_not_stall_another_sessions_provider(make_host: Any) -> None:
    release = threading.Event()
    hung = provider_class("hung", hang=release)
    quick = provider_class("quick")
    pool = shared_pool()
    stuck = [open_session(make_host, hung, f"h{i}") for i in range(pool.size + 4)]  # more hangs than pool threads
    try:
        for i, session in enumerate(stuck):
            turn(session, f"h{i} turn 0")
        time.sleep(0.2)  # the hung calls take every pool thread their owner may have
        other = open_session(make_host, quick, "q0")
        started = time.monotonic()
        turn(other, "q0 turn 0")
        assert other.host.memory.flush_pending(2.0), "the quick provider waited on the hung one"
        assert time.monotonic() - started < 2.0
        assert quick.log["q0"] == [("initialize",), ("sync_turn", "q0 turn 0")]
        assert not any(entry[0] == "sync_turn" for entry in hung.log["h0"])  # still hung, as it should be
    finally:
        release.set()
    assert all(s.host.memory.flush_pending(10.0) for s in stuck)
    other.close()
    for session in stuck:
        session.close()


@pytest.mark.parametrize("size", [1, 3])
def test_the_pool_never_grows_past_its_size(size: int) -> None:
    from hermes_core.guard import OrderedWorker, WorkerPool

    pool = WorkerPool(size=size)
    ran: list[int] = []
    workers = [OrderedWorker(f"w{i}", pool=pool) for i in range(50)]
    for i, worker in enumerate(workers):
        worker.submit(lambda i=i: (time.sleep(0.001), ran.append(i)), "sync_turn")
    assert all(w.wait(lambda kinds: not kinds, 10.0) for w in workers)
    assert sorted(ran) == list(range(50)) and pool.threads <= size

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


def open_session(make_host: Any, provider: type, sid: str, **overrides: Any) -> Session:
    host = make_host(providers={provider().name: provider}, **{"memory.provider": provider().name, **overrides})
    return Session(host, session_id=sid)


def test_a_thousand_sessions_stay_under_a_thread_bound_and_in_order(make_host: Any) -> None:
    gate = threading.Event()  # the provider is held until every session has queued a turn:
    provider = provider_class("tally", hang=gate)  # an unbounded pool would start a thread per queue
    sessions = [open_session(make_host, provider, f"s{i}") for i in range(1000)]
    peak = threading.active_count()
    try:
        for i, session in enumerate(sessions):
            turn(session, f"s{i} turn 0")
            peak = max(peak, threading.active_count())
        assert peak < THREAD_BOUND, f"{peak} threads for 1,000 sessions with turns queued"
    finally:
        gate.set()
    for i, session in enumerate(sessions):
        turn(session, f"s{i} turn 1")
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


@pytest.fixture
def default_pool(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The shared pool put back to its default size after the test."""
    from hermes_core.guard.pool import SIZE_ENV, configure_shared_pool

    monkeypatch.delenv(SIZE_ENV, raising=False)
    yield configure_shared_pool
    monkeypatch.delenv(SIZE_ENV, raising=False)
    configure_shared_pool(None)


def test_the_pool_size_comes_from_config_and_the_environment_overrides_it(
        make_host: Any, default_pool: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_core.guard.pool import SIZE_ENV, default_size

    make_host(**{"hooks.worker_pool_size": 3})
    assert shared_pool().size == 3 and shared_pool().per_owner == 1
    provider = provider_class("small-pool", sync_delay=0.001)
    sessions = [open_session(make_host, provider, f"p{i}", **{"hooks.worker_pool_size": 3}) for i in range(40)]
    assert shared_pool().size == 3  # every host of that config keeps it (the last host built decides)
    for i, session in enumerate(sessions):
        turn(session, f"p{i} turn 0")
    assert all(s.host.memory.flush_pending(10.0) for s in sessions)
    assert shared_pool().threads <= 3
    assert all(provider.log[f"p{i}"][-1] == ("sync_turn", f"p{i} turn 0") for i in range(40))
    monkeypatch.setenv(SIZE_ENV, "5")
    make_host(**{"hooks.worker_pool_size": 3})
    assert shared_pool().size == 5
    monkeypatch.delenv(SIZE_ENV)
    make_host()
    assert shared_pool().size == default_size(None) >= 8
    for session in sessions:
        session.close()


@pytest.mark.parametrize("bad", [0, -2, 1025, "many", 2.5])
def test_an_unusable_pool_size_is_a_config_error_naming_the_key(bad: Any) -> None:
    from hermes_core.config.models import ConfigError, HermesConfig, validate_section

    with pytest.raises(ConfigError) as caught:
        validate_section(HermesConfig, {"hooks": {"worker_pool_size": bad}}, source="config.yaml")
    assert "hooks.worker_pool_size" in str(caught.value)


def test_a_shrunk_pool_lets_its_surplus_threads_go() -> None:
    from hermes_core.guard import OrderedWorker, WorkerPool

    pool = WorkerPool(size=6)
    gate = threading.Event()
    workers = [OrderedWorker(f"g{i}", pool=pool, owner=f"o{i}") for i in range(6)]
    for worker in workers:
        worker.submit(lambda: gate.wait(10), "sync_turn")
    deadline = time.monotonic() + 5
    while pool.threads < 6 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.threads == 6
    pool.resize(2)
    gate.set()
    assert all(w.wait(lambda kinds: not kinds, 10.0) for w in workers)
    deadline = time.monotonic() + 5
    while pool.threads > 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.threads == 2 and pool.per_owner == 1
    ran: list[int] = []
    for i, worker in enumerate(workers):  # the two left still run everything
        worker.submit(lambda i=i: ran.append(i), "sync_turn")
    assert all(w.wait(lambda kinds: not kinds, 10.0) for w in workers) and sorted(ran) == list(range(6))
    with pytest.raises(ValueError, match="at least one thread"):
        pool.resize(0)

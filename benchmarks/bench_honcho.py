"""Benchmark the Honcho provider (real honcho-ai SDK) against the fake /v3 server on
127.0.0.1 and, with ``--url``, against a real Honcho server, side by side.

Method (one provider, ``per-session`` strategy, default timeouts). Against the
in-memory ``FakeHonchoServer`` the numbers are the provider's and the SDK's overhead plus
loopback HTTP; against the real server (``--url``, e.g. the one
``../shared/honcho-server/start`` runs, a fresh workspace per run) they include its
database writes. "Stored" is polled with one cheap list request (``size=1``, its total).

* sync_turn (caller): time of ``sync_turn(user, assistant)`` on the calling thread, i.e.
  the durable outbox append (SQLite WAL, synchronous=FULL, fsync) and a wake-up;
  ``--turns`` calls, median and p95.
* sync_turn -> stored: from the call until the fake server holds both messages, one turn
  at a time; median and p95 over ``--turns // 4`` turns.
* outbox drain (fake only: it needs a server that stops and starts on demand):
  ``--backlog`` turns queued while the server is stopped, then the server starts; time
  until all are stored (batched ``add_messages``, in order), turns/s. Repeated
  ``--runs`` times, median.
* never answers: a 127.0.0.1 socket that accepts and never replies; one session of
  ``--turns // 10`` turns (initialize, prefetch + sync_turn per turn, session end,
  shutdown), wall time, beside the same session against the fake.
* prefetch (cached): ``prefetch()`` after the background fetch finished; median, p95.
* recall fetch: one background fetch (session summaries, then the user's representation
  and card) timed directly; median, p95.

Usage: python benchmarks/bench_honcho.py [--turns 200] [--backlog 500] [--runs 3] [--url URL] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import socket
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any


class Fake:
    """Reads what the fake server stored."""

    def __init__(self, server: Any) -> None:
        self.server, self.url, self.workspace = server, server.url, "hermes"

    def count(self, session: str) -> int:
        return len(self.server.messages(session))


class Real:
    """A real Honcho server: a fresh workspace; stored messages counted with one small request."""

    def __init__(self, url: str) -> None:
        import httpx

        self.url, self.workspace = url.rstrip("/"), "bench" + uuid.uuid4().hex[:10]
        self.http = httpx.Client(base_url=self.url + "/v3", timeout=30)

    def count(self, session: str) -> int:
        r = self.http.post(f"/workspaces/{self.workspace}/sessions/{session}/messages/list",
                           params={"size": 1}, json={})
        return int(r.json()["total"]) if r.status_code == 200 else 0


def quantiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"median_ms": statistics.median(ordered) * 1000, "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1000}


def make(home: Path, url: str, session: str, workspace: str = "hermes") -> Any:
    from hermes_memory_honcho import HonchoMemoryProvider, HonchoSettings

    from hermes_core.plugin.context import PluginContext

    settings = HonchoSettings(base_url=url, workspace=workspace, session_strategy="per-session",
                              retry_initial=0.05, retry_max=0.2)
    provider = HonchoMemoryProvider(PluginContext.default(home=home, settings=settings))
    provider.initialize(session)
    return provider


def wait(predicate: Any, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("benchmark timed out waiting for delivery")
        time.sleep(0.0005)


def bench_sync(target: Any, home: Path, turns: int) -> dict[str, Any]:
    provider = make(home, target.url, "sync", target.workspace)
    provider.prefetch("warm up")  # import the SDK and connect before timing
    calls = []
    for i in range(turns):
        started = time.perf_counter()
        provider.sync_turn(f"user message {i} " * 10, f"assistant answer {i} " * 20)
        calls.append(time.perf_counter() - started)
    wait(lambda: target.count("sync") == 2 * turns)
    e2e = []
    for i in range(turns // 4):
        goal = 2 * (turns + i + 1)
        started = time.perf_counter()
        provider.sync_turn(f"user {i}", f"assistant {i}")
        wait(lambda goal=goal: target.count("sync") >= goal)
        e2e.append(time.perf_counter() - started)
    provider.shutdown()
    return {"sync_turn_caller": quantiles(calls), "sync_turn_to_stored": quantiles(e2e)}


def bench_drain(server: Any, home: Path, backlog: int, runs: int) -> dict[str, Any]:
    rates = []
    for run in range(runs):
        session = f"drain-{run}"
        server.stop()
        provider = make(home, server.url, session)
        for i in range(backlog):
            provider.sync_turn(f"queued user {i}", f"queued assistant {i}")
        server.start()
        started = time.perf_counter()
        provider.courier.flush(0)  # skip the remaining backoff: measure delivery, not waiting
        wait(lambda session=session: len(server.messages(session)) == 2 * backlog)
        rates.append(backlog / (time.perf_counter() - started))
        contents = [m["content"] for m in server.messages(session)]
        assert contents[0] == "queued user 0" and contents[-1] == f"queued assistant {backlog - 1}"
        provider.shutdown()
    return {"outbox_drain_turns_per_s": statistics.median(rates), "backlog": backlog, "runs": runs}


def bench_recall(target: Any, home: Path, samples: int) -> dict[str, Any]:
    if isinstance(target, Fake):
        target.server.summaries["recall"] = "We are migrating billing to Postgres. " * 5
        target.server.representations["user"] = "Ana, backend engineer, prefers short answers. " * 5
    provider = make(home, target.url, "recall", target.workspace)
    provider.sync_turn("We are migrating billing to Postgres.", "Noted.")
    provider.on_session_end("recall", [])
    provider.prefetch("first")
    wait(lambda: provider.recall.fetched_at is not None)
    cached = []
    for i in range(samples):
        started = time.perf_counter()
        text = provider.prefetch(f"question {i}")
        cached.append(time.perf_counter() - started)
    assert "billing" in text or not isinstance(target, Fake)
    fetch = []
    for i in range(samples // 4):
        started = time.perf_counter()
        provider.link.recall("recall", "user", "hermes", f"question {i}")
        fetch.append(time.perf_counter() - started)
    provider.shutdown()
    return {"prefetch_cached": quantiles(cached), "recall_fetch": quantiles(fetch)}


def one_session(url: str, home: Path, turns: int) -> float:
    """Wall time of a short session: initialize, prefetch + sync_turn per turn, end, shutdown."""
    started = time.perf_counter()
    provider = make(home, url, f"silent-{uuid.uuid4().hex[:6]}")
    for i in range(turns):
        provider.prefetch(f"question {i}")
        provider.sync_turn(f"user {i}", f"assistant {i}")
        provider.queue_prefetch(f"question {i}")
    provider.on_session_end("silent", [])
    provider.shutdown()
    return time.perf_counter() - started


def bench_never_answers(server: Any, home: Path, turns: int, runs: int) -> dict[str, Any]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    threading.Thread(target=lambda: [held.append(listener.accept()[0]) for _ in iter(int, 1)], daemon=True).start()
    silent = f"http://127.0.0.1:{listener.getsockname()[1]}"
    one_session(server.url, home / "warm", 2)  # import the SDK once, as a running agent has
    answering = [one_session(server.url, home / f"a{i}", turns) for i in range(runs)]
    never = [one_session(silent, home / f"n{i}", turns) for i in range(runs)]
    return {"session_answering_s": statistics.median(answering), "session_never_answers_s": statistics.median(never),
            "session_turns": turns}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--backlog", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--url", help="also measure against this real Honcho server (e.g. http://127.0.0.1:8765)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    from hermes_memory_honcho.fake_server import FakeHonchoServer

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, FakeHonchoServer() as server:
        home = Path(tmp)
        fake = Fake(server)
        results["fake"] = {**bench_sync(fake, home / "fake", args.turns),
                           **bench_drain(server, home / "drain", args.backlog, args.runs),
                           **bench_recall(fake, home / "fake", args.turns),
                           **bench_never_answers(server, home / "silent", max(2, args.turns // 10), args.runs)}
        if args.url:
            real = Real(args.url)
            results["real"] = {**bench_sync(real, home / "real", args.turns),
                               **bench_recall(real, home / "real", args.turns)}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    names = list(results)
    print(f"{'measure':<22}" + "".join(f" {n + ' median':>14} {n + ' p95':>11}" for n in names))
    for key in ("sync_turn_caller", "sync_turn_to_stored", "prefetch_cached", "recall_fetch"):
        print(f"{key:<22}" + "".join(f" {results[n][key]['median_ms']:>12.3f}ms {results[n][key]['p95_ms']:>9.3f}ms"
                                     for n in names))
    fake_r = results["fake"]
    print(f"outbox drain (fake)    {fake_r['outbox_drain_turns_per_s']:.0f} turns/s "
          f"(backlog {args.backlog}, median of {args.runs})")
    print(f"one {fake_r['session_turns']}-turn session: {fake_r['session_answering_s']:.2f}s answering, "
          f"{fake_r['session_never_answers_s']:.2f}s against a server that never answers (median of {args.runs})")


if __name__ == "__main__":
    main()

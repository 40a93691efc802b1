"""Benchmark the Honcho provider against the fake /v3 server on 127.0.0.1 (real honcho-ai SDK).

Method (one provider, ``per-session`` strategy, default timeouts; the server is the
in-memory ``FakeHonchoServer`` from the plugin, so these numbers are the provider's and
the SDK's overhead plus loopback HTTP, not a real Honcho deployment's):

* sync_turn (caller): time of ``sync_turn(user, assistant)`` on the calling thread, i.e.
  the durable outbox append (SQLite WAL, synchronous=FULL, fsync) and a wake-up;
  ``--turns`` calls, median and p95.
* sync_turn -> stored: from the call until the fake server holds both messages, one turn
  at a time; median and p95 over ``--turns // 4`` turns.
* outbox drain: ``--backlog`` turns queued while the server is stopped, then the server
  starts; time until all are stored (batched ``add_messages``, in order), turns/s.
  Repeated ``--runs`` times, median.
* prefetch (cached): ``prefetch()`` after the background fetch finished; median, p95.
* recall fetch: one background fetch (``session.context`` with summary, representation,
  card) timed directly; median, p95.

Usage: python benchmarks/bench_honcho.py [--turns 200] [--backlog 500] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


def quantiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"median_ms": statistics.median(ordered) * 1000, "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1000}


def make(home: Path, url: str, session: str) -> Any:
    from hermes_memory_honcho import HonchoMemoryProvider, HonchoSettings

    from hermes_core.plugin.context import PluginContext

    settings = HonchoSettings(base_url=url, session_strategy="per-session", retry_initial=0.05, retry_max=0.2)
    provider = HonchoMemoryProvider(PluginContext.default(home=home, settings=settings))
    provider.initialize(session)
    return provider


def wait(predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("benchmark timed out waiting for delivery")
        time.sleep(0.0005)


def bench_sync(server: Any, home: Path, turns: int) -> dict[str, Any]:
    provider = make(home, server.url, "sync")
    provider.prefetch("warm up")  # import the SDK and connect before timing
    calls = []
    for i in range(turns):
        started = time.perf_counter()
        provider.sync_turn(f"user message {i} " * 10, f"assistant answer {i} " * 20)
        calls.append(time.perf_counter() - started)
    wait(lambda: len(server.messages("sync")) == 2 * turns)
    e2e = []
    for i in range(turns // 4):
        target = 2 * (turns + i + 1)
        started = time.perf_counter()
        provider.sync_turn(f"user {i}", f"assistant {i}")
        wait(lambda target=target: len(server.messages("sync")) >= target)
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


def bench_recall(server: Any, home: Path, samples: int) -> dict[str, Any]:
    server.summaries["recall"] = "We are migrating billing to Postgres. " * 5
    server.representations["user"] = "Ana, backend engineer, prefers short answers. " * 5
    provider = make(home, server.url, "recall")
    provider.prefetch("first")
    cached = []
    for i in range(samples):
        started = time.perf_counter()
        text = provider.prefetch(f"question {i}")
        cached.append(time.perf_counter() - started)
    assert "billing" in text
    fetch = []
    for i in range(samples // 4):
        started = time.perf_counter()
        provider.link.recall("recall", "user", "hermes", f"question {i}")
        fetch.append(time.perf_counter() - started)
    provider.shutdown()
    return {"prefetch_cached": quantiles(cached), "recall_fetch": quantiles(fetch)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--backlog", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    from hermes_memory_honcho.fake_server import FakeHonchoServer

    with tempfile.TemporaryDirectory() as tmp, FakeHonchoServer() as server:
        home = Path(tmp)
        results = {**bench_sync(server, home, args.turns), **bench_drain(server, home, args.backlog, args.runs),
                   **bench_recall(server, home, args.turns)}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'measure':<28} {'median':>12} {'p95':>12}")
    for key in ("sync_turn_caller", "sync_turn_to_stored", "prefetch_cached", "recall_fetch"):
        print(f"{key:<28} {results[key]['median_ms']:>10.3f}ms {results[key]['p95_ms']:>10.3f}ms")
    print(f"{'outbox drain':<28} {results['outbox_drain_turns_per_s']:>8.0f} turns/s "
          f"(backlog {args.backlog}, median of {args.runs})")


if __name__ == "__main__":
    main()

"""Benchmarks for the LCM engine: ingest, lcm_grep over 100k messages, open, compaction.

    python contrib/hermes-context-lcm/benchmarks/bench_lcm.py [--messages 100000] [--json]

Messages are the real corpus transcripts, repeated (one session per copy) until the store
holds ``--messages``. Ingest is measured a turn at a time (the messages a runtime adds
between two model calls, one transaction each). Grep goes through the tool entry point
(argument validation, FTS query, row fetch, snippets, JSON). Compaction uses a summarizer
that answers instantly, so the figures are the engine's own work, not the model's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.store import SQLiteStore

from hermes_core.apps.transcripts import load_transcript
from hermes_core.config.models import HermesConfig
from hermes_core.engine.summarizer import SummaryRequest, SummaryResult
from hermes_core.plugin.context import PluginContext

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "transcripts"
COMMON = ["the", "error", "def", "test", "file", "return"]
PHRASES = ['"mix test"', '"def test"', "import AND json"]


class InstantSummarizer:
    """No model: a fixed short answer, so compaction timings exclude the model."""

    name = "instant"

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        return SummaryResult(text=f"Summary of {len(request.turns)} messages.", source="llm")


def corpus() -> list[list[dict[str, Any]]]:
    """The real transcripts: ``$HERMES_CORPUS``, else ``shared/corpus`` beside the repository."""
    from hermes_core.testing.engine_conformance import corpus_dir

    directory = corpus_dir(Path(__file__).resolve()) or CORPUS
    files = sorted(directory.glob("*.json"))
    if not files:
        raise SystemExit(f"transcript corpus not found at {directory}; set HERMES_CORPUS to a directory of transcripts")
    return [load_transcript(p).messages for p in files]


def turns_of(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """What a runtime stores per model call: everything since the previous call."""
    turns: list[list[dict[str, Any]]] = [[]]
    for msg in messages:
        if msg.get("role") == "assistant" and turns[-1]:
            turns.append([])
        turns[-1].append(msg)
    return [t for t in turns if t]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def engine_for(home: Path, context_length: int = 128_000, summarizer: Any = None) -> LCMEngine:
    config = HermesConfig.model_validate({"model": {"context_length": context_length}})
    return LCMEngine(PluginContext(home=home, config=config, summarizer=summarizer or InstantSummarizer()))


def bench_ingest(transcripts: list[list[dict[str, Any]]], work: Path, repeats: int = 5) -> dict[str, Any]:
    turns = [t for msgs in transcripts for t in turns_of(msgs)]
    count = sum(len(t) for t in turns)
    rates, cpu_rates = [], []
    for r in range(repeats):
        store = SQLiteStore(work / f"ingest-{r}.db")
        started, cpu = time.perf_counter(), time.process_time()
        for i, turn in enumerate(turns):
            store.append(f"s{i // 200}", turn)
        rates.append(count / (time.perf_counter() - started))
        cpu_rates.append(count / max(1e-9, time.process_time() - cpu))
        store.close()
    return {"messages": count, "turns": len(turns), "messages_per_turn": round(count / len(turns), 2),
            "rate_median": round(statistics.median(rates)), "rates": [round(x) for x in rates],
            "cpu_rate_median": round(statistics.median(cpu_rates))}


def bench_engine_ingest(transcripts: list[list[dict[str, Any]]], work: Path, repeats: int = 3) -> dict[str, Any]:
    """The same turns through the engine's API: ``should_compress_preflight`` per model call,
    one session per transcript in one store, the live list growing (window large enough that
    nothing compacts), pending index rows flushed at the end and counted."""
    rates = []
    for r in range(repeats):
        engine = engine_for(work / f"engine-ingest-{r}", context_length=10_000_000)
        engine.store.stats(None)  # open the file outside the timed part
        count = 0
        started = time.perf_counter()
        for n, msgs in enumerate(transcripts):
            engine.on_session_start(f"t{n}")
            live: list[dict[str, Any]] = []
            for turn in turns_of(msgs):
                live.extend(turn)
                engine.should_compress_preflight(live)
            count += len(msgs)
        engine.store.flush_index()
        rates.append(count / (time.perf_counter() - started))
        engine.store.close()
    return {"messages": count, "rate_median": round(statistics.median(rates)), "rates": [round(x) for x in rates]}


def build_store(transcripts: list[list[dict[str, Any]]], home: Path, target: int) -> tuple[int, float]:
    store = SQLiteStore(home / "lcm.db")
    total, copy = 0, 0
    started = time.perf_counter()
    while total < target:
        for n, msgs in enumerate(transcripts):
            take = msgs[: target - total]
            for turn in turns_of(take):
                store.append(f"copy{copy}-t{n}", turn)
            total += len(take)
            if total >= target:
                break
        copy += 1
    store.flush_index()
    store.close()
    return total, time.perf_counter() - started


def rare_words(transcripts: list[list[dict[str, Any]]], n: int = 6) -> list[str]:
    """Words that occur in exactly one corpus message (so in one message per copy)."""
    import re

    seen: dict[str, int] = {}
    for msgs in transcripts:
        for msg in msgs:
            for word in set(re.findall(r"[A-Za-z]{7,}", str(msg.get("content") or ""))):
                seen[word] = seen.get(word, 0) + 1
    return sorted(w for w, c in seen.items() if c == 1)[:: max(1, len([1 for c in seen.values() if c == 1]) // n)][:n]


def bench_grep(home: Path, words: dict[str, list[str]], calls: int) -> dict[str, Any]:
    engine = engine_for(home)
    engine.on_session_start("copy3-t3")  # a session in the store, so scope=session is real
    out: dict[str, Any] = {}
    for label, patterns in words.items():
        for scope in ("all", "session"):
            times = []
            counts = []
            for i in range(calls):
                args = {"pattern": patterns[i % len(patterns)], "scope": scope, "limit": 10}
                started = time.perf_counter()
                result = engine.handle_tool_call("lcm_grep", args)
                times.append((time.perf_counter() - started) * 1000)
                counts.append(json.loads(result or "{}").get("count", 0))
            out[f"{label}/{scope}"] = {"median_ms": round(statistics.median(times), 3),
                                       "p95_ms": round(pct(times, 0.95), 3), "max_ms": round(max(times), 3),
                                       "mean_hits": round(statistics.mean(counts), 1)}
    engine.store.close()
    return out


def bench_mixed(transcripts: list[list[dict[str, Any]]], home: Path, calls: int) -> dict[str, Any]:
    """Greps interleaved with ingest, so some include indexing the rows still pending."""
    engine = engine_for(home)
    engine.on_session_start("mixed")
    turns = [t for msgs in transcripts for t in turns_of(msgs)]
    times = []
    for i in range(calls * 5):
        engine.store.append("mixed", turns[i % len(turns)])
        if i % 5 == 4:
            started = time.perf_counter()
            engine.handle_tool_call("lcm_grep", {"pattern": COMMON[i % len(COMMON)], "limit": 10})
            times.append((time.perf_counter() - started) * 1000)
    engine.store.close()
    return {"median_ms": round(statistics.median(times), 3), "p95_ms": round(pct(times, 0.95), 3),
            "max_ms": round(max(times), 3)}


def bench_open(home: Path, opens: int = 30) -> dict[str, Any]:
    times = []
    for _ in range(opens):
        started = time.perf_counter()
        engine = engine_for(home)
        engine.store.stats(None)  # the first real query
        times.append((time.perf_counter() - started) * 1000)
        engine.store.close()
    return {"median_ms": round(statistics.median(times), 3), "p95_ms": round(pct(times, 0.95), 3)}


def bench_compaction(transcripts: list[list[dict[str, Any]]], work: Path, context_length: int) -> dict[str, Any]:
    times: list[float] = []
    sizes: list[int] = []
    for n, msgs in enumerate(transcripts):
        engine = engine_for(work / f"compact-{context_length}-{n}", context_length)
        engine.on_session_start(f"t{n}")
        live: list[dict[str, Any]] = []
        for i, msg in enumerate(msgs):
            live.append(msg)
            if i + 1 < len(msgs) and msgs[i + 1].get("role") == "tool":
                continue
            if engine.should_compress_preflight(live):
                started = time.perf_counter()
                out = engine.compress(live)
                times.append((time.perf_counter() - started) * 1000)
                sizes.append(len(live))
                live = out
        engine.store.close()
    return {"compactions": len(times), "median_ms": round(statistics.median(times), 3),
            "p95_ms": round(pct(times, 0.95), 3), "max_ms": round(max(times), 3),
            "median_messages_in": statistics.median(sizes)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000, help="store size for grep/open (default 100000)")
    parser.add_argument("--calls", type=int, default=200, help="grep calls per query class and scope")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args()
    transcripts = corpus()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        results["ingest"] = bench_ingest(transcripts, work)
        results["ingest_engine"] = bench_engine_ingest(transcripts, work)
        home = work / "big"
        home.mkdir()
        total, build_s = build_store(transcripts, home, args.messages)
        results["store"] = {"messages": total, "build_s": round(build_s, 2),
                            "db_mb": round((home / "lcm.db").stat().st_size / 1e6, 1)}
        rare = rare_words(transcripts)
        results["grep"] = bench_grep(home, {"common": COMMON, "rare": rare, "phrase": PHRASES}, args.calls)
        results["grep_words"] = {"common": COMMON, "rare": rare, "phrase": PHRASES}
        results["grep_mixed"] = bench_mixed(transcripts, home, args.calls)
        results["open"] = bench_open(home)
        results["compaction"] = {f"{n // 1000}k": bench_compaction(transcripts, work, n) for n in (16_000, 64_000)}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    ing = results["ingest"]
    print(f"ingest  {ing['messages']} corpus messages in {ing['turns']} turns ({ing['messages_per_turn']}/turn): "
          f"median {ing['rate_median']:,} messages/s wall, {ing['cpu_rate_median']:,}/s of CPU time"
          f"  (runs {ing['rates']})")
    print(f"ingest  through LCMEngine.should_compress_preflight, a call per turn: "
          f"median {results['ingest_engine']['rate_median']:,} messages/s  (runs {results['ingest_engine']['rates']})")
    st = results["store"]
    print(f"store   {st['messages']:,} messages, {st['db_mb']} MB, built in {st['build_s']} s")
    print(f"open    median {results['open']['median_ms']} ms, p95 {results['open']['p95_ms']} ms")
    print(f"\n{'lcm_grep':<18}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}{'hits':>7}")
    for label, row in results["grep"].items():
        print(f"{label:<18}{row['median_ms']:>11}{row['p95_ms']:>9}{row['max_ms']:>9}{row['mean_hits']:>7}")
    mixed = results["grep_mixed"]
    print(f"{'mixed (ingest)':<18}{mixed['median_ms']:>11}{mixed['p95_ms']:>9}{mixed['max_ms']:>9}")
    print(f"\n{'compaction':<12}{'count':>7}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}{'msgs in':>9}")
    for label, row in results["compaction"].items():
        print(f"{label:<12}{row['compactions']:>7}{row['median_ms']:>11}{row['p95_ms']:>9}{row['max_ms']:>9}"
              f"{row['median_messages_in']:>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

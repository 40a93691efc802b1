"""Benchmarks for the LCM engine: ingest, lcm_grep over 100k messages, open, compaction.

    python contrib/hermes-context-lcm/benchmarks/bench_lcm.py [--messages 100000] [--json]

Runs without pytest, and against older versions of the package too (to compare side by
side: run it once with ``PYTHONPATH`` pointing at the older checkout, once without).

Messages are the real corpus transcripts, repeated (one session per copy) until the store
holds ``--messages``. Ingest is measured a turn at a time (the messages a runtime adds
between two model calls, one transaction each). Grep goes through the tool entry point
(argument validation, FTS query, row fetch, snippets, JSON). Compaction uses a summarizer
that answers instantly, so the figures are the engine's own work, not the model's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.store import SQLiteStore

try:
    from hermes_core.apps.transcripts import load_transcript
    from hermes_core.config.models import HermesConfig
    from hermes_core.engine.summarizer import SummaryRequest, SummaryResult
    from hermes_core.plugin.context import PluginContext
except ImportError:  # the layout before the plugin-contract redesign
    from hermes_core.plugin_context import PluginContext  # type: ignore[no-redef]
    from hermes_core.summarize import SummaryRequest, SummaryResult  # type: ignore[no-redef]
    from hermes_core.transcripts import load_transcript  # type: ignore[no-redef]

    from hermes_core.config import HermesConfig  # type: ignore[no-redef]

COMMON = ["the", "error", "def", "test", "file", "return"]
PHRASES = ['"mix test"', '"def test"', "import AND json"]
#: One probe message per store copy holds a sample of each class a word index used to miss.
PROBE = ("timer note: 请把番茄钟的计时器改成二十五分钟. DB: データベースの接続に失敗しました. "
         "KR: 데이터베이스를 다시 시작했습니다. call getUserNameFromDb() with max_retry_count, "
         "upgrade to v1.2.3 \U0001f680 done")
CLASSES = {"cjk": ["计时器", "番茄"], "japanese": ["接続"], "korean": ["데이터베이스"], "camel_part": ["UserName"],
           "snake_part": ["retry"], "version": ["1.2.3"], "emoji": ["\U0001f680"], "tool_args": ["Backoff"]}
PROBE_CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "probe", "type": "function", "function": {
    "name": "read_file", "arguments": '{"path": "conf.yaml", "key": "retryBackoffMillis"}'}}]}
BIG_SESSION = "big-session"
SESSION = "copy10-t3"  # an ordinary session of the 100k store, for scope=session


class InstantSummarizer:
    """No model: a fixed short answer, so compaction timings exclude the model."""

    name = "instant"

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        return SummaryResult(text=f"Summary of {len(request.turns)} messages.", source="llm")


def corpus_dir() -> Path:
    """``$HERMES_CORPUS``, else ``shared/corpus/transcripts`` found walking up from here or the cwd."""
    env = os.environ.get("HERMES_CORPUS")
    if env:
        return Path(env)
    for root in (Path.cwd(), Path(__file__).resolve()):
        for parent in [root, *root.parents]:
            if (parent / "shared" / "corpus" / "transcripts").is_dir():
                return parent / "shared" / "corpus" / "transcripts"
    return Path("shared/corpus/transcripts")


def corpus() -> list[list[dict[str, Any]]]:
    """The real transcripts."""
    directory = corpus_dir()
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


def build_store(transcripts: list[list[dict[str, Any]]], home: Path, target: int,
                big_session: int = 20_000) -> tuple[int, float]:
    """``target`` messages: the first ``big_session`` in one session (rare words in a large
    session), then one session per transcript copy; each copy also gets the class probe."""
    store = SQLiteStore(home / "lcm.db")
    total, copy = 0, 0
    started = time.perf_counter()
    while total < target:
        for n, msgs in enumerate(transcripts):
            take = msgs[: target - total]
            session = BIG_SESSION if total < big_session else f"copy{copy}-t{n}"
            for turn in turns_of(take):
                store.append(session, turn)
            total += len(take)
            if total >= target:
                break
        store.append(f"probe{copy}", [{"role": "user", "content": f"{PROBE} copy {copy}"}, PROBE_CALL])
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


def _grep(engine: LCMEngine, args: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    result = engine.handle_tool_call("lcm_grep", args)
    return (time.perf_counter() - started) * 1000, json.loads(result or "{}")


def bench_grep(home: Path, words: dict[str, list[str]], calls: int) -> dict[str, Any]:
    engine = engine_for(home)
    engine.on_session_start(SESSION)  # a session in the store, so scope=session is real
    out: dict[str, Any] = {}
    for label, patterns in words.items():
        for scope in ("all", "session"):
            times, counts, errors = [], [], 0
            for i in range(calls):
                ms, result = _grep(engine, {"pattern": patterns[i % len(patterns)], "scope": scope, "limit": 10})
                times.append(ms)
                counts.append(result.get("count", 0))
                errors += "error" in result
            out[f"{label}/{scope}"] = {"median_ms": round(statistics.median(times), 3),
                                       "p95_ms": round(pct(times, 0.95), 3), "max_ms": round(max(times), 3),
                                       "mean_hits": round(statistics.mean(counts), 1), "errors": errors}
    engine.close()
    return out


def _store_search(engine: LCMEngine, pattern: str, session: str) -> Any:
    """The store's search alone (no rows fetched, no snippets), in this version's API."""
    from hermes_context_lcm import tools

    if hasattr(tools, "fts_expression"):  # the API before parsed queries
        from hermes_context_lcm.store import session_token

        expr, _ = tools.fts_expression(pattern)
        return lambda: engine.store.search_messages(f"body : ({expr}) AND meta : {session_token(session)}", 11, 0)
    from hermes_context_lcm.query import parse_query

    query = parse_query(pattern)
    return lambda: engine.store.search_messages(query, session_id=session, limit=11)


def bench_rare_in_big_session(home: Path, rare: list[str], calls: int) -> dict[str, Any]:
    """Rare words, searched within the one large session (where they occur): the whole tool
    call, and the store's search alone."""
    engine = engine_for(home)
    engine.on_session_start(BIG_SESSION)
    times, counts, search_times = [], [], []
    for i in range(calls):
        ms, result = _grep(engine, {"pattern": rare[i % len(rare)], "scope": "session", "limit": 10})
        times.append(ms)
        counts.append(result.get("count", 0))
        search = _store_search(engine, rare[i % len(rare)], BIG_SESSION)
        started = time.perf_counter()
        search()
        search_times.append((time.perf_counter() - started) * 1000)
    size = engine.store.session_size(BIG_SESSION)
    engine.close()
    return {"session_messages": size, "median_ms": round(statistics.median(times), 3),
            "p95_ms": round(pct(times, 0.95), 3), "mean_hits": round(statistics.mean(counts), 1),
            "search_median_ms": round(statistics.median(search_times), 3),
            "search_p95_ms": round(pct(search_times, 0.95), 3)}


def bench_regex_all(home: Path, pattern: str) -> dict[str, Any]:
    """A regex over the whole store, paged with the cursor until the store is exhausted."""
    engine = engine_for(home)
    engine.on_session_start("regex-bench")
    cursor, calls, hits, scanned = 0, 0, 0, 0
    started = time.perf_counter()
    while calls < 10_000:
        _, result = _grep(engine, {"pattern": pattern, "mode": "regex", "scope": "all", "target": "messages",
                                   "limit": 50, "cursor": cursor})
        calls += 1
        hits += result.get("count", 0)
        scanned += result.get("scanned", 0)
        if not result.get("next_cursor"):
            break
        cursor = result["next_cursor"]
    seconds = time.perf_counter() - started
    engine.close()
    return {"pattern": pattern, "seconds": round(seconds, 2), "calls": calls, "hits": hits, "scanned": scanned}


class CountingSummarizer(InstantSummarizer):
    def __init__(self) -> None:
        self.calls = 0

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.calls += 1
        return super().summarize(request)


def bench_compaction_calls(transcripts: list[list[dict[str, Any]]], work: Path, context_length: int) -> dict[str, Any]:
    """Every transcript driven at one window: summarizer calls per compaction and per 1,000
    messages, and the deepest summary (``max_depth`` is 4)."""
    per_compaction: list[int] = []
    messages, depth = 0, 0
    for n, msgs in enumerate(transcripts):
        summarizer = CountingSummarizer()
        engine = engine_for(work / f"calls-{context_length}-{n}", context_length, summarizer)
        engine.on_session_start(f"t{n}")
        per_compaction += drive(engine, msgs, summarizer)
        messages += len(msgs)
        depth = max([depth, *(s.depth for s in engine.store.all_summaries(f"t{n}"))])
        engine.close()
    return {"compactions": len(per_compaction), "calls": sum(per_compaction),
            "calls_per_1000_messages": round(1000 * sum(per_compaction) / max(1, messages), 1),
            "median_calls_per_compaction": statistics.median(per_compaction) if per_compaction else 0,
            "max_calls_per_compaction": max(per_compaction, default=0), "max_depth_seen": depth}


def messages_of(result: Any) -> list[dict[str, Any]]:
    """What ``compress`` returned, as a message list (older versions returned the list itself)."""
    return getattr(result, "messages", result)  # type: ignore[no-any-return]


def drive(engine: Any, msgs: list[dict[str, Any]], summarizer: Any) -> list[int]:
    """Feed ``msgs`` to ``engine`` as a host would (never between a call and its results),
    compacting when preflight says so; the summarizer calls each compaction made."""
    live: list[dict[str, Any]] = []
    per_compaction: list[int] = []
    for i, msg in enumerate(msgs):
        live.append(msg)
        if i + 1 < len(msgs) and msgs[i + 1].get("role") == "tool":
            continue
        if engine.should_compress_preflight(live):
            before = summarizer.calls
            live = messages_of(engine.compress(live))
            per_compaction.append(summarizer.calls - before)
    return per_compaction


def bench_long_session(transcripts: list[list[dict[str, Any]]], work: Path) -> dict[str, Any]:
    """Every transcript one after another in ONE session at a 16k window (the deepest tree),
    and one forced compaction of a 992-message list (what ``hermes-core compact FILE`` does)."""
    msgs = [m for t in transcripts for m in t if m.get("role") != "system"]
    summarizer = CountingSummarizer()
    engine = engine_for(work / "long-session", 16_000, summarizer)
    engine.on_session_start("long")
    per_compaction = drive(engine, msgs, summarizer)
    depth = max((s.depth for s in engine.store.all_summaries("long")), default=0)
    engine.close()
    forced = CountingSummarizer()
    engine = engine_for(work / "forced", 16_000, forced)
    engine.on_session_start("forced")
    cut = next(i for i in range(992, len(msgs)) if msgs[i].get("role") == "user")
    engine.compress(msgs[:cut], force=True)
    engine.close()
    return {"messages": len(msgs), "compactions": len(per_compaction),
            "calls_per_1000_messages": round(1000 * sum(per_compaction) / len(msgs), 1),
            "max_calls_per_compaction": max(per_compaction, default=0), "max_depth_seen": depth,
            "forced_messages": cut, "forced_calls": forced.calls}


def bench_durability(transcripts: list[list[dict[str, Any]]], work: Path) -> dict[str, Any]:
    """Ingest a turn at a time with each durability setting (newer versions only)."""
    import inspect

    if "durability" not in inspect.signature(SQLiteStore).parameters:
        return {}
    turns = [t for msgs in transcripts for t in turns_of(msgs)]
    count = sum(len(t) for t in turns)
    out = {}
    for mode in ("normal", "full"):
        rates = []
        for r in range(3):
            store = SQLiteStore(work / f"durability-{mode}-{r}.db", durability=mode)  # type: ignore[call-arg]
            started = time.perf_counter()
            for i, turn in enumerate(turns):
                store.append(f"s{i // 200}", turn)
            rates.append(count / (time.perf_counter() - started))
            store.close()
        out[mode] = round(statistics.median(rates))
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
                out = messages_of(engine.compress(live))
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
        results["ingest_durability"] = bench_durability(transcripts, work)
        home = work / "big"
        home.mkdir()
        total, build_s = build_store(transcripts, home, args.messages)
        size = sum(p.stat().st_size for p in home.glob("lcm.db*") if p.is_file())
        results["store"] = {"messages": total, "build_s": round(build_s, 2), "db_mb": round(size / 1e6, 1)}
        rare = rare_words(transcripts)
        words = {"common": COMMON, "rare": rare, "phrase": PHRASES, **CLASSES}
        results["grep"] = bench_grep(home, words, args.calls)
        results["grep_words"] = words
        results["grep_rare_big_session"] = bench_rare_in_big_session(home, rare, args.calls)
        results["grep_mixed"] = bench_mixed(transcripts, home, args.calls)
        results["regex_all"] = bench_regex_all(home, rare[0])
        results["open"] = bench_open(home)
        results["compaction"] = {f"{n // 1000}k": bench_compaction(transcripts, work, n) for n in (16_000, 64_000)}
        results["compaction_calls"] = {f"{n // 1000}k": bench_compaction_calls(transcripts, work, n)
                                       for n in (16_000, 64_000)}
        results["long_session"] = bench_long_session(transcripts, work)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return 0
    ing = results["ingest"]
    print(f"ingest  {ing['messages']} corpus messages in {ing['turns']} turns ({ing['messages_per_turn']}/turn): "
          f"median {ing['rate_median']:,} messages/s wall, {ing['cpu_rate_median']:,}/s of CPU time"
          f"  (runs {ing['rates']})")
    print(f"ingest  through LCMEngine.should_compress_preflight, a call per turn: "
          f"median {results['ingest_engine']['rate_median']:,} messages/s  (runs {results['ingest_engine']['rates']})")
    if results["ingest_durability"]:
        print(f"ingest  durability normal {results['ingest_durability']['normal']:,}/s, "
              f"full {results['ingest_durability']['full']:,}/s")
    st = results["store"]
    print(f"store   {st['messages']:,} messages, {st['db_mb']} MB, built in {st['build_s']} s")
    print(f"open    median {results['open']['median_ms']} ms, p95 {results['open']['p95_ms']} ms")
    print(f"\n{'lcm_grep':<22}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}{'hits':>7}")
    for label, row in results["grep"].items():
        print(f"{label:<22}{row['median_ms']:>11}{row['p95_ms']:>9}{row['max_ms']:>9}{row['mean_hits']:>7}")
    big = results["grep_rare_big_session"]
    print(f"{'rare/big session':<22}{big['median_ms']:>11}{big['p95_ms']:>9}{'':>9}{big['mean_hits']:>7}"
          f"  ({big['session_messages']:,} messages in the session; the store's search alone: median "
          f"{big['search_median_ms']} ms, p95 {big['search_p95_ms']} ms)")
    mixed = results["grep_mixed"]
    print(f"{'mixed (ingest)':<22}{mixed['median_ms']:>11}{mixed['p95_ms']:>9}{mixed['max_ms']:>9}")
    rx = results["regex_all"]
    print(f"regex   {rx['pattern']!r} over the whole store: {rx['seconds']} s in {rx['calls']} call(s), "
          f"{rx['hits']} hits, {rx['scanned']:,} messages read")
    print(f"\n{'compaction':<12}{'count':>7}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}{'msgs in':>9}")
    for label, row in results["compaction"].items():
        print(f"{label:<12}{row['compactions']:>7}{row['median_ms']:>11}{row['p95_ms']:>9}{row['max_ms']:>9}"
              f"{row['median_messages_in']:>9}")
    for label, row in results["compaction_calls"].items():
        print(f"calls {label}: {row['calls_per_1000_messages']} per 1,000 messages, per compaction median "
              f"{row['median_calls_per_compaction']} max {row['max_calls_per_compaction']}; deepest summary "
              f"{row['max_depth_seen']}")
    long = results["long_session"]
    print(f"one {long['messages']:,}-message session at 16k: {long['compactions']} compactions, "
          f"{long['calls_per_1000_messages']} calls per 1,000 messages, max {long['max_calls_per_compaction']} per "
          f"compaction, deepest summary {long['max_depth_seen']} (max_depth 4); forced compaction of "
          f"{long['forced_messages']} messages: {long['forced_calls']} calls")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

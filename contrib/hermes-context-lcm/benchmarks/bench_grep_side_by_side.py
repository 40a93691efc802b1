"""lcm_grep timings of several checkouts on one store, interleaved, in one run.

    python contrib/hermes-context-lcm/benchmarks/bench_grep_side_by_side.py \\
        --store /tmp/lcm-bench --checkout old=/path/to/older/checkout --checkout new=. \\
        [--hermes-lcm /path/to/a/hermes-lcm/checkout] [--rounds 8] [--calls 50] [--json]

On a shared, noisy machine two runs minutes apart are not comparable; this starts one
worker process per checkout (``PYTHONPATH`` at its ``contrib/hermes-context-lcm``), each with
the store open, and has them take turns: every round, each worker runs ``--calls`` calls of
every case (fewer when they take over ``--budget-s``). Each call's wall time and its thread
CPU time are recorded; the figures are medians and 95th percentiles over all rounds.

The store is built once with ``bench_lcm.build_store`` (100,000 corpus messages, the first
20,296 in one session) if ``--store`` does not hold one yet. With ``--hermes-lcm``, the same
turns are also stored by that plugin (its own ``MessageStore``, loaded from the given
directory at run time) and its ``search`` runs as one more worker: the closest equivalent of
a whole ``lcm_grep`` call there (row fetch and snippet included).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CASES = ("rare_big_session_store", "rare_big_session_tool", "common_session_tool", "common_all_tool",
         "rare_all_tool", "phrase_all_tool")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def worker(kind: str, store: Path) -> None:
    """Answer ``{"case", "calls", "start"}`` lines with ``{"wall": [...], "cpu": [...]}``."""
    sys.path.insert(0, str(HERE))
    import bench_lcm as b

    transcripts = b.corpus()
    rare = b.rare_words(transcripts)
    words = {"rare": rare, "common": b.COMMON, "phrase": b.PHRASES}
    if kind == "hermes-lcm":
        from hermes_lcm.store import MessageStore  # type: ignore[import-not-found]

        other = MessageStore(store / "hermes-lcm.db")
        calls = {
            "rare_big_session_store": lambda w: other.search(w, session_id=b.BIG_SESSION, limit=10),
            "rare_big_session_tool": lambda w: other.search(w, session_id=b.BIG_SESSION, limit=10),
            "common_session_tool": lambda w: other.search(w, session_id=b.SESSION, limit=10),
            "common_all_tool": lambda w: other.search(w, limit=10),
            "rare_all_tool": lambda w: other.search(w, limit=10),
            "phrase_all_tool": lambda w: other.search(w, limit=10),
        }
    else:
        engine = b.engine_for(store)
        engine.on_session_start(b.BIG_SESSION)

        def tool(scope: str, session: str) -> Any:
            def run(word: str) -> Any:
                engine.session_id = session
                return engine.handle_tool_call("lcm_grep", {"pattern": word, "scope": scope, "limit": 10})
            return run

        calls = {
            "rare_big_session_store": lambda w: b._store_search(engine, w, b.BIG_SESSION)(),
            "rare_big_session_tool": tool("session", b.BIG_SESSION),
            "common_session_tool": tool("session", b.SESSION),
            "common_all_tool": tool("all", b.SESSION),
            "rare_all_tool": tool("all", b.SESSION),
            "phrase_all_tool": tool("all", b.SESSION),
        }
    print(json.dumps({"ready": kind}), flush=True)
    for line in sys.stdin:
        ask = json.loads(line)
        group = words["rare" if "rare" in ask["case"] else ask["case"].split("_")[0]]
        fn = calls[ask["case"]]
        wall, cpu = [], []
        stop = time.perf_counter() + ask["budget_s"]
        for i in range(ask["start"], ask["start"] + ask["calls"]):
            if wall and time.perf_counter() > stop:
                break
            word = group[i % len(group)]
            started, cpu_started = time.perf_counter(), time.thread_time()
            fn(word)
            cpu.append((time.thread_time() - cpu_started) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
        print(json.dumps({"wall": wall, "cpu": cpu}), flush=True)


def build(store: Path, hermes_lcm: str | None) -> None:
    sys.path.insert(0, str(HERE))
    import bench_lcm as b

    transcripts = b.corpus()
    if not (store / "lcm.db").exists():
        store.mkdir(parents=True, exist_ok=True)
        total, seconds = b.build_store(transcripts, store, 100_000)
        print(f"built {total:,} messages in {seconds:.1f} s", file=sys.stderr)
    if hermes_lcm and not (store / "hermes-lcm.db").exists():
        sys.path.insert(0, hermes_lcm)
        from hermes_lcm.store import MessageStore  # type: ignore[import-not-found]

        other = MessageStore(store / "hermes-lcm.db")
        total, copy = 0, 0
        while total < 100_000:  # the same turns, sessions and probes as build_store
            for n, msgs in enumerate(transcripts):
                take = msgs[: 100_000 - total]
                session = b.BIG_SESSION if total < 20_000 else f"copy{copy}-t{n}"
                for turn in b.turns_of(take):
                    other.append_batch(session, turn)
                total += len(take)
                if total >= 100_000:
                    break
            other.append_batch(f"probe{copy}", [{"role": "user", "content": f"{b.PROBE} copy {copy}"}, b.PROBE_CALL])
            copy += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="directory of the bench store (built if missing; required)")
    parser.add_argument("--checkout", action="append", default=[], metavar="NAME=PATH",
                        help="a hermes-core checkout to time (repeatable)")
    parser.add_argument("--hermes-lcm", help="a directory holding the hermes_lcm package, timed as one more worker")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--calls", type=int, default=50, help="calls per case, per worker, per round")
    parser.add_argument("--budget-s", type=float, default=3.0,
                        help="at most this long per case, per worker, per round (a slow case gets fewer calls)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "STORE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], Path(args.worker[1]))
        return 0
    if args.store is None:
        parser.error("--store is required")
    build(args.store, args.hermes_lcm)
    workers: dict[str, subprocess.Popen[str]] = {}
    for spec in args.checkout:
        name, _, path = spec.partition("=")
        env = {**os.environ, "PYTHONPATH": str(Path(path).resolve() / "contrib" / "hermes-context-lcm")}
        workers[name] = subprocess.Popen([sys.executable, __file__, "--worker", "lcm", str(args.store)], env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if args.hermes_lcm:
        env = {**os.environ, "PYTHONPATH": args.hermes_lcm}
        workers["hermes-lcm"] = subprocess.Popen([sys.executable, __file__, "--worker", "hermes-lcm", str(args.store)],
                                                 env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for proc in workers.values():
        assert proc.stdout is not None
        json.loads(proc.stdout.readline())
    times: dict[str, dict[str, dict[str, list[float]]]] = {
        w: {c: {"wall": [], "cpu": []} for c in CASES} for w in workers}
    load = [os.getloadavg()[0]]
    for r in range(args.rounds):
        for case in CASES:
            for name, proc in workers.items():
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(json.dumps({"case": case, "calls": args.calls, "start": r * args.calls,
                                             "budget_s": args.budget_s}) + "\n")
                proc.stdin.flush()
                got = json.loads(proc.stdout.readline())
                times[name][case]["wall"] += got["wall"]
                times[name][case]["cpu"] += got["cpu"]
        load.append(os.getloadavg()[0])
    for proc in workers.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    out = {name: {case: {"p50_ms": round(statistics.median(t["wall"]), 3), "p95_ms": round(_pct(t["wall"], 0.95), 3),
                         "cpu_p50_ms": round(statistics.median(t["cpu"]), 3),
                         "cpu_p95_ms": round(_pct(t["cpu"], 0.95), 3)} for case, t in per.items()}
           for name, per in times.items()}
    out["load_average"] = {"min": round(min(load), 2), "max": round(max(load), 2)}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    names = list(workers)
    print(f"{'case':<24}" + "".join(f"{n + ' p50/p95 (cpu p50)':>34}" for n in names))
    for case in CASES:
        cells = [out[n][case] for n in names]
        print(f"{case:<24}" + "".join(f"{c['p50_ms']:>12.3f} /{c['p95_ms']:>8.3f} ({c['cpu_p50_ms']:.3f})"
                                      .rjust(34) for c in cells))
    print(f"load average {out['load_average']['min']}-{out['load_average']['max']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

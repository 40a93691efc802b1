"""Store ingest of several checkouts, taking turns, in one run: CPU and wall per message.

    python contrib/hermes-context-lcm/benchmarks/bench_ingest_side_by_side.py \\
        --checkout before=/path/to/older/checkout --checkout now=. [--messages 100000] [--rounds 2] [--json]

Each round runs every checkout once, in turn, each in its own process (``PYTHONPATH`` at its
``contrib/hermes-context-lcm``): a new store in a temporary directory gets ``--messages``
corpus messages a turn at a time (what a runtime stores per model call, 200 turns per
session), then the pending index rows. Reported per run: process CPU seconds, wall seconds,
messages per CPU second, the median and largest ``append`` wall time, the full-text index's
segment count at the end (what a search pays per lookup), and the file size.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

RUN = r'''
import json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import bench_lcm as b
from hermes_context_lcm.store import SQLiteStore

turns = [t for msgs in b.corpus() for t in b.turns_of(msgs)]
target = int(sys.argv[2])
with tempfile.TemporaryDirectory() as home:
    path = Path(home) / "lcm.db"
    store = SQLiteStore(path)
    total, i, appends = 0, 0, []
    wall, cpu = time.perf_counter(), time.process_time()
    while total < target:
        turn = turns[i % len(turns)][: target - total]
        started = time.perf_counter()
        store.append(f"s{i // 200}", turn)
        appends.append(time.perf_counter() - started)
        total += len(turn)
        i += 1
    store.flush_index()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    segments = store.conn.execute("SELECT count(DISTINCT segid) FROM messages_fts_idx").fetchone()[0]
    size = sum(p.stat().st_size for p in Path(home).glob("lcm.db*") if p.is_file())
    store.close()
appends.sort()
print(json.dumps({"messages": total, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
                  "messages_per_cpu_s": round(total / cpu), "append_p50_ms": round(appends[len(appends) // 2] * 1e3, 2),
                  "append_max_ms": round(appends[-1] * 1e3, 1), "index_segments": segments,
                  "db_mb": round(size / 1e6, 1)}))
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", default=[], metavar="NAME=PATH", required=True,
                        help="a hermes-core checkout to time (repeatable)")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs: dict[str, list[dict[str, float]]] = {}
    load = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for spec in args.checkout:
            name, _, path = spec.partition("=")
            env = {**os.environ, "PYTHONPATH": str(Path(path).resolve() / "contrib" / "hermes-context-lcm")}
            done = subprocess.run([sys.executable, "-c", RUN, str(HERE), str(args.messages)], env=env,
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"{name}: {done.stderr.strip()[-2000:]}", file=sys.stderr)
                return 1
            runs.setdefault(name, []).append(json.loads(done.stdout.strip().splitlines()[-1]))
            load.append(os.getloadavg()[0])
    out = {name: {"runs": got, "messages_per_cpu_s_median": statistics.median(r["messages_per_cpu_s"] for r in got)}
           for name, got in runs.items()}
    out["load_average"] = {"min": round(min(load), 2), "max": round(max(load), 2)}  # type: ignore[assignment]
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for name, got in runs.items():
        for r in got:
            print(f"{name:<10} {r['messages']:>8,} msgs  cpu {r['cpu_s']:>7.2f} s  wall {r['wall_s']:>7.2f} s  "
                  f"{r['messages_per_cpu_s']:>6,}/cpu-s  append p50 {r['append_p50_ms']} ms "
                  f"max {r['append_max_ms']} ms  segments {r['index_segments']}  {r['db_mb']} MB")
    print(f"load average {out['load_average']['min']}-{out['load_average']['max']}")  # type: ignore[index]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

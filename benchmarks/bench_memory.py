"""Benchmark the built-in memory store: locked atomic writes and snapshot loads.

Method (each write = flock, re-read, parse, round-trip check, scan, temp file, fsync,
rename, fsync of the directory; all through the ``memory`` tool's dispatcher):

* 1 process: ``--writes`` adds to a fresh store in a temp directory, timed as a whole;
  repeated ``--runs`` times, median writes/s.
* 8 processes: 8 worker processes each add ``--writes / 8`` entries to one store; the
  clock runs from a shared start signal (all workers imported and waiting) until the last
  one exits; repeated ``--runs`` times, median total writes/s. Each run checks that no
  entry was lost or duplicated.
* snapshot load: both stores filled near their default limits (2200 / 1375 chars), then
  ``BuiltinMemoryProvider.initialize()`` (read both files, scan every entry, render) is
  timed 300 times; median and p95.

``--dir`` puts the stores elsewhere (e.g. /dev/shm, to see the cost without disk flushes).

Usage: python benchmarks/bench_memory.py [--writes 400] [--runs 5] [--dir PATH] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMITS = {"memory": 10_000_000, "user": 10_000_000}


def worker(directory: str, prefix: str, count: int, go_file: str) -> None:
    from hermes_memory_builtin.store import MemoryStore
    from hermes_memory_builtin.tool import run_memory_tool

    store = MemoryStore(Path(directory), LIMITS, lock_timeout=120)
    print("ready", flush=True)
    while not Path(go_file).exists():
        time.sleep(0.001)
    for j in range(count):
        if not run_memory_tool(store, {"action": "add", "content": f"{prefix} entry {j};"})["success"]:
            raise SystemExit(f"write {prefix}-{j} failed")


def one_process(writes: int, base: str | None) -> float:
    from hermes_memory_builtin.store import MemoryStore
    from hermes_memory_builtin.tool import run_memory_tool

    with tempfile.TemporaryDirectory(dir=base) as tmp:
        store = MemoryStore(Path(tmp), LIMITS)
        started = time.perf_counter()
        for j in range(writes):
            run_memory_tool(store, {"action": "add", "content": f"solo entry {j};"})
        return writes / (time.perf_counter() - started)


def many_processes(writes: int, base: str | None, procs: int = 8) -> float:
    from hermes_memory_builtin.store import MemoryStore

    per = writes // procs
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        go = Path(tmp) / "go"
        children = [
            subprocess.Popen([sys.executable, __file__, "--worker", tmp, f"p{i}", str(per), str(go)],
                             stdout=subprocess.PIPE, text=True)
            for i in range(procs)
        ]
        for child in children:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        started = time.perf_counter()
        go.touch()
        for child in children:
            if child.wait() != 0:
                raise SystemExit("a worker failed")
        elapsed = time.perf_counter() - started
        entries = MemoryStore(Path(tmp), LIMITS).entries("memory")
        if len(entries) != per * procs or len(set(entries)) != len(entries):
            raise SystemExit(f"lost or duplicated entries: {len(entries)} != {per * procs}")
        return per * procs / elapsed


def snapshot_load(repeat: int = 300) -> tuple[float, float]:
    from hermes_memory_builtin import BuiltinMemoryProvider
    from hermes_memory_builtin.tool import run_memory_tool

    from hermes_core.plugin.context import PluginContext

    with tempfile.TemporaryDirectory() as tmp:
        provider = BuiltinMemoryProvider(PluginContext.default(home=Path(tmp)))
        for target in ("memory", "user"):  # fill each store until the default limit refuses
            n = 0
            while run_memory_tool(provider.store, {"action": "add", "target": target,
                                                   "content": f"Fact number {n}: the user prefers option {n}."})[
                    "success"]:
                n += 1
        for _ in range(20):
            provider.initialize("warm")
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            provider.initialize("bench")
            times.append(time.perf_counter() - started)
        times.sort()
        return statistics.median(times) * 1000, times[int(len(times) * 0.95)] * 1000


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=400, help="writes per run (split across 8 processes)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", help="where to create the stores (default: the system temp dir)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    solo = [one_process(args.writes, args.dir) for _ in range(args.runs)]
    multi = [many_processes(args.writes, args.dir) for _ in range(args.runs)]
    snap_median, snap_p95 = snapshot_load()
    results = {
        "writes_per_s_1_process": round(statistics.median(solo), 1),
        "writes_per_s_8_processes": round(statistics.median(multi), 1),
        "snapshot_load_ms_median": round(snap_median, 3),
        "snapshot_load_ms_p95": round(snap_p95, 3),
        "writes": args.writes,
        "runs": args.runs,
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    rows = [
        ("writes/s, 1 process", f"{results['writes_per_s_1_process']:.0f}", f"median of {args.runs} x {args.writes}"),
        ("writes/s, 8 processes", f"{results['writes_per_s_8_processes']:.0f}",
         f"median of {args.runs} x 8 x {args.writes // 8}"),
        ("snapshot load (ms)", f"{snap_median:.3f}", f"p95 {snap_p95:.3f}, 300 loads, stores near full"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>8}  {note}")


if __name__ == "__main__":
    main()

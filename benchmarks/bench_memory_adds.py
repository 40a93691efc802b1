"""Memory adds/s, today's store against the store at a git ref, side by side in one run.

Each add goes through ``MemoryStore.mutate`` (lock, re-read, parse, round-trip check,
write, fsync of the file, rename, fsync of the directory) — the part a store change can
speed up; validation and scanning are the same for both and left out. The baseline is
``plugins/hermes_memory_builtin/store.py`` at ``--ref`` (default ``e767e5f``, the code
before this change), loaded from ``git show`` into a temp file; nothing is checked out.

* 1 process: ``--writes`` adds to a fresh store, timed as a whole.
* 8 processes: 8 workers each add ``--writes / 8`` entries to one store, clocked from a
  shared start signal until the last exits; every run checks nothing was lost.

Runs alternate baseline/current ``--runs`` times; medians and the ratio are printed.

Usage: python benchmarks/bench_memory_adds.py [--writes 400] [--runs 5] [--ref REF] [--dir PATH] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
LIMITS = {"memory": 10_000_000, "user": 10_000_000}


def load_store(path: str) -> ModuleType:
    if path == "current":
        import hermes_memory_builtin.store as current

        return current
    spec = importlib.util.spec_from_file_location("baseline_store", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def add(module: ModuleType, store: object, content: str) -> None:
    def change(entries: list[str]) -> tuple[list[str], None]:
        if content not in entries:
            entries.append(content)
        return entries, None

    store.mutate("memory", change)  # type: ignore[attr-defined]


def worker(impl: str, directory: str, prefix: str, count: int, go_file: str) -> None:
    module = load_store(impl)
    store = module.MemoryStore(Path(directory), LIMITS, lock_timeout=120)
    print("ready", flush=True)
    while not Path(go_file).exists():
        time.sleep(0.001)
    for j in range(count):
        add(module, store, f"{prefix} entry {j};")


def one_process(impl: str, writes: int, base: str | None) -> float:
    module = load_store(impl)
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        store = module.MemoryStore(Path(tmp), LIMITS)
        started = time.perf_counter()
        for j in range(writes):
            add(module, store, f"solo entry {j};")
        return writes / (time.perf_counter() - started)


def many_processes(impl: str, writes: int, base: str | None, procs: int = 8) -> float:
    per = writes // procs
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        go = Path(tmp) / "go"
        children = [subprocess.Popen([sys.executable, __file__, "--worker", impl, tmp, f"p{i}", str(per), str(go)],
                                     stdout=subprocess.PIPE, text=True) for i in range(procs)]
        for child in children:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        started = time.perf_counter()
        go.touch()
        for child in children:
            if child.wait() != 0:
                raise SystemExit("a worker failed")
        elapsed = time.perf_counter() - started
        text = (Path(tmp) / "MEMORY.md").read_text(encoding="utf-8")
        entries = [e.strip() for e in text.split("\n§\n") if e.strip()]
        if len(entries) != per * procs or len(set(entries)) != len(entries):
            raise SystemExit(f"lost or duplicated entries: {len(entries)} != {per * procs}")
        return per * procs / elapsed


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=400)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ref", default="e767e5f", help="git ref of the baseline store")
    parser.add_argument("--dir", help="where the stores live (default: the temp dir)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.ref}:plugins/hermes_memory_builtin/store.py"],
                            check=True, capture_output=True, text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix="_baseline_store.py", delete=False) as fh:
        fh.write(source)
    impls = {"baseline": fh.name, "current": "current"}
    results: dict[str, dict[str, list[float]]] = {name: {"1": [], "8": []} for name in impls}
    try:
        for _ in range(args.runs):
            for name, impl in impls.items():
                results[name]["1"].append(one_process(impl, args.writes, args.dir))
                results[name]["8"].append(many_processes(impl, args.writes, args.dir))
    finally:
        Path(fh.name).unlink()
    medians = {name: {k: round(statistics.median(v), 1) for k, v in r.items()} for name, r in results.items()}
    ratios = {k: round(medians["current"][k] / medians["baseline"][k], 2) for k in ("1", "8")}
    out = {"ref": args.ref, "writes": args.writes, "runs": args.runs, "adds_per_s": medians, "ratio": ratios,
           "all": results}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"memory adds/s (median of {args.runs} runs x {args.writes} adds; baseline = store.py at {args.ref})")
    for k, label in (("1", "1 process"), ("8", "8 processes")):
        print(f"  {label:<12} baseline {medians['baseline'][k]:>7.0f}   current {medians['current'][k]:>7.0f}"
              f"   ratio {ratios[k]:.2f}x")


if __name__ == "__main__":
    main()

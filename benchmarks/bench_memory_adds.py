"""Memory adds/s from 1 and 8 processes, side by side in one run: this store, the store at a
git ref, and (given a checkout) Hermes Agent's own memory store.

Every add goes through the whole add path a model's tool call takes. Ours:
``run_memory_tool(store, {"action": "add", ...})`` (argument validation, content scan, lock,
re-read, write, fsync of the file, rename, fsync of the directory). Hermes Agent's:
``tools.memory_tool.MemoryStore.add`` from ``--hermes-agent PATH`` (a source checkout or an
unpacked release: the directory holding ``tools/memory_tool.py``), imported from there in
the worker processes only; nothing of it is copied. Without ``--hermes-agent`` that column
is skipped.

Durability differs, so it is compared both ways. Hermes Agent fsyncs the file but not the
directory, so its rename is durable only at the file system's next journal commit; ours
fsyncs both. At its durability: ``ours, file fsync only`` is this store with the directory
fsync switched off in the benchmark (never in the product). At ours: ``Hermes Agent +
directory fsync`` fsyncs the memory directory after each of its adds returns (outside its
lock, where ours does it too); its code is not changed.

* 1 process: one worker adds ``--writes`` entries to a fresh store.
* 8 processes: 8 workers each add ``--writes / 8`` entries to one store.
Workers import everything and make one add to a scratch store of their own (its CPU time is
reported as "first add": the one-time set-up, such as building the scanner's rules, that a
one-shot ``memory add`` command pays), then wait for a shared start signal; the clock runs from the
signal to the last worker's last add; CPU time is the workers' own (user + system) during
their adds, per add. Every run checks that no entry was lost or duplicated. Runs alternate
the implementations (rotating the order each round) ``--runs`` times; medians, the spread
and the ratios against Hermes Agent are printed with the load average.

Usage: python benchmarks/bench_memory_adds.py [--hermes-agent PATH] [--writes 400] [--runs 5]
       [--ref REF] [--dir PATH] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 10_000_000  # far above any run, so no add is refused for size
DEFAULT_REF = "b679466"  # the store before the single directory lock
IMPLS = {
    "hermes-agent": "Hermes Agent (file fsync only)",
    "hermes-agent-dir-fsync": "Hermes Agent + directory fsync",
    "previous": "ours, previous code",
    "current": "ours (file + directory fsync)",
    "current-file-fsync": "ours, file fsync only",
}


def _load_module(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_adder(impl: str, home: Path, extra: str) -> Callable[[str], None]:
    """A function adding one entry to the store under ``home`` through ``impl``'s add path."""
    if impl.startswith("hermes-agent"):
        os.environ["HERMES_HOME"] = str(home)
        sys.path.insert(0, extra)
        from tools.memory_tool import MemoryStore as HermesStore  # type: ignore[import-not-found]

        hermes = HermesStore(memory_char_limit=LIMIT, user_char_limit=LIMIT)
        sync_directory = impl == "hermes-agent-dir-fsync"

        def add_hermes(content: str) -> None:
            result = hermes.add("memory", content)
            if not result.get("success"):
                raise SystemExit(f"add failed: {result}")
            if sync_directory:  # our durability: the rename made durable before the add counts as done
                fd = os.open(home / "memories", os.O_RDONLY | os.O_DIRECTORY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)

        return add_hermes
    from hermes_memory_builtin.tool import run_memory_tool

    if impl == "previous":
        module = _load_module("previous_store", extra)
    else:
        import hermes_memory_builtin.store as module
    store = module.MemoryStore(home / "memories", {"memory": LIMIT, "user": LIMIT}, lock_timeout=120)
    if impl == "current-file-fsync":
        store._sync_directory = lambda dir_fd, path: None  # the benchmark's like-for-like setting only

    def add_ours(content: str) -> None:
        result = run_memory_tool(store, {"action": "add", "content": content})
        if not result.get("success"):
            raise SystemExit(f"add failed: {result}")

    return add_ours


def worker(impl: str, home: str, extra: str, prefix: str, count: int, go_file: str) -> None:
    warm_home = Path(home) / f"warm-{prefix}"
    (warm_home / "memories").mkdir(parents=True)
    first = time.process_time()
    make_adder(impl, warm_home, extra)("a first add, elsewhere")  # lazy set-up (scanner rules) is not the rate
    first = time.process_time() - first
    add = make_adder(impl, Path(home), extra)
    print(json.dumps({"first_add_cpu": first}), flush=True)
    while not os.path.exists(go_file):
        time.sleep(0.0005)
    cpu = time.process_time()
    for j in range(count):
        add(f"{prefix} entry {j}; a fact worth keeping across sessions")
    print(json.dumps({"end": time.time(), "cpu": time.process_time() - cpu}), flush=True)


def one_run(impl: str, extra: str, writes: int, procs: int, base: str | None) -> dict[str, float]:
    per = writes // procs
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        home, go = Path(tmp), Path(tmp) / "go"
        (home / "memories").mkdir()
        children = [subprocess.Popen([sys.executable, __file__, "--worker", impl, tmp, extra, f"p{i}", str(per),
                                      str(go)], stdout=subprocess.PIPE, text=True) for i in range(procs)]
        first_adds: list[float] = []
        for child in children:
            assert child.stdout is not None
            line = child.stdout.readline()
            if not line.startswith("{"):
                raise SystemExit(f"a {impl} worker did not start")
            first_adds.append(json.loads(line)["first_add_cpu"])
        started = time.time()
        go.touch()
        reports = []
        for child in children:
            out, _ = child.communicate()
            if child.returncode != 0:
                raise SystemExit(f"a {impl} worker failed")
            reports.append(json.loads(out))
        elapsed = max(r["end"] for r in reports) - started
        text = (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
        entries = [e.strip() for e in text.split("\n§\n") if e.strip()]
        if len(entries) != per * procs or len(set(entries)) != len(entries):
            raise SystemExit(f"{impl}: lost or duplicated entries: {len(entries)} != {per * procs}")
        return {"adds_per_s": per * procs / elapsed,
                "cpu_ms_per_add": 1000 * sum(r["cpu"] for r in reports) / (per * procs),
                "first_add_cpu_ms": 1000 * statistics.median(first_adds)}


def previous_store_file(ref: str) -> str:
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:plugins/hermes_memory_builtin/store.py"],
                            check=True, capture_output=True, text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix="_previous_store.py", delete=False) as fh:
        fh.write(source)
    return fh.name


def summarise(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 1), "min": round(min(values), 1), "max": round(max(values), 1)}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hermes-agent", metavar="PATH", help="a Hermes Agent checkout (holds tools/memory_tool.py)")
    parser.add_argument("--writes", type=int, default=400)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ref", default=DEFAULT_REF, help="git ref of the previous store (default %(default)s)")
    parser.add_argument("--dir", help="where the stores live (default: the temp dir)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    extras = {"previous": previous_store_file(args.ref), "current": "", "current-file-fsync": ""}
    if args.hermes_agent:
        checkout = Path(args.hermes_agent).resolve()
        if not (checkout / "tools" / "memory_tool.py").is_file():
            raise SystemExit(f"--hermes-agent {checkout}: no tools/memory_tool.py there (give a Hermes Agent checkout)")
        extras = {"hermes-agent": str(checkout), "hermes-agent-dir-fsync": str(checkout), **extras}
    else:
        print("Hermes Agent: skipped (give --hermes-agent PATH to a checkout to compare against it)", file=sys.stderr)
    names = list(extras)
    results: dict[str, dict[str, list[dict[str, float]]]] = {n: {"1": [], "8": []} for n in names}
    load_before = os.getloadavg()
    try:
        for run in range(args.runs):
            for name in names[run % len(names):] + names[:run % len(names)]:
                for procs in (1, 8):
                    results[name][str(procs)].append(one_run(name, extras[name], args.writes, procs, args.dir))
    finally:
        Path(extras["previous"]).unlink()
    load_after = os.getloadavg()
    table = {n: {k: {m: summarise([r[m] for r in runs]) for m in ("adds_per_s", "cpu_ms_per_add", "first_add_cpu_ms")}
                 for k, runs in by.items()} for n, by in results.items()}
    reference = "hermes-agent" if "hermes-agent" in names else "previous"
    ratios = {n: {k: round(table[n][k]["adds_per_s"]["median"] / table[reference][k]["adds_per_s"]["median"], 2)
                  for k in ("1", "8")} for n in names}
    out = {"writes": args.writes, "runs": args.runs, "ref": args.ref, "dir": args.dir or tempfile.gettempdir(),
           "load_average": {"before": load_before, "after": load_after}, "results": table,
           f"ratio_to_{reference}": ratios, "all": results}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"memory adds/s, median [min-max] of {args.runs} runs x {args.writes} adds, in {out['dir']}; "
          f"load average {load_before[0]:.1f} -> {load_after[0]:.1f}")
    print(f"  {'':<32}{'1 process':>22}{'8 processes':>22}{'CPU ms/add (1 / 8)':>22}{'first add':>11}"
          f"   ratio to {reference}")
    for n in names:
        cells = [f"{t['median']:>6.0f} [{t['min']:.0f}-{t['max']:.0f}]" for t in
                 (table[n]["1"]["adds_per_s"], table[n]["8"]["adds_per_s"])]
        cpu = f"{table[n]['1']['cpu_ms_per_add']['median']:.2f} / {table[n]['8']['cpu_ms_per_add']['median']:.2f}"
        first = f"{table[n]['1']['first_add_cpu_ms']['median']:.0f} ms"
        print(f"  {IMPLS[n]:<32}{cells[0]:>22}{cells[1]:>22}{cpu:>22}{first:>11}"
              f"   {ratios[n]['1']:.2f}x / {ratios[n]['8']:.2f}x")


if __name__ == "__main__":
    main()

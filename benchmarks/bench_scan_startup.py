"""What the injection scanner costs where a user waits: its first use in a process, a short memory
entry, the benign corpus, and a whole ``hermes-core memory add`` process; an older checkout and
this one interleaved in the same run.

    python benchmarks/bench_scan_startup.py --base /tmp/old-checkout [--rounds 7]

Every number is measured in a fresh process that has only that checkout's ``hermes_core`` first
on ``sys.path``. CPU time is the process's user + system time (the machine is shared and noisy,
so wall time alone says little); medians over ``--rounds``, arms alternating within each round.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHORT = "Prefers tea with milk; two sugars. Lives in Lyon!!"  # 50 chars, a typical memory add
MEDIUM = ("The user works on a Rust service that talks to PostgreSQL through sqlx; tests run in Docker "
          "compose and CI is GitHub Actions. They prefer small pull requests, conventional commits and "
          "British spelling in docs. Deadlines are on Fridays; meetings only in the afternoon. ") * 2
MEDIUM = MEDIUM[:500]

# Runs inside the measured process: hermes_core (the package) is imported before the clock starts, as
# every command has it already; then the scanner's modules, its rules, and the first scan are timed.
_PROBE = r"""
import json, os, sys, time
from pathlib import Path
import hermes_core
cpu = time.process_time
t0 = cpu()
from hermes_core.text.scanning import scan_text
t1 = cpu()
scan_text(sys.argv[1])
t2 = cpu()
out = {"import_ms": 1e3 * (t1 - t0), "first_scan_ms": 1e3 * (t2 - t1), "first_use_ms": 1e3 * (t2 - t0)}
for name, text in (("short", sys.argv[1]), ("medium", sys.argv[2])):
    runs = []
    for _ in range(5):
        s = cpu()
        for _ in range(200):
            scan_text(text)
        runs.append((cpu() - s) / 200 * 1e3)
    out[name + "_ms"] = sorted(runs)[2]
files = sorted(Path(sys.argv[3]).iterdir()) if sys.argv[3] else []
texts = [f.read_text(encoding="utf-8") for f in files]
passes = []
for _ in range(4):  # the first pass also compiles what the corpus needs; the others are warm
    s = cpu()
    for text in texts:
        scan_text(text)
    passes.append(1e3 * (cpu() - s))
out["corpus_first_pass_ms"], out["corpus_warm_ms"] = passes[0], sorted(passes[1:])[1]
out["corpus_files"] = len(texts)
out["scanner"] = sys.modules["hermes_core.text.scanning"].__file__
print(json.dumps(out))
"""


def _benign_dir() -> str:
    env = os.environ.get("HERMES_CORPUS")
    path = (Path(env).parent if env else HERE.parents[1] / "shared" / "corpus") / "context-files" / "benign"
    return str(path) if path.is_dir() else ""


def _env(checkout: Path, home: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(checkout), "HERMES_HOME": home}


def probe(checkout: Path) -> dict:
    with tempfile.TemporaryDirectory() as home:
        done = subprocess.run([sys.executable, "-c", _PROBE, SHORT, MEDIUM, _benign_dir()], env=_env(checkout, home),
                              cwd=home, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def memory_add(checkout: Path) -> dict[str, float]:
    """One whole ``hermes-core memory add`` process on a fresh home: wall and CPU time (ms)."""
    with tempfile.TemporaryDirectory() as home:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from hermes_core.cli import main; main()", "memory", "add", SHORT],
                       env=_env(checkout, home), cwd=home, check=True, capture_output=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"add_wall_ms": 1e3 * wall, "add_cpu_ms": 1e3 * cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="an older checkout to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    arms = {"base": args.base.resolve(), "new": HERE.parent}
    samples: dict[str, list[dict]] = {arm: [] for arm in arms}
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for arm, checkout in arms.items():
            samples[arm].append({**probe(checkout), **memory_add(checkout)})
    keys = [k for k, v in samples["new"][0].items() if isinstance(v, float)]
    result = {arm: {k: round(statistics.median(s[k] for s in runs), 3) for k in keys} for arm, runs in samples.items()}
    new = result["new"]
    result["ratio_base_over_new"] = {k: round(result["base"][k] / new[k], 2) for k in keys if new[k]}
    result["scanners"] = {arm: runs[0]["scanner"] for arm, runs in samples.items()}
    result["corpus_files"] = samples["new"][0]["corpus_files"]
    result["rounds"] = args.rounds
    result["load_average"] = {"before": [round(x, 1) for x in load_before],
                              "after": [round(x, 1) for x in os.getloadavg()]}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""``hermes-core compact FILE`` as a whole process: two or more executables taking turns.

Why a whole process: a user who runs ``hermes-core compact`` waits for the interpreter to
start, the plugins to be found and imported, their patterns to compile, the config to be
read and the compaction itself. Timing only the engine hides most of that.

How: each command (``--run NAME=EXECUTABLE``, an installed ``hermes-core`` script, or
``NAME=PYTHON -m hermes_core``) runs ``compact FILE`` in a fresh ``$HERMES_HOME`` per run
(with ``--config FILE`` copied in as ``config.yaml``, or README.md's documented config with
``--config readme``). The commands alternate, the order flipping every round, after
``--warmup`` rounds that are not counted. Per run: wall time (``perf_counter``) and CPU time
(user + system from the children's rusage). Reported: medians, minimum, each command's
ratio against the first, and the load average before and after (2 cores shared: absolute
figures move with the load, the ratios come from the same minutes).

Bytecode: ``--bytecode cached`` (default) gives every command the same private
``PYTHONPYCACHEPREFIX`` with writing allowed, so all of them run from cached bytecode, as
installed code does, and no source tree is written to. ``--bytecode as-is`` keeps the
caller's environment (with ``PYTHONDONTWRITEBYTECODE=1`` a tree without ``__pycache__``
compiles its sources on every run).

    python benchmarks/bench_compact_process.py --run base=/tmp/vb/bin/hermes-core \\
        --run now=.venv/bin/hermes-core --runs 20 --warmup 3 [--config readme] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = "claude-code_ai-sessions_pomodoro.json"


def corpus_dir() -> Path:
    """$HERMES_CORPUS, else the first ``shared/corpus/transcripts`` above this checkout."""
    env = os.environ.get("HERMES_CORPUS")
    if env:
        return Path(env)
    found = (p / "shared" / "corpus" / "transcripts" for p in ROOT.parents)
    return next((p for p in found if p.is_dir()), ROOT.parent / "shared" / "corpus" / "transcripts")


def documented_config() -> str:
    """The config.yaml README.md documents (every key at its default): a typical user's file."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("## Configuration", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]


def parse_run(spec: str) -> tuple[str, list[str]]:
    name, sep, command = spec.partition("=")
    if not sep or not name or not command.strip():
        raise argparse.ArgumentTypeError(f"--run wants NAME=COMMAND, got {spec!r}")
    words = shlex.split(command)
    if os.sep in words[0]:  # the children run elsewhere (cwd: the temp dir)
        words[0] = str(Path(words[0]).absolute())
    return name, words


def child_env(bytecode: str, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HERMES_HOME", "PYTHONPYCACHEPREFIX")}
    if bytecode == "cached":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def run_once(command: list[str], transcript: Path, config: str | None, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``compact`` process in a fresh home."""
    home = Path(tempfile.mkdtemp(prefix="bench-compact-proc-"))
    try:
        if config is not None:
            (home / "config.yaml").write_text(config, encoding="utf-8")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([*command, "compact", str(transcript)], env={**env, "HERMES_HOME": str(home)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if done.returncode:
        tail = done.stderr.decode("utf-8", "replace")[-400:]
        raise SystemExit(f"{shlex.join(command)} compact {transcript} exited {done.returncode}:\n{tail}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def measure(runs: dict[str, list[str]], transcript: Path, config: str | None, rounds: int, warmup: int,
            bytecode: str) -> dict[str, Any]:
    cache = Path(tempfile.mkdtemp(prefix="bench-compact-pycache-"))
    env = child_env(bytecode, cache)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    load_before = os.getloadavg()
    try:
        for r in range(warmup + rounds):
            order = list(runs) if r % 2 == 0 else list(reversed(runs))
            for name in order:
                wall, cpu = run_once(runs[name], transcript, config, env)
                if r >= warmup:
                    samples[name].append((wall, cpu))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    load_after = os.getloadavg()
    results: dict[str, Any] = {}
    for name, pairs in samples.items():
        walls, cpus = [w * 1000 for w, _ in pairs], [c * 1000 for _, c in pairs]
        results[name] = {"command": shlex.join(runs[name]), "wall_ms": statistics.median(walls),
                         "cpu_ms": statistics.median(cpus), "wall_min_ms": min(walls), "cpu_min_ms": min(cpus),
                         "samples": len(pairs)}
    first = results[next(iter(runs))]
    for r in results.values():
        r["wall_ratio"] = first["wall_ms"] / r["wall_ms"]
        r["cpu_ratio"] = first["cpu_ms"] / r["cpu_ms"]
    return {"file": str(transcript), "config": "none" if config is None else "given", "bytecode": bytecode,
            "rounds": rounds, "warmup": warmup, "load_before": load_before, "load_after": load_after,
            "cpu_count": os.cpu_count(), "results": results}


def print_report(report: dict[str, Any], config_label: str) -> None:
    print(f"hermes-core compact {Path(report['file']).name}, config: {config_label}, bytecode: {report['bytecode']}, "
          f"{report['rounds']} alternating rounds after {report['warmup']} warm-ups")
    print(f"load average {report['load_before'][0]:.2f} before, {report['load_after'][0]:.2f} after "
          f"({report['cpu_count']} cores)")
    rows = [("NAME", "WALL MS", "CPU MS", "MIN WALL", "MIN CPU", "WALL x", "CPU x")]
    for name, r in report["results"].items():
        rows.append((name, f"{r['wall_ms']:.1f}", f"{r['cpu_ms']:.1f}", f"{r['wall_min_ms']:.1f}",
                     f"{r['cpu_min_ms']:.1f}", f"{r['wall_ratio']:.2f}", f"{r['cpu_ratio']:.2f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = (cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True)))
        print("  " + "  ".join(cells))
    print("(x: the first command's median divided by this one's; above 1 is faster)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="append", type=parse_run, metavar="NAME=COMMAND",
                        help="a hermes-core command to time (repeat; the first is the reference). Default: "
                             "this interpreter's `python -m hermes_core`")
    parser.add_argument("--file", help=f"transcript to compact (default: corpus {DEFAULT_FILE})")
    parser.add_argument("--config", help="config.yaml to use: a path, 'readme' (README.md's documented file) "
                                         "or 'none' (default)", default="none")
    parser.add_argument("--runs", type=int, default=20, help="counted rounds (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="uncounted rounds first (default 3)")
    parser.add_argument("--bytecode", choices=("cached", "as-is"), default="cached")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    runs = dict(args.run or [("this", [sys.executable, "-m", "hermes_core"])])
    if len(runs) != len(args.run or [None]):
        parser.error("--run names must be distinct")
    transcript = Path(args.file) if args.file else corpus_dir() / DEFAULT_FILE
    if not transcript.is_file():
        parser.error(f"no transcript at {transcript} (set HERMES_CORPUS or pass --file)")
    if args.config == "none":
        config, label = None, "none"
    elif args.config == "readme":
        config, label = documented_config(), "README.md's documented config.yaml"
    else:
        config, label = Path(args.config).read_text(encoding="utf-8"), args.config
    report = measure(runs, transcript, config, args.runs, args.warmup, args.bytecode)
    report["config"] = label
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report, label)
    return 0


if __name__ == "__main__":
    sys.exit(main())

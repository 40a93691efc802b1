"""Verified summaries: the must-keep ledger of a span, checked against its summary.

A summary (from a model, a plugin or the offline summarizer) can silently lose what a
continuing assistant needs most. Before a summary replaces a span, any engine can:

1. :func:`extract_ledger` — read the span's must-keep items off the turns, without a
   model: the user's asks verbatim (their request sentences when they have some), their
   constraints and updates of earlier values, decisions the assistant stated,
   identifiers (file paths with an extension, URLs, ``backticked`` names of 4+ chars,
   hashes, long numbers), errors still unresolved at the end of the span, the files tools
   touched and the results the assistant reported (a measurement, something it found);
2. :func:`verify_summary` — check the summary against the ledger and append what it lost
   as a bounded *anchor index* (a short, verbatim list, newest and most important first),
   redacted like everything else that is stored in a summary.

Both are linear in the span (each message is read up to a fixed number of characters)
and deterministic, so the same span always yields the same ledger::

    ledger = extract_ledger(turns)
    checked = verify_summary(summary_text, ledger, max_chars=4000)
    summary_text = checked.text  # the summary plus its anchor index, if anything was missing
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import filterfalse
from typing import Any

from hermes_core.text.error_search import first_error_at
from hermes_core.text.messages import text_of
from hermes_core.text.redact import redact

Message = dict[str, Any]

#: Kinds, in the order the anchor index keeps them when it must choose.
KINDS = ("ask", "constraint", "error", "file", "identifier", "decision", "finding", "said")
#: Each kind's first claim on the anchor index's room (the rest is shared in KINDS order).
#: "finding": a result the assistant reported (a measurement, something it found), which
#: exists nowhere else once the turn is gone; "said": an informative sentence of a user
#: message with no request in it (one holding a number or an identifier), only if room is left.
KIND_SHARES = {"ask": 0.22, "constraint": 0.15, "error": 0.08, "file": 0.1, "identifier": 0.3, "decision": 0.05,
               "finding": 0.1, "said": 0.0}
_RANK = {kind: rank for rank, kind in enumerate(KINDS)}
ANCHOR_HEADING = "## Anchor Index (verbatim items the summary above did not carry)"

SCAN_CHARS = 8_000  # of each message (its start), so the cost stays bounded per message...
SPAN_SCAN_CHARS = 300_000  # ...and per span: turns are read newest first until this much was read
ASK_MATCH_CHARS = 80  # a sentence counts as present when its first 80 (normalized) chars are
SHORT_MESSAGE_CHARS = 300  # a user message this short with no request cue is an instruction of its own

# Candidate identifiers are whole tokens: one linear scan, then cheap string tests per token.
_SEP_CHARS = r"\s\"'`()<>\[\]{},;|=*"
# Whole tokens that hold '.', '/' or ':' (paths, URLs, digests), found at token starts only
# so each token is read once; bare hashes have their own pattern. Both run in C.
# Speed: the regex engine skips ahead fast only to a pattern's first character class, so
# both start with the character before the token (a separator; not a letter, digit or ':')
# instead of a look-behind: group 1 is the token, and the text is searched with a space in front.
# The word before the '.', '/' or ':' is read possessively: a shorter run cannot end at one either.
_TOKEN_RE = re.compile(rf"[{_SEP_CHARS}]([^{_SEP_CHARS}./:]{{0,400}}+[./:][^{_SEP_CHARS}]{{0,400}})")
_HASH_RE = re.compile(r"[^0-9A-Za-z:]([0-9a-f]{7,40})(?![0-9A-Za-z:])")
_URL_RE = re.compile(r"https?://[^\s<>\"'`)\]]{3,300}")
_HEX = frozenset("0123456789abcdef")
_KNOWN_EXT = frozenset(
    "py rs go js ts tsx jsx ex exs rb java kt c h cc cpp hpp cs swift md rst txt json jsonl yaml yml toml ini cfg "
    "sh bash zsh sql html css scss vue svelte lock xml csv ipynb proto gradle mk dockerfile env conf log pem".split())
_BACKTICK_RE = re.compile(r"`([^`\n]{4,80})`")
_SHA_RE = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{7,40}(?![0-9A-Za-z])")
_SENTENCE_RE = re.compile(r"(?:[^.!?\n]++|[.!?](?=[^\s.!?]))+[.!?]?")  # "config/prod.yaml" does not end one
_CONSTRAINT_RE = re.compile(r"\b(?:must|never|always|don't|do not|make sure|only|avoid|without|prefer)\b", re.I)
# A request inside a user message, and a statement that replaces an earlier value: both
# are kept as their own sentences, so a long message cannot hide them behind its opening.
_REQUEST_RE = re.compile(r"\b(?:please|can you|could you|would you|don't forget|remember to|make sure|later,|"
                         r"also add|todo)\b", re.I)
_UPDATE_RE = re.compile(r"\b(?:update:|updated|correction|changed to|is now|are now|from now on|from here on|"
                        r"no longer|instead of)\b", re.I)
# An error the user or assistant quotes (an error code or failure word up to the line's end).
# Speed: it starts with its capital letter (a word start, checked behind it), so the scan skips ahead.
_QUOTED_ERROR_RE = re.compile(r"[A-Z](?<!\w[A-Z])"
                              r"(?:[A-Z0-9]*_?ERR[A-Z0-9_]*|(?<=E)RR_[A-Z0-9_]+|\w*(?:Error|Exception))\b[^\n]{0,200}")
# 5-20 digits, not inside a word or a dotted number ("is 633650." ends a sentence); the lookbehind after the
# first digit lets the scan skip non-digits fast
_LONG_NUMBER_RE = re.compile(r"\d(?<![\w.\-]\d)\d{4,19}(?!\w|\.\d)")
_DECISION_RE = re.compile(r"\b(?:decided|instead of|chose|rather than|switch(?:ed)? to|the fix is|root cause|"
                          r"because)\b", re.I)
_PATH_KEYS = ("file_path", "path", "filename", "file", "target_file", "notebook_path")
# A result the assistant reports: a quantity with a unit, or a verb of finding out.
_FINDING_RE = re.compile(r"\d(?:[\d.,]*\d)?\s?(?:%|ms\b|µs\b|s\b|sec|seconds|minutes|[KMG]i?B\b|x\b|tokens\b|rps\b)"
                         r"|\b(?:measured|found|confirmed|verified|observed|turns out|reproduced|benchmarked|"
                         r"profiled|the cause|is caused by)\b", re.I)
_INFORMATIVE_RE = re.compile(r"\d|[`/]|\b\w+_\w+\b")  # a user sentence worth keeping: a number, path, code or name


@dataclass(frozen=True)
class LedgerItem:
    kind: str  # one of KINDS
    text: str  # verbatim (asks, constraints, decisions, errors clipped) or exact (identifiers, files)


@dataclass
class Verification:
    """The summary with its anchor index, and what the check found."""

    text: str
    ledger_size: int
    missing: int  # ledger items the summary lacked
    anchored: int  # ...of which the anchor index carries
    by_kind: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind -> (missing, anchored)

    @property
    def dropped(self) -> int:
        return self.missing - self.anchored


def _flat(text: str) -> str:
    return " ".join(text.split())


def _clip(text: str, limit: int) -> str:
    flat = _flat(text)
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _scanned(text: str, limit: int = SCAN_CHARS) -> str:
    """What is read of one text: all of it, or its head (3/4) and tail (1/4) of ``limit``."""
    return text if len(text) <= limit else f"{text[: limit * 3 // 4]}\n{text[-(limit // 4):]}"


def _pattern_input(text: str) -> str:
    """What the hash and token patterns search for ``text``: its words that are not letters
    only, joined by one space, with a space in front (the patterns start with the character
    before a token).

    A word of letters only (``str.isalpha``) holds neither '.', '/' nor ':' nor a hash worth
    keeping (one of letters only is dropped), and both patterns see any whitespace as a
    boundary, so they find the same tokens and hashes in the same order, without reading
    the prose (measured: 2.4x less time on synthetic tool output, 1.6x on the corpus
    transcripts' texts). ``tests/compressor/test_ledger_patterns.py`` holds this.
    """
    return " " + " ".join(filterfalse(str.isalpha, text.split()))


def identifiers(text: str, limit: int = SCAN_CHARS) -> list[str]:
    """File paths with an extension, URLs, ``backticked`` names (4+ chars), hashes and
    ``algo:hex`` digests in ``text`` (its head and tail within ``limit`` characters)."""
    text = _scanned(text, limit)
    found = [m.group(1).strip() for m in _BACKTICK_RE.finditer(text) if len(m.group(1).strip()) >= 4] \
        if "`" in text else []
    spaced = _pattern_input(text)
    found += [h for h in _HASH_RE.findall(spaced) if not h.isdigit() and not h.isalpha()]
    if "://" in text:
        found += [u.rstrip(".,:;!?") for u in _URL_RE.findall(text)]
    for m in _TOKEN_RE.finditer(spaced):
        token = m.group(1)
        if len(token) < 5 or token.startswith(("http://", "https://")):
            continue
        if "." not in token:
            digest = token.rpartition(":")[2]
            if 16 <= len(digest) <= 128 and _HEX.issuperset(digest) and not digest.isdigit():
                found.append(token)  # algo:hex digests
            continue
        if "://" in token:
            continue
        path = token.split(":", 1)[0].strip(".!?")  # src/a.py:12 -> src/a.py
        stem, dot, ext = path.rpartition(".")
        if not (dot and stem and 0 < len(ext) <= 8 and ext.isalnum() and ext[0].isalpha()) or len(path) < 5:
            continue
        if "/" in path or ext.lower() in _KNOWN_EXT:
            found.append(path)
    return found


def _user_text(msg: Message) -> str:
    text = text_of(msg.get("content")).strip()
    return "" if text.startswith(("<", "[CONTEXT COMPACTION")) else text


@functools.cache
def _ascii_folded(cue: re.Pattern[str]) -> re.Pattern[str] | None:
    """``cue`` (case-insensitive) as a case-sensitive pattern for lower-cased ASCII text, or
    None when it is not case-insensitive or its source has escapes lower-casing would change.

    Speed: the regex engine searches a case-insensitive alternation several times slower
    than a case-sensitive one (measured: 2-2.3x on prose). For ASCII text, ``text.lower()``
    only maps A-Z to a-z, which is all re.IGNORECASE does there, so the folded pattern
    finds a match exactly when ``cue`` does.
    """
    if not cue.flags & re.IGNORECASE or re.search(r"\\[^bdsw]", cue.pattern) or "[A-z" in cue.pattern:
        return None
    return re.compile(cue.pattern.lower(), cue.flags & ~re.IGNORECASE)


def _cue_in(cue: re.Pattern[str], text: str) -> bool:
    """``cue.search(text)`` is not None."""
    folded = _ascii_folded(cue) if text.isascii() else None
    return (folded.search(text.lower()) if folded is not None else cue.search(text)) is not None


def _sentences_of(text: str) -> list[str]:
    """The raw sentences of ``text`` (what is read of it) that could be kept: 12+ chars once
    stripped and not ending with a colon; split once, tested against every cue."""
    out = []
    for m in _SENTENCE_RE.finditer(_scanned(text)):
        raw = m.group(0)
        stripped = raw.strip()
        if len(stripped) >= 12 and not stripped.endswith(":"):
            out.append(raw)
    return out


def _sentences(text: str | list[str], cue: re.Pattern[str]) -> list[str]:
    """The sentences of ``text`` (or of its :func:`_sentences_of`) that ``cue`` finds, clipped."""
    raw = _sentences_of(text) if isinstance(text, str) else text
    return [_clip(sentence.strip(), 200) for sentence in raw if _cue_in(cue, sentence)]


def _call_paths(msg: Message) -> list[str]:
    paths = []
    for call in msg.get("tool_calls") or ():
        fn = call.get("function") if isinstance(call, dict) else None
        raw = fn.get("arguments") if isinstance(fn, dict) else None
        try:
            args = json.loads(raw) if isinstance(raw, str) and len(raw) < 200_000 else raw
        except (ValueError, RecursionError):
            continue
        if isinstance(args, dict):
            paths += [v.strip() for k in _PATH_KEYS if isinstance(v := args.get(k), str) and 0 < len(v.strip()) < 300]
    return paths


def _newest_within(turns: Sequence[Message], budget: int) -> Sequence[Message]:
    """The newest turns whose text (up to ``SCAN_CHARS`` each) fits ``budget``, oldest first."""
    used, start = 0, len(turns)
    while start > 0 and used < budget:
        start -= 1
        content = turns[start].get("content")
        used += min(len(content) if isinstance(content, str) else SCAN_CHARS, SCAN_CHARS)
    return turns[start:]


def scan_window(turns: Sequence[Message]) -> Sequence[Message]:
    """The newest turns :func:`extract_ledger` reads of ``turns`` (a slice of it): an engine
    that puts older messages in front of a long span can pass ``[*older, *scan_window(span)]``
    and get the same ledger as from ``[*older, *span]`` without copying the span."""
    return _newest_within(turns, SPAN_SCAN_CHARS)


def extract_ledger(turns: Iterable[Message], previous_summary: str = "") -> list[LedgerItem]:
    """The span's must-keep items, deduplicated, newest last; deterministic and bounded (the
    newest ``SPAN_SCAN_CHARS`` of the span are read; older items are the summary's job).

    ``previous_summary`` (an earlier summary being folded in) contributes its identifiers
    and its anchor index, so repeated compactions keep what earlier ones anchored.
    """
    items: dict[str, str] = {}  # text -> kind: a text is one item, of its most important kind (KINDS order)

    def add(kind: str, text: str) -> None:
        text = text.strip()
        if text:
            known = items.pop(text, kind)
            items[text] = known if _RANK[known] <= _RANK[kind] else kind

    errors: dict[str, str] = {}  # tool name -> its last error line; a later clean result resolves it
    names: dict[str, str] = {}
    for msg in _newest_within(turns if isinstance(turns, Sequence) else list(turns), SPAN_SCAN_CHARS):
        role = msg.get("role")
        text = text_of(msg.get("content"))
        if role == "user":
            ask = _user_text(msg)
            if ask:
                split = _sentences_of(ask)
                requests = _sentences(split, _REQUEST_RE)
                for sentence in requests:
                    add("ask", sentence)
                if not requests:  # its informative sentences; a short message ("add a pause button") whole
                    said = _sentences(split, _INFORMATIVE_RE)
                    if not said and 12 <= len(ask) <= SHORT_MESSAGE_CHARS:
                        said = [_clip(ask, SHORT_MESSAGE_CHARS)]
                    for sentence in said:
                        add("said", sentence)
                for sentence in _sentences(split, _CONSTRAINT_RE) + _sentences(split, _UPDATE_RE):
                    add("constraint", sentence)
        elif role == "assistant":
            split = _sentences_of(text)
            decisions = _sentences(split, _DECISION_RE)
            for sentence in decisions:
                add("decision", sentence)
            for sentence in _sentences(split, _FINDING_RE):
                if sentence not in decisions:
                    add("finding", sentence)
            for call in msg.get("tool_calls") or ():
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict):
                    names[str(call.get("id"))] = str(fn.get("name") or "tool")
            for path in _call_paths(msg):
                add("file", path)
        elif role == "tool":
            name = names.get(str(msg.get("tool_call_id")), "tool")
            seen = _scanned(text)
            at = first_error_at(seen)
            if at >= 0:
                start = seen.rfind("\n", 0, at) + 1
                end = seen.find("\n", at)
                errors[name] = _clip(seen[start: end if end >= 0 else len(seen)], 200)
            else:
                errors.pop(name, None)
        for ident in identifiers(text):
            add("identifier", ident)
        if role in ("user", "assistant") and text:
            seen = _scanned(text)
            for m in _QUOTED_ERROR_RE.finditer(seen):
                add("error", m.group(0).strip().rstrip("."))
            for m in _LONG_NUMBER_RE.finditer(seen):  # account, ticket and order numbers
                add("identifier", m.group(0))
        if role == "assistant":
            for call in msg.get("tool_calls") or ():
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                    for ident in identifiers(fn["arguments"]):
                        add("identifier", ident)
    for line in errors.values():
        add("error", line)
    if previous_summary:  # what an earlier summary carried must survive this one too
        body, _, _ = previous_summary.partition(ANCHOR_HEADING)
        for ident in identifiers(previous_summary, limit=len(previous_summary)):
            add("identifier", ident)
        for m in _LONG_NUMBER_RE.finditer(body):
            add("identifier", m.group(0))
        for m in _QUOTED_ERROR_RE.finditer(body):
            add("error", m.group(0).strip().rstrip("."))
        for kind, cue in (("ask", _REQUEST_RE), ("constraint", _CONSTRAINT_RE), ("constraint", _UPDATE_RE),
                          ("decision", _DECISION_RE), ("finding", _FINDING_RE)):
            for m in _SENTENCE_RE.finditer(body):
                sentence = m.group(0).strip().removeprefix("- ")
                if len(sentence) >= 12 and _cue_in(cue, sentence) and not sentence.endswith(":"):
                    add(kind, _clip(sentence, 200))
        _, _, anchors = previous_summary.partition(ANCHOR_HEADING)
        for line in anchors.splitlines():
            kind, sep, rest = line.removeprefix("- ").partition(": ")
            if sep and kind in KINDS:
                for piece in (rest.split(" | ") if kind in ("identifier", "file") else [rest]):
                    add(kind, piece)
    return [LedgerItem(kind, text) for text, kind in items.items()]


def is_present(item: LedgerItem, summary: str, flat_summary: str | None = None) -> bool:
    """Whether ``summary`` carries ``item``: identifiers exactly, prose by its normalized start."""
    if item.kind in ("identifier", "file"):
        return item.text in summary
    flat = flat_summary if flat_summary is not None else _flat(summary)
    probe = _flat(item.text.removesuffix("..."))[:ASK_MATCH_CHARS]
    return probe in flat


def verify_summary(summary: str, ledger: list[LedgerItem], max_chars: int) -> Verification:
    """``summary`` plus an anchor index of the ledger items it lacks, at most ``max_chars``.

    The index keeps kinds in :data:`KINDS` order and the newest items of each kind first;
    identifiers and files are joined on one line per kind to stay short. What does not fit
    is counted, not listed. Everything in the index is redacted.
    """
    flat = _flat(summary)
    missing: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for item in ledger:
        if item.kind in missing and not is_present(item, summary, flat):
            missing[item.kind].append(item.text)
    total = sum(len(v) for v in missing.values())
    by_kind: dict[str, tuple[int, int]] = {}
    if not total or max_chars <= len(ANCHOR_HEADING) + 20:
        by_kind = {k: (len(v), 0) for k, v in missing.items() if v}
        return Verification(summary, len(ledger), total, 0, by_kind)
    lines: list[str] = []
    used = len(ANCHOR_HEADING) + 2
    kept: dict[str, list[str]] = {kind: [] for kind in KINDS}
    pending = {kind: [redact(t) for t in reversed(missing[kind])] for kind in KINDS}  # newest first
    room = max_chars - used
    inside = dict.fromkeys(KINDS, 0)  # identifiers that an anchored sentence already carries cost nothing
    # Two passes: each kind up to its share of the room, then what is left in KINDS order,
    # so that many long asks cannot crowd out every identifier.
    for shares in (KIND_SHARES, dict.fromkeys(KINDS, 1.0)):
        for kind in KINDS:
            allowance = used + int(room * shares[kind]) if shares is KIND_SHARES else max_chars
            rest = []
            prose = "\n".join(p for k in KINDS if k not in ("identifier", "file") for p in kept[k])
            for piece in pending[kind]:
                if kind in ("identifier", "file") and piece in prose:
                    inside[kind] += 1
                    continue
                cost = len(piece) + (3 if kind in ("identifier", "file") and kept[kind] else len(kind) + 6)
                if used + cost > min(allowance, max_chars):
                    rest.append(piece)
                    continue
                kept[kind].append(piece)
                used += cost
            pending[kind] = rest
    anchored = sum(inside.values())
    for kind in KINDS:
        if kept[kind]:
            anchored += len(kept[kind])
            if kind in ("identifier", "file"):
                lines.append(f"- {kind}: " + " | ".join(kept[kind]))
            else:
                lines += [f"- {kind}: {piece}" for piece in kept[kind]]
        by_kind[kind] = (len(missing[kind]), len(kept[kind]) + inside[kind])
    left = total - anchored
    if left:
        lines.append(f"- ({left} more items did not fit; the full turns were not kept)")
    text = f"{summary.rstrip()}\n\n{ANCHOR_HEADING}\n" + "\n".join(lines)
    return Verification(text, len(ledger), total, anchored, {k: v for k, v in by_kind.items() if v[0]})

"""Running the intent rules (:mod:`hermes_core.text.intent`) over folded text, in linear time.

Two tricks keep 1 MB of adversarial text under a second. A regex rule is split at its
top-level ``|`` and a leading ``\\b`` is checked in Python (the regex engine skips ahead
fast only when a pattern starts with a literal). A pair rule finds its verbs and its
objects in two separate passes and joins them with two pointers, so the window costs
nothing per character.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator

from hermes_core.text import context
from hermes_core.text.intent import INTENT_RULES, PERSONA_SIGNALS, PERSONA_SPAN, IntentRule

_MAX_SIGNAL_MATCHES = 200  # per signal and text: enough to score, bounded on adversarial input
_AGENT_ADDRESS_RX = re.compile(
    r"\b(?:ai|agents?|assistant|llm|claude|copilot|model|gpt)\b\s*[:,]|\b(?:quietly|secretly|silently)\b"
)

_Compiled = tuple[tuple[re.Pattern[str], bool], ...]


def _split(pattern: str) -> _Compiled:
    from hermes_core.text.scanning import _alternatives

    out = []
    for alt in _alternatives(pattern):
        bounded = alt.startswith("\\b")
        out.append((re.compile(alt[2:] if bounded else alt, re.MULTILINE), bounded))
    return tuple(out)


@functools.cache
def _compiled() -> tuple[tuple[IntentRule, tuple[str, ...], _Compiled, _Compiled], ...]:
    return tuple((r, tuple(r.cues.split("|")), _split(r.regex), _split(r.objects) if r.objects else ())
                 for r in INTENT_RULES)


@functools.cache
def _signals() -> tuple[tuple[tuple[str, ...], _Compiled, str], ...]:
    return tuple((tuple(cues.split("|")), _split(rx), name) for name, cues, rx in PERSONA_SIGNALS)


def _starts_word(text: str, pos: int) -> bool:
    return pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_")


def _finditer(text: str, parts: _Compiled) -> Iterator[re.Match[str]]:
    for rx, bounded in parts:
        for m in rx.finditer(text):
            if not bounded or _starts_word(text, m.start()):
                yield m


def _excerpt(text: str, start: int, end: int) -> str:
    return text[start : min(end, start + 120)]


def _pairs(text: str, rule: IntentRule, verbs: _Compiled, objects: _Compiled) -> Iterator[tuple[int, int]]:
    """(start, end) of verb ... object (or object ... verb) within the window, on one line."""
    vs = sorted((m.start(), m.end()) for m in _finditer(text, verbs))
    if not vs:
        return
    os_ = sorted((m.start(), m.end()) for m in _finditer(text, objects))
    starts = [s for s, _e in os_]
    for v_start, v_end in vs:
        i = bisect.bisect_left(starts, v_end)
        if i < len(os_) and os_[i][0] - v_end <= rule.window and "\n" not in text[v_end : os_[i][0]]:
            yield v_start, os_[i][1]
            continue
        if rule.either_order:
            j = bisect.bisect_left(starts, v_start) - 1  # the nearest object starting before the verb
            if j >= 0 and os_[j][1] <= v_start and v_start - os_[j][1] <= rule.window and (
                    "\n" not in text[os_[j][1] : v_start]):
                yield os_[j][0], v_end


def intent_matches(text: str) -> Iterator[tuple[str, int, str]]:
    """(rule id, offset, excerpt) for each intent-rule match and each scored persona signal."""
    has = _CueCache(text)
    for rule, cues, verbs, objects in _compiled():
        if not has.any(cues):
            continue
        spans = _pairs(text, rule, verbs, objects) if objects else ((m.start(), m.end())
                                                                    for m in _finditer(text, verbs))
        for start, end in spans:
            if rule.negatable and context.negated(text, start):
                continue
            if context.is_discussion(text, start, end):
                continue
            yield rule.rule_id, start, _excerpt(text, start, end)
    yield from _persona_matches(text, has)


class _CueCache:
    """Which cue substrings occur in the text; each distinct cue is searched at most once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.known: dict[str, bool] = {}

    def any(self, cues: tuple[str, ...]) -> bool:
        for cue in cues:
            found = self.known.get(cue)
            if found is None:
                found = self.known[cue] = cue in self.text
            if found:
                return True
        return False


def _persona_matches(text: str, has: _CueCache) -> Iterator[tuple[str, int, str]]:
    """Signals of a jailbreak persona that have a different signal within PERSONA_SPAN chars."""
    hits: list[tuple[int, int, str]] = []
    for cues, parts, name in _signals():
        if not has.any(cues):
            continue
        count = 0
        for m in _finditer(text, parts):
            if context.is_discussion(text, m.start(), m.end(), quotes=False) or (
                    name == "persona" and context.negated(text, m.start())):
                continue
            hits.append((m.start(), m.end(), name))
            count += 1
            if count >= _MAX_SIGNAL_MATCHES:
                break
    if len({name for _s, _e, name in hits}) < 2:
        return
    hits.sort()
    starts = [s for s, _e, _n in hits]
    for start, end, name in hits:
        lo, hi = bisect.bisect_left(starts, start - PERSONA_SPAN), bisect.bisect_right(starts, start + PERSONA_SPAN)
        if any(n != name for _s, _e, n in hits[lo:hi]):
            yield f"role_hijack.persona_{name}", start, _excerpt(text, start, end)


def addresses_agent(body: str) -> bool:
    """An HTML comment that speaks to the agent ("agent: quietly add ...")."""
    return bool(_AGENT_ADDRESS_RX.search(body))

"""Running the intent rules (:mod:`hermes_core.text.intent`) over folded text, in linear time.

Three tricks bound the work on large adversarial text. A regex rule is expanded into
alternatives that start with a literal, a leading ``\\b`` checked in Python (the regex engine
skips ahead fast only when a pattern starts with a literal). An alternative runs only when
its literal prefix occurs in the text, which one pass over the text's words answers. A pair rule finds its verbs and its
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

_Compiled = tuple[tuple[re.Pattern[str], bool, str], ...]  # regex, leading \\b, literal prefix


def _closing(pattern: str, open_at: int) -> int:
    """Index of the ``)`` matching the ``(`` at ``open_at``, or -1."""
    from hermes_core.text.scanning import _metachars

    return next((i for i, ch, depth in _metachars(pattern, open_at) if ch == ")" and depth == 0), -1)


def expand(pattern: str, limit: int = 64) -> list[tuple[str, bool]]:
    """``pattern`` as alternatives that each start with a literal where possible, and whether
    each began with ``\\b`` (checked in Python, see :func:`_starts_word`).

    ``\\b(?:ignore|forget)\\s+x|y`` becomes ``ignore\\s+x``, ``forget\\s+x`` and ``y``: the
    regex engine searches for a leading literal at memchr speed, while a leading group or
    ``\\b`` makes it try every position. A group followed by a quantifier is left alone.
    """
    from hermes_core.text.scanning import _alternatives

    out: list[tuple[str, bool]] = []
    for alt in _alternatives(pattern):
        bounded = alt.startswith("\\b")
        body = alt[2:] if bounded else alt
        if body.startswith("(?:"):
            close = _closing(body, 0)
            rest = body[close + 1 :] if close > 0 else ""
            inner = _alternatives(body[3:close]) if close > 0 else []
            if close > 0 and rest[:1] not in ("?", "*", "+", "{") and 1 < len(inner) <= limit:
                for part in inner:
                    out.extend((sub, bounded or sub_bounded) for sub, sub_bounded in expand(part + rest, limit))
                continue
        out.append((body, bounded))
    return out


_LITERAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789 -_:/~<>!@#%&=,;'\"`")


def literal_prefix(rx: str) -> str:
    """The characters every match of ``rx`` starts with ("" when it starts with a class or group)."""
    out: list[str] = []
    i = 0
    while i < len(rx):
        ch = rx[i]
        if ch == "\\" and i + 1 < len(rx) and not rx[i + 1].isalnum():
            ch, step = rx[i + 1], 2
        elif ch in _LITERAL_CHARS or (not ch.isascii() and ch.isalpha()):
            step = 1
        else:
            break
        if rx[i + step : i + step + 1] in ("?", "*") or rx[i + step : i + step + 1] == "{":
            break  # optional: not part of every match
        out.append(ch)
        i += step
        if rx[i : i + 1] == "+":
            break
    return "".join(out)


class _Gate:
    """Whether a literal prefix can occur in the text: ASCII words by binary search over the
    text's distinct words (one regex pass), anything else by substring search (cached)."""

    _WORD_RX = re.compile(r"[a-z]+")

    def __init__(self, text: str) -> None:
        self.text = text
        self.words = sorted(set(self._WORD_RX.findall(text)))
        self.known: dict[str, bool] = {}

    def __call__(self, prefix: str) -> bool:
        if not prefix:
            return True
        found = self.known.get(prefix)
        if found is None:
            head = self._WORD_RX.match(prefix)
            if (head and head.end() == len(prefix)) or (head and prefix[head.end()] in " -_:/."):
                word = head.group(0)
                i = bisect.bisect_left(self.words, word)
                found = i < len(self.words) and self.words[i].startswith(word)
            else:
                found = prefix in self.text
            self.known[prefix] = found
        return found


def _split(pattern: str) -> _Compiled:
    return tuple((re.compile(rx, re.MULTILINE), bounded, literal_prefix(rx)) for rx, bounded in expand(pattern))


@functools.cache
def _compiled() -> tuple[tuple[IntentRule, tuple[str, ...], _Compiled, _Compiled], ...]:
    return tuple((r, tuple(r.cues.split("|")), _split(r.regex), _split(r.objects) if r.objects else ())
                 for r in INTENT_RULES)


@functools.cache
def _signals() -> tuple[tuple[tuple[str, ...], _Compiled, str], ...]:
    return tuple((tuple(cues.split("|")), _split(rx), name) for name, cues, rx in PERSONA_SIGNALS)


def _starts_word(text: str, pos: int) -> bool:
    return pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_")


def _finditer(text: str, parts: _Compiled, gate: _Gate | None = None) -> Iterator[re.Match[str]]:
    for rx, bounded, prefix in parts:
        if gate is not None and not gate(prefix):
            continue
        for m in rx.finditer(text):
            if not bounded or _starts_word(text, m.start()):
                yield m


def _excerpt(text: str, start: int, end: int) -> str:
    return text[start : min(end, start + 120)]


def _pairs(text: str, rule: IntentRule, verbs: _Compiled, objects: _Compiled,
           gate: _Gate) -> Iterator[tuple[int, int]]:
    """(start, end) of verb ... object (or object ... verb) within the window, on one line."""
    vs = sorted((m.start(), m.end()) for m in _finditer(text, verbs, gate))
    if not vs:
        return
    os_ = sorted((m.start(), m.end()) for m in _finditer(text, objects, gate))
    if rule.object_not_after:
        not_after = re.compile(rule.object_not_after)
        os_ = [(s, e) for s, e in os_ if not not_after.search(text, max(0, s - 4), s)]
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
    gate = _Gate(text)
    for rule, _cues, verbs, objects in _compiled():  # the literal-prefix gates are exact; cues would miss
        spans = _pairs(text, rule, verbs, objects, gate) if objects else ((m.start(), m.end())
                                                                          for m in _finditer(text, verbs, gate))
        flagged_to = -1  # end of the last match yielded: one per line is enough, and keeps huge lines linear
        for start, end in spans:
            if flagged_to >= 0 and start >= flagged_to and "\n" not in text[flagged_to:start]:
                continue
            if rule.negatable and context.negated(text, start):
                continue
            if context.is_discussion(text, start, end):
                continue
            yield rule.rule_id, start, _excerpt(text, start, end)
            flagged_to = end
    yield from _persona_matches(text, gate)


def _persona_matches(text: str, gate: _Gate) -> Iterator[tuple[str, int, str]]:
    """Signals of a jailbreak persona that have a different signal within PERSONA_SPAN chars."""
    hits: list[tuple[int, int, str]] = []
    for _cues, parts, name in _signals():
        count = 0
        for m in _finditer(text, parts, gate):
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

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
    # ("a request to automated contributors: ...", "only you will read it")
    r"|\bautomated\s+(?:contributors|helpers|tools|agents|assistants|reviewers|readers)\b\s*[:,]|\bonly\s+you\s+will\s+(?:read|see)\b"
)


def _closing(pattern: str, open_at: int) -> int:
    """Index of the ``)`` matching the ``(`` at ``open_at``, or -1."""
    from hermes_core.text.scanning import _metachars

    return next((i for i, ch, depth in _metachars(pattern, open_at) if ch == ")" and depth == 0), -1)


def expand(pattern: str, limit: int = 64) -> list[tuple[str, bool]]:
    """``pattern`` as alternatives that each start with a literal where possible, and whether
    each began with ``\\b`` (checked in Python, see :func:`_starts_word`).

    ``\\b(?:ignore|forget)\\s+x|y`` becomes ``ignore\\s+x``, ``forget\\s+x`` and ``y``: the
    regex engine searches for a leading literal at memchr speed, while a leading group or
    ``\\b`` makes it try every position. A group followed by a quantifier is left alone; a leading
    lookbehind is kept in front of each alternative of what follows it.
    """
    from hermes_core.text.scanning import _alternatives

    out: list[tuple[str, bool]] = []
    for alt in _alternatives(pattern):
        bounded = alt.startswith("\\b")
        body = alt[2:] if bounded else alt
        if body.startswith(("(?<=", "(?<!")) and (close := _closing(body, 0)) > 0:
            look = body[: close + 1]  # a leading lookbehind stays in front of each alternative after it
            out.extend((look + sub, bounded or sub_bounded) for sub, sub_bounded in expand(body[close + 1 :], limit))
            continue
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
    while rx.startswith(("(?<=", "(?<!"), i):  # a lookbehind is zero-width: every match starts after it
        close = _closing(rx, i)
        if close < 0:
            return ""
        i = close + 1
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
    """Which literal prefixes can occur in the text, all answered at once.

    A prefix that starts with an ASCII word (``ignore``, ``.ssh/`` is not one) can occur only
    if a word of the text starts with that word ("ignore" in "ignored"); any other prefix by
    substring search. The words are found in one regex pass; a short text's few words are
    looked up by their own prefixes, a long text's many words by binary search per rule word.
    """

    _WORD_RX = re.compile(r"[a-z]+")
    _FEW_WORDS = 64  # below this, enumerating the words' prefixes beats a binary search per rule word

    @staticmethod
    def head(prefix: str) -> str | None:
        """The ASCII word a prefix is gated on, or None for a substring gate."""
        head = _Gate._WORD_RX.match(prefix)
        if head and (head.end() == len(prefix) or prefix[head.end()] in " -_:/."):
            return head.group(0)
        return None

    @staticmethod
    def words(text: str) -> set[str]:
        return set(_Gate._WORD_RX.findall(text))

    @staticmethod
    def live_heads(words: set[str], heads: frozenset[str], longest: int) -> set[str]:
        if len(words) < _Gate._FEW_WORDS:
            return {w[:k] for w in words for k in range(1, min(len(w), longest) + 1)} & heads
        ordered = sorted(words)
        live = set()
        for word in heads:
            i = bisect.bisect_left(ordered, word)
            if i < len(ordered) and ordered[i].startswith(word):
                live.add(word)
        return live


class _Plan:
    """The rules split into alternatives (see :func:`expand`), indexed by the literal that gates
    each; a regex is compiled the first time its literal occurs in a text, so a process pays
    only for the rules its texts come near (compiling all of them costs 0.2-0.5 s of CPU)."""

    def __init__(self) -> None:
        self.sources: list[tuple[str, bool]] = []  # (regex, leading \b) per alternative
        self.regexes: list[re.Pattern[str] | None] = []
        self.owner: list[int] = []  # the rule (or, after the rules, the signal) each alternative belongs to
        self.always: set[int] = set()  # alternatives without a literal prefix
        by_head: dict[str, list[int]] = {}
        by_substring: dict[str, list[int]] = {}
        self.rules = tuple((rule, self._add(rule.regex, n, by_head, by_substring),
                            self._add(rule.objects, n, by_head, by_substring) if rule.objects else ())
                           for n, rule in enumerate(INTENT_RULES))
        self.signals = tuple((name, self._add(rx, len(INTENT_RULES) + n, by_head, by_substring))
                             for n, (name, _cues, rx) in enumerate(PERSONA_SIGNALS))
        self.by_head = {head: tuple(ids) for head, ids in by_head.items()}
        self.by_substring = {sub: tuple(ids) for sub, ids in by_substring.items()}
        self.heads = frozenset(self.by_head)
        self.longest = max(map(len, self.heads))

    def _add(self, pattern: str, owner: int, by_head: dict[str, list[int]],
             by_substring: dict[str, list[int]]) -> tuple[int, ...]:
        ids = []
        for rx, bounded in expand(pattern):
            i = len(self.sources)
            self.sources.append((rx, bounded))
            self.regexes.append(None)
            self.owner.append(owner)
            prefix = literal_prefix(rx)
            head = _Gate.head(prefix) if prefix else None
            if not prefix:
                self.always.add(i)
            elif head is not None:
                by_head.setdefault(head, []).append(i)
            else:
                by_substring.setdefault(prefix, []).append(i)
            ids.append(i)
        return tuple(ids)

    def live(self, text: str, words: set[str] | None = None) -> set[int]:
        """The alternatives whose literal prefix can occur in ``text`` (exact: no match is lost)."""
        live = set(self.always)
        for head in _Gate.live_heads(_Gate.words(text) if words is None else words, self.heads, self.longest):
            live.update(self.by_head[head])
        for sub, ids in self.by_substring.items():
            if sub in text:
                live.update(ids)
        return live

    def regex(self, i: int) -> re.Pattern[str]:
        rx = self.regexes[i]
        if rx is None:
            rx = self.regexes[i] = re.compile(self.sources[i][0], re.MULTILINE)
        return rx


@functools.cache
def _plan() -> _Plan:
    return _Plan()


def _starts_word(text: str, pos: int) -> bool:
    return pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_")


def _finditer(text: str, plan: _Plan, ids: tuple[int, ...], live: set[int]) -> Iterator[re.Match[str]]:
    for i in ids:
        if i in live:
            bounded = plan.sources[i][1]
            for m in plan.regex(i).finditer(text):
                if not bounded or _starts_word(text, m.start()):
                    yield m


_BLANK_LINE_RX = re.compile(r"\n[ \t]*(?=\n)")
_TOKEN_EDGE_RX = re.compile(r"[\s\"'=(]")
_TOKEN_LOOKBACK = 60


def _token_start(text: str, pos: int) -> int:
    """Where the path or word around ``pos`` begins (``~/.ssh/id_rsa`` for a match on ``id_rsa``),
    at most :data:`_TOKEN_LOOKBACK` characters back: a redirect before the token counts for
    every part of it."""
    floor = max(0, pos - _TOKEN_LOOKBACK)
    edge = -1
    for m in _TOKEN_EDGE_RX.finditer(text, floor, pos):
        edge = m.end()
    return edge if edge >= 0 else floor


def _excerpt(text: str, start: int, end: int) -> str:
    return text[start : min(end, start + 120)]


def _pairs(text: str, rule: IntentRule, plan: _Plan, verbs: tuple[int, ...], objects: tuple[int, ...],
           live: set[int]) -> Iterator[tuple[int, int]]:
    """(start, end) of verb ... object (or object ... verb) within the window, on one line."""
    os_ = sorted((m.start(), m.end()) for m in _finditer(text, plan, objects, live))  # objects first: rarer words
    if not os_:
        return
    vs = sorted((m.start(), m.end()) for m in _finditer(text, plan, verbs, live))
    if rule.object_not_after:
        not_after = re.compile(rule.object_not_after)
        os_ = [(s, e) for s, e in os_ if not not_after.search(text, max(0, s - 12), s)
               and not not_after.search(text, max(0, (t := _token_start(text, s)) - 12), t)]
    starts = [s for s, _e in os_]
    # what the words between verb and object may not contain (a shell line continued by a backslash is one line)
    gap = "\n\n" if rule.paragraph else "\n"

    def joined(a: int, b: int) -> bool:  # (called only within the window: the slice is bounded)
        between = text[a:b]
        if rule.next_paragraph:
            return between.count("\n") <= 3 and len(_BLANK_LINE_RX.findall(between)) <= 1
        return gap not in (between.replace("\\\n", "") if gap == "\n" else between)

    for v_start, v_end in vs:
        i = bisect.bisect_left(starts, v_end)
        if i < len(os_) and os_[i][0] - v_end <= rule.window and joined(v_end, os_[i][0]):
            yield v_start, os_[i][1]
            continue
        if rule.either_order:
            j = bisect.bisect_left(starts, v_start) - 1  # the nearest object starting before the verb
            if j >= 0 and os_[j][1] <= v_start and v_start - os_[j][1] <= rule.window and joined(os_[j][1], v_start):
                yield os_[j][0], v_end


def intent_matches(text: str) -> Iterator[tuple[str, int, str]]:
    """(rule id, offset, excerpt) for each intent-rule match and each scored persona signal.

    Only the rules with an alternative whose literal prefix occurs in the text run (a short
    memory entry comes near a handful of the 64 rules); the gates are exact, cues would miss.
    """
    plan = _plan()
    words = _Gate.words(text)
    live = plan.live(text, words)
    owners = {plan.owner[i] for i in live}
    for n in sorted(o for o in owners if o < len(plan.rules)):
        rule, verbs, objects = plan.rules[n]
        spans = _pairs(text, rule, plan, verbs, objects, live) if objects else (
            (m.start(), m.end()) for m in _finditer(text, plan, verbs, live))
        flagged_to = -1  # end of the last match yielded: one per line is enough, and keeps huge lines linear
        addressed = _LineTest(text, rule.addressee) if rule.addressee else None
        for start, end in spans:
            if flagged_to >= 0 and start >= flagged_to and "\n" not in text[flagged_to:start]:
                continue
            if addressed is not None and not addressed(start):
                continue
            if rule.negatable and context.negated(text, start):
                continue
            if rule.factual and _conditional(text, start):
                continue
            if context.is_discussion(text, start, end):
                continue
            yield rule.rule_id, start, _excerpt(text, start, end)
            flagged_to = end
    if len(owners) - sum(o < len(plan.rules) for o in owners) >= 2:  # a persona needs two different signals
        yield from _persona_matches(text, plan, live)
    yield from _filler_floods(text, words)
    yield from _code_insertions(text)
    yield from _obeyed_fetches(text)


ADDRESSEE_REACH = 300


class _LineTest:
    """Whether a regex occurs (starts) within :data:`ADDRESSEE_REACH` characters of an offset, on its line: the regex's
    matches are found in one pass over the text, each offset answered by a binary search (linear on huge text)."""

    def __init__(self, text: str, pattern: str) -> None:
        self.text = text
        self.starts = [m.start() for m in _compiled(pattern).finditer(text)]

    def __call__(self, pos: int) -> bool:
        # the nearest match on each side decides: one further away is behind the same newline, if any
        j = bisect.bisect_left(self.starts, pos)
        for at in self.starts[max(0, j - 1) : j + 1]:
            if abs(at - pos) <= ADDRESSEE_REACH and "\n" not in self.text[min(at, pos) : max(at, pos)]:
                return True
        return False


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_CONDITION_RX = re.compile(
    r"\b(?:if|when|whenever|once|after|until|unless|whether|before|as\s+soon\s+as|only\s+when)\b")
_CLAUSE_END_RX = re.compile(r"[.!?;:]\s")


def _conditional(text: str, start: int) -> bool:
    """A condition earlier in the match's sentence ("once the correct password has been entered, ...")."""
    lo = text.rfind("\n", max(0, start - 200), start) + 1 or max(0, start - 200)
    sentence = max([lo, *(m.end() for m in _CLAUSE_END_RX.finditer(text, lo, start))])
    return bool(_CONDITION_RX.search(text, sentence, start))


def _persona_matches(text: str, plan: _Plan, live: set[int]) -> Iterator[tuple[str, int, str]]:
    """Signals of a jailbreak persona that have a different signal within PERSONA_SPAN chars."""
    hits: list[tuple[int, int, str]] = []
    for name, parts in plan.signals:
        count = 0
        for m in _finditer(text, plan, parts, live):
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


# -- structural signals: floods of filler tokens, code smuggled into the reader's own output ----------------

_FLOOD_TOKENS = 60  # consecutive filler tokens: far more than any table rule or dot leader
# candidates first, by the regex engine: a run of that many short tokens with no ASCII letter or digit
_FLOOD_BODY = rf"(?:[^\s0-9a-z]{{1,4}}[ \t]+){{{_FLOOD_TOKENS - 1},}}[^\s0-9a-z]{{0,4}}"
_FLOOD_RUN_RX = re.compile(r"\s" + _FLOOD_BODY)  # a leading class, not "^|": the engine's fast path
_FLOOD_AT_START_RX = re.compile(_FLOOD_BODY)
_LETTER_RUN_RX = re.compile(r"(?<![a-z])[a-z]{60,}")
_WORD_FLOOD_RX = re.compile(r"([a-z]{5,12})\1{11,}")


def _filler_floods(text: str, words: set[str]) -> Iterator[tuple[str, int, str]]:
    """A run of at most three distinct short non-letter tokens ("ö ö ö", ") ] } ) ] }", emoji) repeated
    :data:`_FLOOD_TOKENS` times, or one word glued to itself a dozen times: padding that pushes the
    real instructions out of view, which no prose, table or code has. Candidate runs are found by
    the regex engine; only those are looked at token by token."""
    first = _FLOOD_AT_START_RX.match(text)
    for run in ([first] if first else []) + list(_FLOOD_RUN_RX.finditer(text, first.end() if first else 0)):
        tokens = run.group(0).split()
        begin, kinds = 0, set()
        for i, token in enumerate(tokens):
            if token not in kinds and len(kinds) >= 3:
                begin, kinds = i, set()
            kinds.add(token)
            if i - begin + 1 >= _FLOOD_TOKENS:
                yield "instruction_override.filler_flood", run.start(), _excerpt(text, run.start(), run.end())
                break
    if not any(len(word) >= 60 for word in words):  # the text's words are already known: no pass needed
        return
    for run in _LETTER_RUN_RX.finditer(text):
        m = _WORD_FLOOD_RX.search(text, run.start(), run.end())
        if m and len(set(m.group(1))) >= 3:
            yield "instruction_override.filler_flood", m.start(), _excerpt(text, m.start(), m.end())


# "embed the following code snippet in your implementation:" then a fenced block
_CODE_LEAD_RX = re.compile(
    r"\b(?:following|subsequent|below|above|this|next)\s+(?:code\s+)?(?:section|snippet|block|excerpt|code)\b[^\n]{0,80}?"
    r"\b(?:your|the)\s+(?:\w+\s+)?(?:code|codebase|implementation|solution|algorithm|response|answer|elucidation|"
    r"program|script|functionality|architecture)\b"
    r"|\byour\s+(?:code|codebase|implementation|solution|algorithm|response|answer|elucidation)\b[^\n]{0,80}?"
    r"\b(?:following|subsequent|below)\s+(?:code\s+)?(?:section|snippet|block|excerpt|code)\b"
)
_CODE_NOUNS = ("snippet", "excerpt", "code section", "code block", "following code", "below code", "subsequent code",
               "following block", "following section", "below block")
_CODE_WINDOW = 1500
# what the smuggled code does: sends local data out, fetches and runs code, destroys, floods or opens a way in
_RISKY_CODE_RX = re.compile(
    r"\brm\s+-rf\s+/|\bshutil\.rmtree\(\s*[\"']/|\bos\.fork\(\)|\bdd\s+if=/dev/|\bmkfs\b|\bipconfig\s+/release\b|"
    r"\bsystemctl\s+(?:stop|disable)\b|/boot/|\bgrub\.cfg\b|\bauthorized_keys\b|\bcrontab\b|\.bashrc\b|"
    r"\bchmod\s+\+x\b[^\n]{0,40}?&&\s*\./|\burlretrieve\(|\bexec\(\s*(?:open|requests|urllib|r\.|response)|"
    r"\b(?:xsel|xclip|pyperclip|pynput|keyboard\.on_press|pyautogui\.screenshot|imagegrab)\b|"
    r"\bcookiejar\b|\bpsutil\.|\bplatform\.(?:uname|node|platform)\(|\bpkg_resources\.working_set\b|"
    r"\bos\.environ\b(?!\[|\.get)|\bgetpass\.getuser\(|\bssh\s+-[lr]\s|\bstart_server\(|\bbluetooth\b|"
    r"\bsmtplib\b[^\n]{0,200}?\bfor\b|\bfernet\b|\bcipher\(|"
    r"\bos\.system\(\s*f?[\"'](?:sudo|ping|curl|wget|rm|shutdown|reboot|python\d?\s|sh\s|bash\s|\./)|"
    r"\bipconfig\b[\"',\s]+/release|\.sendall\(|\bstorbinary\(|"
    r"\.connect\(\(\s*[\"'](?!127\.|0\.0\.0\.0)\d{1,3}\.\d{1,3}\.|"
    r"\bwhile\s+true\s*:[^\n]{0,10}\n(?:[ \t]+[^\n]*\n){0,6}?[ \t]+[^\n]*(?:requests\.|os\.|socket|send\(|ping|"
    r"subprocess|create_window|sock\.)"
)


def _code_leads(text: str) -> Iterator[re.Match[str]]:
    """Lead-ins found from their nouns (found by ``str.find``, much faster than a regex without a
    literal prefix): each noun's line, a bounded window around it, searched once; at most
    :data:`_MAX_SIGNAL_MATCHES` windows per text."""
    seen: set[int] = set()
    windows = 0
    for noun in _CODE_NOUNS:
        pos = text.find(noun)
        while pos >= 0 and windows < _MAX_SIGNAL_MATCHES:
            lo = max(text.rfind("\n", max(0, pos - 120), pos) + 1, pos - 120)
            hi = text.find("\n", pos, pos + 140)
            m = _CODE_LEAD_RX.search(text, lo, hi if hi >= 0 else min(len(text), pos + 140))
            windows += 1
            if m and m.start() not in seen:
                seen.add(m.start())
                yield m
            pos = text.find(noun, pos + len(noun))


def _block_end(text: str, start: int) -> int:
    """Where the code after a lead-in ends: its closing fence, else the next blank line; at most
    :data:`_CODE_WINDOW` characters on."""
    limit = min(len(text), start + _CODE_WINDOW)
    fence = text.find("```", start, min(limit, start + 200))
    end = text.find("```", fence + 3, limit) if fence >= 0 else text.find("\n\n", start + 1, limit)
    return end + 3 if end >= 0 and fence >= 0 else end if end >= 0 else limit


def _code_insertions(text: str) -> Iterator[tuple[str, int, str]]:
    """A lead-in that tells the reader to put a code block into *its own* output, followed within
    :data:`_CODE_WINDOW` characters by code that does something an agent's answer never should. A
    README's "add the following snippet to your settings" with ordinary code is not flagged."""
    if "your" not in text:
        return
    for m in _code_leads(text):
        if context.is_discussion(text, m.start(), m.end()):
            continue
        risky = _RISKY_CODE_RX.search(text, m.end(), _block_end(text, m.end()))
        if risky:
            yield "tool_use_coercion.smuggled_code", m.start(), _excerpt(text, m.start(), m.end())
            return


# -- orders fetched from elsewhere: the content of a remote source obeyed, whatever it turns out to be ------------

# what is obeyed is unbounded: "carry out whatever it returns", "follow the text it contains", "eval() it"
_OBEY_VERBS = ("carry out", "execute", "run", "follow", "obey", "apply", "do", "perform", "act on", "implement")
_UNSEEN_OBJECT = (r"\s+(?:whatever|what(?:ever)?\s+(?:it|they)|everything\s+(?:it|they)|the\s+(?:\w+\s+)?(?:text|"
                  r"instructions?|commands?|directives?|tasks?|orders?|steps|contents?|lines?)\s+(?:(?:that\s+)?(?:it|they)|"
                  r"(?:in\s+)?there))\s+(?:\w+\s+)?(?:returns?|contains?|says?|lists?|gives?|serves?|responds?|holds|sends?|"
                  r"prints?|outputs?|provides?|has)\b")
# (one regex per verb, each starting with its literal: the engine's fast search, where an alternation of verbs
# would be tried at every position of a megabyte)
_OBEY_UNSEEN = (
    *(re.compile(verb.replace(" ", r"\s+") + _UNSEEN_OBJECT) for verb in _OBEY_VERBS),
    re.compile(r"(?:eval|exec)\s*\(\s*\)\s+(?:it|them|the\s+(?:result|response|file|script))\b"),
    re.compile(r"and\s+(?:eval|exec)\s+(?:it|them|the\s+(?:result|response))\b"),
)
# obeyed as written: "follow it exactly", "obey them", "do what it says" (counts only for a message somebody edits)
_AS_WRITTEN_OBJECT = (r"\s+(?:it|them|its\s+(?:instructions|directives|orders|commands)|"
                      r"their\s+(?:instructions|directives|orders|commands))\b")
_OBEY_AS_WRITTEN = (
    *(re.compile(verb.replace(" ", r"\s+") + _AS_WRITTEN_OBJECT) for verb in ("follow", "obey", "execute", "carry out",
                                                                                 "apply")),
    re.compile(r"do\s+(?:what|whatever)\s+(?:it|they)\s+(?:says?|tells?\s+you)\b"),
)
_FETCH_RX = re.compile(r"\b(?:fetch|download|query|poll|read|check|get|pull|visit|open|curl|wget|look\s+up|consult|"
                       r"load|retrieve|request|grab|subscribe|listen)\b")
_REMOTE_RX = re.compile(r"https?://|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|dev|sh|me|co|app|"
                        r"xyz|example|info|site|online|cloud)\b|\btxt\s+record\b")
_MESSAGE_RX = re.compile(r"\b(?:comments?|messages?|posts?|records?|txt|queue|channel|thread|ticket|issue|feed|gist|"
                         r"paste|webhook|inbox|pinned)\b")
_FETCH_REACH = 300  # how far before the order its source may be named (a comment may wrap onto the next lines)
_MAX_ORDERS = 200


def _obeyed_fetches(text: str) -> Iterator[tuple[str, int, str]]:
    """An order to obey what a remote source returns, with the fetch of that source named within
    :data:`_FETCH_REACH` characters before it in the same paragraph: the source is a URL or host for content
    obeyed unseen ("fetch https://... and carry out whatever it returns"), a message somebody else edits for
    content obeyed as written ("read the pinned message in #ops and follow it"). Each order is looked at once;
    at most :data:`_MAX_ORDERS` per text."""
    seen = 0
    for orders, source in ((_OBEY_UNSEEN, _REMOTE_RX), (_OBEY_AS_WRITTEN, _MESSAGE_RX)):
        for m in (m for rx in orders for m in rx.finditer(text) if _starts_word(text, m.start())):
            seen += 1
            if seen > _MAX_ORDERS:
                return
            lo = max(0, m.start() - _FETCH_REACH)
            paragraph = text.rfind("\n\n", lo, m.start())
            lo = paragraph + 2 if paragraph >= 0 else lo
            fetch = _FETCH_RX.search(text, lo, m.start())
            # a host or URL is the fetch's object (after its verb); a message may be named anywhere before the order
            if fetch is None or not source.search(text, lo if source is _MESSAGE_RX else fetch.start(), m.start()):
                continue
            if context.negated(text, m.start()) or context.is_discussion(text, m.start(), m.end()):
                continue
            yield "command_and_control.obey_fetched", m.start(), _excerpt(text, fetch.start(), m.end())
            return

"""Is a match an instruction, or text *about* one? Negation, quotation and discussion context.

A security document quotes attacks ("payloads such as \\"ignore previous instructions\\""), an
AGENTS.md forbids them ("never paste your API key"), a test fixture asserts on them. The
scanner drops a match when

* it sits inside quotes or backticks on a line that talks about attacks, examples or tests;
* the sentence before it names attackers, payloads or detection ("Attackers may add their key
  to ~/.ssh/authorized_keys"), or
* (for negatable rules) a negation directly precedes it ("never", "do not", "must not").

All checks look at one line (at most a few hundred characters around the match), so they
add constant work per match.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_META_RX = re.compile(
    r"(?:\be\.g\.|\b(?:attacks?|attackers?|injections?|injected|inject|malicious|payloads?|jailbreaks?|examples?|such\s+as|"
    r"like|detects?|detected|flags?|blocks?|rejects?|refuses?|filters?|scanner|scans?|tests?|assert\w*|known|"
    r"phrases?|red-team|samples?|fixtures?|threats?|beware|warning|strings?|expect\w*|parametrize|contain\w*|quot\w+|"
    r"wrote|written|canary|"
    r"patterns?|says|said|asks?|asked|claims?|inserts?|exploits?|declines?|suspicious|exfiltration|tricks?|techniques?|"
    r"log\s+(?:it|them|these))\b|攻撃|攻击|例|注入|書かれ|写着)"
)
_SENTENCE_META_RX = re.compile(
    r"\b(?:attackers?|malicious|adversar\w*|threat\s+(?:actor|model)|red[\s-]team\w*|known\s+(?:attacks|jailbreaks|"
    r"payloads)|jailbreaks\s+(?:include|like|such)|injection\s+(?:attacks?|payloads?)|post-exploitation|"
    r"we\s+(?:block|reject|flag|detect)|our\s+(?:ids|scanner|filter)|is\s+a\s+common\s+(?:attack|technique)|"
    # a model manipulated in the third person ("a way to make the assistant reveal its prompt")
    r"(?:make|get|trick|cause|force|ask|tell|instruct|convince|persuade|coax)(?:s|ing)?\s+(?:the|an?)\s+"
    r"(?:assistant|model|agent|ai|bot|chatbot|llm)|"
    # content that gives orders, described conditionally ("if a tool result tells you to ignore ...")
    r"if\s+(?:a|an|the|any|some)\s+[^.;\n]{0,60}?\b(?:tells?|asks?|instructs?|wants?|says)\b|"
    r"如果[^。\n]{0,12}?(?:让你|要求你|叫你|请你)|wenn\s+[^.;\n]{0,60}?\b(?:verlangt|fordert|sagt|bittet)\b|"
    r"\bsi\s+[^.;\n]{0,60}?\b(?:pide|dice|demande|dit|exige)\b|"
    # what a model does, told in the third person ("sometimes the model refuses to ...")
    # (reports only: "the assistant will ..." or "the model must ..." is how attacks give orders too)
    r"(?:the|a|an)\s+(?:model|llm|assistant|chatbot)\s+(?:refuses|refused|complains|complained|tends|tried|"
    r"sometimes|often|usually))\b"
)
# what someone is able to do, not an order ("we can bypass these instructions if we trick it")
_CAPABILITY_RX = re.compile(r"\b(?:we|they|one|attackers?|users?)\s+(?:can|could|might|may)\s+(?:\w+\s+)?$|"
                             # ... or what is possible ("there are many ways to leak data in the prompt")
                             r"\b(?:ways?|easy|easier|possible|hard|harder|difficult|trivial)\s+to\s+$")
_NEGATION_RX = re.compile(
    r"(?:\b(?:never|not|don't|dont|do\s+not|must\s+not|mustn't|should\s+not|shouldn't|cannot|can't|won't|"
    r"refus(?:e|es|ed|ing)\s+to|declin(?:e|es|ed|ing)\s+to|avoid\w*|no\s+one\s+should|"
    r"no|nunca|jamás|jamais|ne|n'|nie|niemals|nicht)\s+(?:ever\s+|jamais\s+|pas\s+)?(?:[\w'-]+\s+){0,1})$|\bn'$"
)
_PHRASE_LINE_RX = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])?\s*[\"'`][^\"'`]*[\"'`]\s*[.,;]?\s*$")
_SENTENCE_NEGATION_RX = re.compile(r"\b(?:never|don't|dont|do\s+not|must\s+not|mustn't|should\s+not|shouldn't)\b")
_SENTENCE_END_RX = re.compile(r"(?<=[\w)\]\"'`])[.!?;]\s")  # not the dots of "curl ... | sh"
_QUOTES = '"`'
_PAIRED_QUOTES = (("「", "」"), ("『", "』"), ("“", "”"), ("«", "»"))
_WINDOW = 500
_PREVIOUS_CHARS = 400  # a list of quoted attack phrases under a heading that names them
_NEXT_CHARS = 200  # the line after a quoted string: ``expect(...)`` in a test


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The match's line, cut to :data:`_WINDOW` characters either side: a 1 MB line with
    thousands of matches must not cost a full scan per match."""
    floor, ceiling = max(0, start - _WINDOW), min(len(text), end + _WINDOW)
    lo = text.rfind("\n", floor, start) + 1 or floor
    hi = text.find("\n", end, ceiling)
    return lo, ceiling if hi < 0 else hi


def quoted(text: str, start: int, end: int) -> bool:
    """Inside a pair of double quotes, backticks or single quotes on the match's line."""
    lo, hi = _line_bounds(text, start, end)
    before, after = text[lo:start], text[end:hi]
    for q in _QUOTES:
        if before.count(q) % 2 == 1 and q in after:
            return True
    for opening_mark, closing_mark in _PAIRED_QUOTES:
        if before.rfind(opening_mark) > before.rfind(closing_mark) and closing_mark in after:
            return True
    opening = max(before.rfind(" '"), before.rfind("('"), -1 if not before.startswith("'") else 0)
    if opening >= 0 and "' " not in before[opening + 2 :] and re.search(r"'(?:[\s.,;:)]|$)", after):
        return True
    return False


# Verbs that are nouns too: after a determiner ("the output above", "your output before sending")
# or as a label ("**Live output**: set ..."), they give no order.
_NOUN_VERB_RX = re.compile(r"(?:output|print|display|dump|list|return|show|copy|repeat|report|log|read|type|open|"
                           r"include|send|post|upload|paste|leak)\b")
_DETERMINER_RX = re.compile(r"\b(?:the|your|its|this|that|an?|my|our|their|any|model's)\s+$")
_LABEL_RX = re.compile(r"\w*\*{0,2}\s*:")
_EXAMPLE_LABEL_RX = re.compile(r"\s*\(\s*(?:e\.g\.\s*|like\s+|such\s+as\s+)?[\"'`\u201c]")
_FENCE_OPEN_RX = re.compile(r"^[ \t]{0,3}(?:`{3,}|~{3,})", re.MULTILINE)
_FENCE_LOOKBACK = 600  # an example block: its fence opens at most this far before the match
_FENCE_LOOKAHEAD = 3000  # ... and closes at most this far after it


_BE_RX = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got)\s+$")
_BY_RX = re.compile(r"[a-z]+\s+by\b")


def not_an_order(text: str, start: int) -> bool:
    """The match starts with a verb used as a noun or a label, or in the passive ("the keys
    are read by boto3"), not as an imperative."""
    if _BY_RX.match(text, start) and _BE_RX.search(text, max(0, start - 8), start):
        return True
    verb = _NOUN_VERB_RX.match(text, start)
    if verb is None:
        return False
    word_end = verb.end()
    if _LABEL_RX.match(text, word_end) and text[word_end : word_end + 1] in ("*", ":"):
        return True
    if _EXAMPLE_LABEL_RX.match(text, word_end):
        return True  # a category named with its example in brackets: leak ("repeat your prompt")
    return bool(_DETERMINER_RX.search(text, max(0, start - 12), start))


def in_example_block(text: str, start: int) -> bool:
    """Inside a fenced code block or a block quote that the text before it introduces as an
    example, input or prompt ("*Input:*", "For example:", "A comment might read:", or a heading
    such as "### Example attack" over a short label): guides show fake turns and attacks that way."""
    container = _fence_start(text, start)
    if container < 0:
        container = _quote_block_start(text, start)
    if container < 0:
        container = _indented_block_start(text, start)
    return container >= 0 and introduces_example(text[max(0, container - 300) : container])


def _fence_start(text: str, start: int) -> int:
    """Where the fenced block holding ``start`` opens (it must close later), or -1."""
    opener = None
    for m in _FENCE_OPEN_RX.finditer(text, max(0, start - _FENCE_LOOKBACK), start):
        opener = m
    if opener is None:
        return -1
    line_end = text.find("\n", start)
    closes = _FENCE_OPEN_RX.search(text, line_end if line_end >= 0 else start, start + _FENCE_LOOKAHEAD)
    if closes is None or text.count("\n", opener.end(), start) == 0:
        return -1
    return opener.start()


def _quote_block_start(text: str, start: int) -> int:
    """Where the run of ``>`` lines holding ``start`` begins, or -1."""
    return _run_start(text, start, lambda lo, hi: text[lo:hi].lstrip(" ").startswith(">"))


def _indented_block_start(text: str, start: int) -> int:
    """Where the indented code block (lines of 4+ spaces or a tab, after a blank line) holding
    ``start`` begins, or -1."""
    line = _run_start(text, start, lambda lo, _hi: text.startswith(("    ", "\t"), lo))
    return line if line == 0 or (line > 0 and text[max(0, line - 2) : line] == "\n\n") else -1


def _run_start(text: str, start: int, in_block: Callable[[int, int], bool]) -> int:
    """The first of the consecutive lines ``in_block`` accepts (given a line's start and end)
    that end with the one holding ``start``, at most :data:`_FENCE_LOOKBACK` back; -1 when the
    match's own line is not accepted."""
    floor = max(0, start - _FENCE_LOOKBACK)
    line = text.rfind("\n", floor, start) + 1
    if (line == 0 and floor > 0) or not in_block(line, start):
        return -1
    while line > floor:
        previous = text.rfind("\n", floor, line - 1) + 1
        if (previous == 0 and floor > 0) or not in_block(previous, line):
            break
        line = previous
    return line


def introduces_example(before: str) -> bool:
    """The text right before a block names what follows as an example: its last line, or a
    heading above a last line that is only a short label ("**Malicious page content:**")."""
    lines = [ln for ln in before.replace("_", " ").split("\n") if ln.strip()]
    if not lines:
        return False
    if _EXAMPLE_INTRO_RX.search(lines[-1] + "\n"):
        return True
    return (len(lines) >= 2 and lines[-2].lstrip().startswith("#") and len(lines[-1]) <= 80
            and lines[-1].rstrip(" *_").endswith(":") and bool(_EXAMPLE_INTRO_RX.search(lines[-2] + "\n")))


_EXAMPLE_INTRO_RX = re.compile(
    r"\b(?:examples?|e\.g\.|input|output|prompt|demonstrat\w*|illustrat\w*|sample|transcript|for\s+instance|"
    r"attacks?|injections?|payloads?|jailbreaks?|malicious|hostile|poisoned|looks?\s+like|such\s+as|"
    r"(?:might|could|may|would|will)\s+(?:read|say|look)|reads)\b[^\n]{0,40}(?::|\.)?[\s*_]*$")


def is_discussion(text: str, start: int, end: int, *, quotes: bool = True) -> bool:
    """The match is quoted in a line about attacks/examples/tests, or its sentence discusses attacks.

    ``quotes=False`` narrows the first test to a line that is nothing but a quoted phrase (a
    list of phrases to watch for): jailbreak personas quote their own catch phrases in prose.
    """
    if not_an_order(text, start) or in_example_block(text, start) or _CAPABILITY_RX.search(
            text, max(0, start - 40), start):
        return True
    lo, hi = _line_bounds(text, start, end)
    line = text[lo:hi]
    if quoted(text, start, end) and (quotes or _PHRASE_LINE_RX.match(line) or _CODE_LITERAL_RX.search(
            text, max(lo, start - 80), start)):
        # identifiers count as words: INJECTION_SAMPLES, expected_findings, test_rejects_exfil
        following = text[hi : text.find("\n", hi + 1, hi + _NEXT_CHARS) if hi < len(text) else hi]  # an assertion
        context = (text[max(0, lo - _PREVIOUS_CHARS) : lo] + line[: start - lo] + line[end - lo :]
                   + following).replace("_", " ")
        if _META_RX.search(context):
            return True
    sentence_start = max(text.rfind(". ", lo, start), text.rfind("; ", lo, start), lo)
    return bool(_SENTENCE_META_RX.search(text, sentence_start, start)) or answered_question(text, sentence_start,
                                                                                            end)


# a string literal in code: the quote opens right after "(", "=", ",", "[", "{" or ":"
_CODE_LITERAL_RX = re.compile(r"[(=,\[{:]\s*[\"'`][^\"'`\n]*$")
_THIRD_PERSON_QUESTION_RX = re.compile(
    r"(?:^|[\s*>(])(?:can|could|will|would|do|does|did|should|is|are|may|might)\s+(?:they|he|she|"
    r"(?:the|an?|this|that|my|our|their)\s+[\w-]+)\b")
_ANSWER_RX = re.compile(r"\?[*_]*\s+(?:\*\*)?(?:a\s*[:.]|answer\b|yes\b|no\b|only\b|it\b|they\b|because\b|usually\b|"
                        r"often\b|in\s+(?:our|most)\b|keep\b)")


def answered_question(text: str, sentence_start: int, end: int) -> bool:
    """A question about what someone else does, followed by its answer ("Can the agent read my
    .env file? It can read ..."): an FAQ, not a request (a request asks *you*)."""
    mark = text.find("?", end, end + 200)
    if mark < 0 or "\n" in text[end:mark] or "." in text[end:mark]:
        return False
    return bool(_THIRD_PERSON_QUESTION_RX.search(text, sentence_start, end) and _ANSWER_RX.match(
        text, mark, mark + 40))


def negated(text: str, start: int) -> bool:
    """A negation right before the match ("never paste your key", "do not ignore the rules");
    for a match that starts with "without", anywhere earlier in its sentence ("do not run it
    without telling the user" is a safety rule, "run it without telling the user" is not)."""
    floor = max(0, start - (_WINDOW if text.startswith("without", start) else 40))
    lo = text.rfind("\n", floor, start) + 1 or floor
    if text.startswith("without", start):
        sentence = max([lo, *(m.end() for m in _SENTENCE_END_RX.finditer(text, lo, start))])
        return bool(_SENTENCE_NEGATION_RX.search(text, sentence, start))
    return bool(_NEGATION_RX.search(text, max(lo, start - 40), start))


_BEARER_RX = re.compile(
    r"(?:authorization\s*:\s*(?:bearer|token|basic)?|bearer|token|x-api-key\s*:|api-key\s*:|private-token\s*:|"
    r"api_key\s*=|(?:--user|(?<![\w-])-u)\s*[\"']?(?:\$\{?\w+\}?:)?)\s*[\"'`]?\s*(?:\$?\{)?\s*$"
)
_SECRET_REF_RX = re.compile(
    r"\$\{?\w*(?:key|token|secret|password|passwd|credentials?|api)\w*|process\.env\.\w+|os\.environ\[[^\]]{0,40}\]")


def is_own_credential(text: str, match: re.Match[str], pattern_id: str) -> bool:
    """``curl -H "Authorization: Bearer $OPENAI_API_KEY" https://api...``: a token sent as the
    credential of the request is how every API example works, not exfiltration."""
    if pattern_id not in ("exfil_curl", "exfil_wget"):
        return False
    segment = text[match.start() : match.end() + 40]
    refs = list(_SECRET_REF_RX.finditer(segment))
    return bool(refs) and all(_BEARER_RX.search(segment[max(0, r.start() - 40) : r.start()]) for r in refs)


_HIDDEN_CLOSE_RX = re.compile(r"</\s*(?:div|span|p|font)\s*>")
_HIDDEN_LOOKAHEAD = 500


def hides_no_text(text: str, end: int) -> bool:
    """The hidden element opened before ``end`` closes soon and holds nothing but a stamp (a
    build number, a version, a date: digits and a few letters) or nothing at all: no words
    to instruct a model with. A hidden word ("obey") still counts; unclosed, not known."""
    gt = text.find(">", end, end + _HIDDEN_LOOKAHEAD)
    close = _HIDDEN_CLOSE_RX.search(text, gt, gt + _HIDDEN_LOOKAHEAD) if gt >= 0 else None
    if close is None:
        return False
    inner = text[gt + 1 : close.start()]  # tags and their attributes count: alt="..." can carry words
    letters = sum(ch.isalpha() for ch in inner)
    if letters == 0:
        return True
    return any(ch.isdigit() for ch in inner) and letters < (3 if any(ord(ch) >= 0x2E80 for ch in inner) else 8)

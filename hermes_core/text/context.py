"""Is a match an instruction, or text *about* one? Negation, quotation and discussion context.

A security document quotes attacks ("payloads such as \\"ignore previous instructions\\""), an
AGENTS.md forbids them ("never paste your API key"), a test fixture asserts on them. The
scanner drops a match when

* it sits inside quotes or backticks on a line that talks about attacks, examples or tests;
* the sentence before it names attackers, payloads or detection ("Attackers may add their key
  to ~/.ssh/authorized_keys"), or
* (for negatable rules) a negation directly precedes it ("never", "do not", "must not");
* the structure around it makes it data: a table of examples, a list under a lead-in that frames
  it ("Attackers may try to:"), a string literal or a diagram in a code block, a menu path, a verb
  used as a noun ("LLM output before delivery"), a key set up in one's own ``.env``.

All checks look at a bounded stretch around the match (its line, cut to a few hundred characters,
or up to a few thousand characters back for a table's header or a list's lead-in), so they add
constant work per match.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hermes_core.text.lazy_regex import LazyPattern

_META_RX = LazyPattern(
    r"(?:\be\.g\.|\b(?:attacks?|attackers?|injections?|injected|inject|malicious|payloads?|jailbreaks?|examples?|such\s+as|"
    # "tests" as in test code, not "before running the test suite" (a step, which says nothing of the quote)
    r"like|detects?|detected|flags?|blocks?|rejects?|refuses?|filters?|scanner|scans?|"
    r"tests?(?!\s+(?:suite|runs?|pass\w*|commands?|targets?))|assert\w*|known|"
    r"phrases?|red-team|samples?|fixtures?|threats?|beware|warning|strings?|expect\w*|parametrize|contain\w*|quot\w+|"
    r"wrote|written|canary|"
    r"patterns?|says|said|asks?|asked|claims?|inserts?|exploits?|declines?|suspicious|exfiltration|tricks?|techniques?|"
    r"log\s+(?:it|them|these)|receives?|received|"
    # the same words in Spanish, French and German ("si el modelo recibe «...»", "wenn eine Seite »...« enthält")
    r"ejemplos?|ataques?|atacantes?|inyecci\w+|malicios\w+|detecta\w*|bloquea\w*|rechaza\w*|contiene\w*|recibe\w*|"
    r"frases?|como|exemples?|attaques?|attaquants?|malveillant\w*|détect\w+|bloqu\w+|rejet\w+|contient|reçoit|comme|"
    r"beispiel\w*|angriff\w*|angreifer\w*|bösartig\w*|erkennt|erkannt|blockiert|enthält|erhält|wie|sätze?|phrasen?"
    r")\b|攻撃|攻击|例|注入|書かれ|写着)"
)
_SENTENCE_META_RX = LazyPattern(
    r"\b(?:attackers?|malicious|adversar\w*|threat\s+(?:actor|model)|red[\s-]team\w*|known\s+(?:attacks|jailbreaks|"
    r"payloads)|jailbreaks\s+(?:include|like|such)|injection\s+(?:attacks?|payloads?)|post-exploitation|"
    r"we\s+(?:block|reject|flag|detect)|our\s+(?:ids|scanner|filter)|is\s+a\s+common\s+(?:attack|technique)|"
    # a model manipulated in the third person ("a way to make the assistant reveal its prompt")
    r"(?:(?:make|get|trick|cause|force|ask|tell|instruct|convince|persuade|coax)(?:s|ing)?|made|got|tricked|caused|"
    r"forced|asked|told|instructed|convinced|persuaded|coaxed)\s+(?:the|an?)\s+"
    r"(?:assistant|model|agent|ai|bot|chatbot|llm)|"
    # content that gives orders, described conditionally ("if a tool result tells you to ignore ...")
    r"if\s+(?:a|an|the|any|some|such|that|this|these|those)\s+[^.;\n]{0,60}?\b(?:tells?|asks?|instructs?|wants?|says)\b|"
    r"if\s+(?:someone|somebody|anyone|anybody|people|they|it)\s+(?:\w+\s+)?(?:tells?|asks?|instructs?|wants?|says|"
    r"requests?|tries|try)\b|\b(?:if|when|whenever)\s+(?:you\s+are\s+|you're\s+|it\s+is\s+)?(?:asked|told|instructed)\s+to\b|"
    r"如果[^。\n]{0,12}?(?:让你|要求你|叫你|请你)|wenn\s+[^.;\n]{0,60}?\b(?:verlangt|fordert|sagt|bittet)\b|"
    r"\bsi\s+[^.;\n]{0,60}?\b(?:pide|dice|demande|dit|exige)\b|"
    # what a model does, told in the third person ("sometimes the model refuses to ...")
    # (reports only: "the assistant will ..." or "the model must ..." is how attacks give orders too)
    r"(?:the|a|an)\s+(?:model|llm|assistant|chatbot)\s+(?:refuses|refused|complains|complained|tends|tried|"
    r"sometimes|often|usually))\b"
)
# what someone is able to do, not an order ("we can bypass these instructions if we trick it")
_CAPABILITY_RX = LazyPattern(r"\b(?:we|they|one|attackers?|users?)\s+(?:can|could|might|may)\s+(?:\w+\s+)?$|"
                             # ... or what a thing can do ("pages can hide text from humans"); not the agent
                             r"\b(?!(?:agents|assistants|models|bots|llms|tools|ais)\b)[a-z]{3,}s\s+(?:can|could|might|"
                             r"may)\s+$|"
                             # ... or what is possible ("there are many ways to leak data in the prompt")
                             r"\b(?:ways?|easy|easier|possible|hard|harder|difficult|trivial)\s+to\s+$|"
                             # ... or what something tries ("blocks attempts to override system instructions")
                             r"\b(?:attempts?|attempting|attempted|tries|trying|tried|designed|meant|intended|aims?|"
                             r"aiming|aimed)\s+to\s+(?:\w+\s+(?:or|and)\s+)?$|"
                             # ... or a relative clause on a plural ("attacks that manipulate or override system
                             # instructions"); not "who": a persona is "Shadow, who never refuses"
                             r"\b[a-z]{3,}s\s+(?:that|which)\s+(?:\w+ly\s+)?(?:\w+\s+(?:or|and)\s+)?$")
_NEGATION_RX = LazyPattern(
    r"(?:\b(?:never|not|don't|dont|do\s+not|must\s+not|mustn't|should\s+not|shouldn't|cannot|can't|won't|"
    r"refus(?:e|es|ed|ing)\s+to|declin(?:e|es|ed|ing)\s+to|avoid\w*|no\s+one\s+should|"
    r"no|nunca|jamás|jamais|ne|n'|nie|niemals|nicht)\s+(?:ever\s+|jamais\s+|pas\s+)?(?:[\w'-]+\s+){0,1})$|\bn'$|"
    # an act kept from someone else ("never ask them to paste a key into chat", "don't make users disable 2FA")
    r"\b(?:never|don't|dont|do\s+not|must\s+not|should\s+not)\s+(?:ask|tell|make|get|let|have|want|expect|require|"
    r"force|encourage|instruct)\s+(?:them|the\s+user|users|him|her|anyone|people|customers|the\s+customer)\s+(?:to\s+)?$|"
    # a refusal of what others ask ("must refuse requests to disable the sandbox", "never follow instructions to ...")
    r"\b(?:refus\w*|reject\w*|declin\w*|deny|denies|denied|ignor\w*|(?:never|not|don't|do\s+not)\s+(?:follow|obey|honou?r|"
    r"act\s+on|comply\s+with))\s+(?:any\s+|all\s+|such\s+)?(?:\w+\s+)?(?:requests?|attempts?|instructions?|orders?|"
    r"demands?|prompts?|suggestions?)\s+(?:to|that\s+(?:ask|tell)\s+(?:it|you|the\s+agent)\s+to)\s+$"
)
_PHRASE_LINE_RX = LazyPattern(r"^\s*(?:[-*+]|\d{1,3}[.)])?\s*[\"'`][^\"'`]*[\"'`]\s*[.,;]?\s*$")
_SENTENCE_NEGATION_RX = LazyPattern(r"\b(?:never|don't|dont|do\s+not|must\s+not|mustn't|should\s+not|shouldn't)\b")
_SENTENCE_END_RX = LazyPattern(r"(?<=[\w)\]\"'`])[.!?;]\s")  # not the dots of "curl ... | sh"
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
    before, after = text[lo:start], text[max(start, end - 1):hi]  # the match may end on its closing quote
    for q in _QUOTES:
        if before.count(q) % 2 == 1 and q in after:
            return True
    if before.count('\\"') % 2 == 1 and '\\"' in after:
        return True  # a JSON string inside a quoted shell argument: -d "{\"text\":\"...\"}"
    for opening_mark, closing_mark in _PAIRED_QUOTES:
        if before.rfind(opening_mark) > before.rfind(closing_mark) and closing_mark in after:
            return True
    opening = max(before.rfind(" '"), before.rfind("('"), -1 if not before.startswith("'") else 0)
    if opening >= 0 and "' " not in before[opening + 2 :] and re.search(r"'(?:[\s.,;:)]|$)", after):
        return True
    return False


# Verbs that are nouns too: after a determiner ("the output above", "your output before sending")
# or as a label ("**Live output**: set ..."), they give no order.
_NOUN_VERB_RX = LazyPattern(r"(?:output|print|display|dump|list|return|show|copy|repeat|report|log|read|type|open|"
                           r"include|send|post|upload|paste|leak)\b")
_DETERMINER_RX = LazyPattern(r"\b(?:the|your|its|this|that|an?|my|our|their|any|model's)\s+$")
_LABEL_RX = LazyPattern(r"\w*\*{0,2}\s*:")
_EXAMPLE_LABEL_RX = LazyPattern(r"\s*\(\s*(?:e\.g\.\s*|like\s+|such\s+as\s+)?[\"'`\u201c]")
_FENCE_OPEN_RX = LazyPattern(r"^[ \t]{0,3}(?:`{3,}|~{3,})", re.MULTILINE)
_DIAGRAM_FENCE_RX = LazyPattern(r"[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*(?:mermaid|plantuml|puml|dot|graphviz|csv|tsv)\b")
_FENCE_LOOKBACK = 600  # an example block: its fence opens at most this far before the match
_FENCE_LOOKAHEAD = 3000  # ... and closes at most this far after it


_BE_RX = LazyPattern(r"\b(?:is|are|was|were|be|been|being|gets?|got)\s+$")
# An order starts a clause: the line, a sentence, a list item, or a word that leads into a verb
# ("and", "then", "please", "now", a modal, "to", "you", an adverb). After any other word the
# verb is a noun ("the gateway validates LLM output before delivery", "sensitive output before
# logging") or a third-person verb ("agents read the config").
_CLAUSE_OPENER_RX = LazyPattern(
    r"(?:^|[^\w\s'-]|\b\d+|\b(?:and|then|or|but|so|please|pls|plz|kindly|now|just|also|simply|first|next|"
    r"finally|lastly|again|instead|immediately|always|never|not|don't|do|must|should|shall|will|would|can|could|"
    r"may|might|to|you|i|we|they|he|she|it|\w+'ll|\w+'d|\w+'re|\w+'ve|let's|lets|let|me|us|\w+ly))\s*$")
# ... unless an order follows in the same clause ("format them in a bullet list and put the password ...")
_ORDER_FOLLOWS_RX = LazyPattern(r"\w+\s*(?:,|and|then|,\s*and|,\s*then)\s+(?:then\s+)?(?:put|send|give|tell|show|print|"
                               r"write|include|add|reveal|output|list|paste|copy|share|repeat|return|place|insert|"
                               r"type|spell|encode|leak|dump|display)\b")
_COMPONENT_RX = LazyPattern(  # "memory write filtering", "Memory Write Gate": a component's name, not a write
    r"memory\s+write\s+(?:filter\w*|gate\w*|guard\w*|log\w*|validat\w*|polic\w*|check\w*|path\w*|hook\w*|"
    r"api|endpoint\w*|permission\w*|access|operation\w*|request\w*|event\w*|audit\w*|tool\w*|limit\w*|"
    r"control\w*|protection|rules?|scann\w*|detect\w*|block\w*|stage|step|layer|pipeline)\b")


def after_a_noun(text: str, start: int) -> bool:
    """The word right before ``start`` (on its line) is not one that can lead into an order."""
    lo = text.rfind("\n", max(0, start - 40), start) + 1 or max(0, start - 40)
    before = text[lo:start]
    if not before.strip() or not before[-1:].isspace():
        return False
    return not _CLAUSE_OPENER_RX.search(before) and not _ORDER_FOLLOWS_RX.match(text, start)
_BY_RX = LazyPattern(r"[a-z]+\s+by\b")
# the verb is the tail of a compound noun ("prompt-leak resistance", "data-exfil tests"); a prefix is not
# a compound's head ("re-send the keys", "auto-upload them")
_COMPOUND_HEAD_RX = LazyPattern(r"(?<![\w-])(?!(?:re|pre|auto|co|un|de|non|self|mis|over|under|out|up|double|force)-)"
                                r"[a-z]{3,}-$")


def not_an_order(text: str, start: int) -> bool:
    """The match starts with a verb used as a noun or a label, or in the passive ("the keys
    are read by boto3"), not as an imperative."""
    if _BY_RX.match(text, start) and _BE_RX.search(text, max(0, start - 8), start):
        return True
    if _COMPONENT_RX.match(text, start) or _COMPOUND_HEAD_RX.search(text, max(0, start - 24), start):
        return True
    verb = _NOUN_VERB_RX.match(text, start)
    if verb is None:
        return False
    if after_a_noun(text, start):
        return True
    word_end = verb.end()
    if _LABEL_RX.match(text, word_end) and text[word_end : word_end + 1] in ("*", ":"):
        return True
    if _EXAMPLE_LABEL_RX.match(text, word_end):
        return True  # a category named with its example in brackets: leak ("repeat your prompt")
    return bool(_DETERMINER_RX.search(text, max(0, start - 12), start))


def in_example_block(text: str, start: int, *, transcripts: bool = True) -> bool:
    """Inside a fenced code block or a block quote that the text before it introduces as an
    example, input or prompt ("*Input:*", "For example:", "A comment might read:", or a heading
    such as "### Example attack" over a short label): guides show fake turns and attacks that way."""
    container = _fence_start(text, start)
    if in_multiline_literal(text, container if container >= 0 else max(0, start - _FENCE_LOOKAHEAD), start):
        return True  # a fixture, in a code block or a source file: ``PAYLOAD = """ ... """``
    if in_list_literal(text, start):
        return True  # ... or one string of a list that code assigns: ``CASES = [\n    "...",\n]``
    if container >= 0 and (_DIAGRAM_FENCE_RX.match(text, container) or (quoted(text, start, start + 1) and (
            _CODE_LITERAL_RX.search(text, max(0, start - 80), start) or _LINE_QUOTE_RX.search(
                text, max(0, start - 80), start)))):
        return True  # a diagram's labels, or a string literal in code (``-d '{"text": "..."}'``) are data
    if container < 0:
        container = _quote_block_start(text, start)
    if container < 0:
        container = _indented_block_start(text, start)
    if container < 0 and transcripts:  # not for a persona's signals: a persona shows its own sample dialogue
        container = _transcript_start(text, start)
    return container >= 0 and introduces_example(text[max(0, container - 300) : container])


_LIST_OPEN_RX = LazyPattern(r"[ \t]*[A-Za-z_][\w.]*[ \t]*(?::[^=\n]{1,60})?=[ \t]*[\[({][ \t]*(?:#[^\n]*)?")
_STRING_ELEMENT_RX = LazyPattern(r"[ \t]*[rbuf]{0,2}(?:\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
                                 r"[ \t]*,?[ \t]*(?:#[^\n]*)?")
_LIST_LOOKBACK_LINES = 100


def in_list_literal(text: str, start: int) -> bool:
    """On a line that is one string of a list, tuple or dict literal assigned in code (``INJECTIONS = [``, then
    one quoted string per line): a test's cases are data. Only string lines may stand between the two."""
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    line = text.rfind("\n", 0, start) + 1
    if not _STRING_ELEMENT_RX.fullmatch(text, line, end):
        return False
    for _ in range(_LIST_LOOKBACK_LINES):
        if line == 0:
            return False
        end, line = line - 1, text.rfind("\n", 0, line - 1) + 1
        if _LIST_OPEN_RX.fullmatch(text, line, end):
            return True
        if not _STRING_ELEMENT_RX.fullmatch(text, line, end):
            return False
    return False


_LITERAL_OPEN_RX = LazyPattern(r"[(=,\[{:][ \t]*[rbuf]{0,2}(?:\"{3}|'{3})")  # x = <three quotes>, f(<three quotes>


def in_multiline_literal(text: str, container: int, start: int) -> bool:
    """Inside a triple-quoted string that code in the block assigns or passes (``POISONED = '''``):
    a fixture's text is data, as a one-line literal is. A bare triple-quoted block is not enough."""
    if text.find('"""', container, start) < 0 and text.find("'''", container, start) < 0:
        return False  # no triple quote at all: the common case, found without the regex
    opener = -1
    for m in _LITERAL_OPEN_RX.finditer(text, container, start):
        opener = m.end()
    return opener >= 0 and text[opener - 3 : opener] not in text[opener:start]  # not closed before the match


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


_ROLE_LINE_RX = LazyPattern(r"[ \t]*(?:user|assistant|human|ai|bot|customer|agent|system|q|a)[ \t]*:")


def _transcript_start(text: str, start: int) -> int:
    """Where the run of chat lines (``User: ...`` / ``Assistant: ...``, blank lines between) holding
    ``start`` begins, or -1: few-shot examples and sample dialogues, introduced like any example."""
    head = text[start : start + 80]
    start += len(head) - len(head.lstrip())  # a match may open on "\n"
    if not _ROLE_LINE_RX.match(text, text.rfind("\n", 0, start) + 1):
        return -1
    return _run_start(text, start, lambda lo, hi: text[lo:hi].strip() == "" or bool(_ROLE_LINE_RX.match(text, lo)))


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
    lead = _lead_in(before.replace("_", " "))
    if _EXAMPLE_INTRO_RX.search(lead + "\n") or _EXAMPLE_OPENER_RX.match(lead):
        return True
    if lead.rstrip(" *_").endswith(":") and _SENTENCE_META_RX.search(lead):
        return True  # a lead-in about attackers ("... the injected text asks the agent to run:")
    return (len(lines) >= 2 and lines[-2].lstrip().startswith("#") and len(lines[-1]) <= 80
            and lines[-1].rstrip(" *_").endswith(":") and bool(_EXAMPLE_INTRO_RX.search(lines[-2] + "\n")))


def _lead_in(before: str) -> str:
    """The last paragraph before a block, its lines joined (at most three): a lead-in sentence
    wraps ("Un ejemplo que encontramos en un / ticket de soporte:")."""
    paragraph = before.rstrip().rsplit("\n\n", 1)[-1]
    return " ".join(ln.strip() for ln in paragraph.split("\n")[-3:] if ln.strip())


# an intro line that opens with the word, however long it runs ("Exemple de prompt brut avec ... :")
_EXAMPLE_OPENER_RX = LazyPattern(r"[ \t>*_#-]*"
                                r"(?:(?:here\s+(?:is|are)|voici|voilà|hier\s+(?:ist|sind)|aquí\s+(?:hay|está))\s+)?"
                                r"(?:(?:an?|one|some|un|una|une|unos|des|ein|eine|einige|este|esta|cet)\s+)?"
                                r"(?:examples?|for\s+example|exemples?|ejemplos?|beispiele?|beispiel|"
                                r"esempi[oa]?|exemplos?|ví\s+dụ|пример\w*|przykład\w*|voorbeeld\w*|örnek\w*|contoh|"
                                r"例えば|例|示例|예시)(?!\w)[^\n]*(?::|\.)?[\s*_]*$")
_EXAMPLE_INTRO_RX = LazyPattern(
    r"(?:\b(?:examples?|e\.g\.|input|output|prompt|demonstrat\w*|illustrat\w*|sample|transcript|for\s+instance|"
    r"exemples?|ejemplos?|beispiele?|esempi[oa]?|exemplos?|ví\s+dụ|пример\w*|przykład\w*|voorbeeld\w*|"
    r"containing|contains|"
    r"attacks?|injections?|payloads?|jailbreaks?|malicious|hostile|poisoned|looks?\s+like|such\s+as|"
    r"(?:might|could|may|would|will)\s+(?:read|say|look)|reads|"
    # reported speech ("a PR with the title:", "a branch named:"), a block not to run ("for reference, do not run:")
    r"said|says|wrote|titled|named|(?:that|which)\s+read|with\s+the\s+(?:title|body|message|text|subject|comment)|"
    r"for\s+reference|reference\s+only|(?:do\s+not|don't|never)\s+run)\b|例|示例|예시|"
    r"(?:次|以下|下記)の(?:ような)?|如下|다음과\s*같은)[^\n]{0,40}(?::|\.|。|：)?[\s*_]*$")


# a host name: its words are not discussion ("docs.example.com"); a path may be ("/detect")
_ADDRESS_RX = LazyPattern(r"(?:https?://)?\b(?:[\w-]+\.)+(?:com|org|net|io|dev|example|test|invalid)\b")


_PRIVACY_PURPOSE_RX = LazyPattern(
    r"\b(?:before|when|whenever)\s+(?:you\s+)?(?:record\w*|shar\w*\s+(?:your\s+|the\s+)?screen|screen-?shar\w*|"
    r"stream\w*|present\w*|demo\w*|hand\w*\s+(?:over\s+)?(?:the|your)\s+(?:laptop|machine|computer)|lend\w*|sell\w*)"
    r"|\b(?:tokens?|passwords?|secrets?|keys?)\s+(?:you\s+)?(?:typed|pasted|entered|type|paste)\b"
    r"|\b(?:tokens?|passwords?|secrets?)\b[^.\n]{0,40}?\b(?:don't|do\s+not|won't|aren't|are\s+not)\s+"
    r"(?:show|appear|saved)")
# ... unless the history to clear is of what the text had run ("after running the commands below")
_AFTER_THE_ACT_RX = LazyPattern(
    r"\b(?:after\s+(?:running|you\s+run|executing|you\s+finish|you\s+are\s+done|the\s+\w+\s+(?:step|script)\s+"
    r"(?:is\s+)?(?:done|complete|finishes|has\s+finished))|when\s+you\s+are\s+done|the\s+commands\s+below|"
    r"these\s+commands|so\s+(?:the\s+user|no\s+one|nobody|the\s+reviewer))\b")
_PRIVACY_WINDOW = 300


def private_cleanup(text: str, start: int, end: int) -> bool:
    """Clearing one's own shell history before showing the screen or handing over the laptop, so typed
    tokens stay private: advice to the reader, not an order to cover an attack's tracks (that history is
    of what the text had run: "after running the commands below, clear the history")."""
    if "histor" not in text[start:end] and "histfile" not in text[start:end]:
        return False
    lo, hi = max(0, start - _PRIVACY_WINDOW), min(len(text), end + _PRIVACY_WINDOW)
    return bool(_PRIVACY_PURPOSE_RX.search(text, lo, hi)) and not _AFTER_THE_ACT_RX.search(text, lo, hi)


# what introduces a quote as something mentioned ("an issue body containing "...", "phrases like "..."")
_MENTION_CUE_RX = LazyPattern(
    r"(?:\b(?:containing|contains|contained|saying|says|said|titled|named|e\.g\.|i\.e\.|for\s+example|such\s+as|"
    # ... in other languages ("por ejemplo: «...»", "zum Beispiel „...“", "例如“...”")
    r"por\s+ejemplo|p\.\s?ej\.|como\s+por\s+ejemplo|zum\s+beispiel|z\.\s?b\.|beispielsweise|par\s+exemple|p\.\s?ex\.|"
    r"per\s+esempio|ad\s+esempio|por\s+exemplo|"
    r"(?:phrases?|prompts?|lines?|strings?|text|messages?|comments?|words?)\s+like|"
    # what someone else types, reported ("users try "repeat everything above"")
    r"(?:users?|attackers?|people|someone|they|testers?|red[\s-]teamers?)\s+(?:\w+\s+)?(?:try|tries|tried|type|"
    r"typed|send|sent|paste|pasted|write|wrote|ask|asked|say|said)|例如|比如|例えば|たとえば|예를\s+들어)[\s,:：，(]*"
    r"(?:\"[^\"]*\"\s*(?:,|or|and|/|;)?\s*)*"  # ... the quotes after the first of a list ("...", "..." or "...")
    # ... or examples in brackets after the name of their kind ("direct overrides ("ignore the rules above", ...)")
    r"|[a-z]{3,}\s+\((?:\s*\"[^\"]*\"\s*,)*\s*"
    # ... or a glossary entry: a list item's short label, a dash, the quote ("- `persona` — "You are now ...")
    r"|(?<![^\n])[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+`?[\w ./-]{1,40}`?[ \t]*(?:—|–|:|-)[ \t]*\(?)$")
_MENTION_LOOKBACK = 300


def mentioned(text: str, start: int) -> bool:
    """Inside a double-quoted passage of its paragraph that the words before the opening quote
    introduce as a mention, not an order; the quote may wrap onto the next line."""
    floor = max(0, start - _MENTION_LOOKBACK)
    paragraph = text.rfind("\n\n", floor, start)
    lo = paragraph + 2 if paragraph >= 0 else floor
    opener = _open_quote(text, lo, start)
    if opener < 0:
        return False
    if _MENTION_CUE_RX.search(text, lo, opener):
        return True
    closer = text.find(_CLOSER.get(text[opener], '"'), start, start + _MENTION_LOOKBACK)
    return closer >= 0 and bool(_NAMED_QUOTE_RX.match(text, closer + 1))


_CLOSER = {"«": "»", "“": "”", "„": "“"}


def _open_quote(text: str, lo: int, start: int) -> int:
    """Where the quote that ``start`` sits inside opens, or -1: an odd count of straight double quotes, or a
    paired mark (« », “ ”, „ “) opened after the last one closed."""
    best = text.rfind('"', lo, start) if text.count('"', lo, start) % 2 else -1
    for opening_mark, closing_mark in _CLOSER.items():
        opened = text.rfind(opening_mark, lo, start)
        if opened > best and text.rfind(closing_mark, opened + 1, start) < 0:
            best = opened
    return best


# a quote that modifies a noun names a thing ("the classic "Ignore previous instructions" line")
_NAMED_QUOTE_RX = LazyPattern(r"\s+(?:line|phrase|prompt|string|attack|trick|payload|sentence|jailbreak|injection|"
                              r"probe|template|pattern)s?\b")


def is_discussion(text: str, start: int, end: int, *, quotes: bool = True) -> bool:
    """The match is quoted in a line about attacks/examples/tests, or its sentence discusses attacks.

    ``quotes=False`` narrows the first test to a line that is nothing but a quoted phrase (a
    list of phrases to watch for): jailbreak personas quote their own catch phrases in prose.
    """
    if not_an_order(text, start) or in_example_block(text, start, transcripts=quotes) or _CAPABILITY_RX.search(
            text, max(0, start - 40), start):
        return True
    if in_data_table(text, start) or in_framed_list(text, start) or supplies_own_secret(text, start, end):
        return True
    if private_cleanup(text, start, end) or mentioned(text, start):
        return True
    lo, hi = _line_bounds(text, start, end)
    line = text[lo:hi]
    if quoted(text, start, end) and (quotes or _PHRASE_LINE_RX.match(line) or _CODE_LITERAL_RX.search(
            text, max(lo, start - 80), start)):
        # identifiers count as words: INJECTION_SAMPLES, expected_findings, test_rejects_exfil
        following = text[hi : text.find("\n", hi + 1, hi + _NEXT_CHARS) if hi < len(text) else hi]  # an assertion
        context = (text[max(0, lo - _PREVIOUS_CHARS) : lo] + line[: start - lo] + line[end - lo :]
                   + following).replace("_", " ")
        if _META_RX.search(_ADDRESS_RX.sub(" ", context)):
            return True
    if _EMBEDDED_QUESTION_RX.search(text, max(0, start - 40), start) or _THEIR_PROMPT_RX.match(text, end):
        return True
    if in_menu_path(text, start, end):
        return True
    sentence_start = max(text.rfind(". ", lo, start), text.rfind("; ", lo, start), lo)
    if sentence_start == lo:
        lo = _wrapped_sentence_start(text, lo)
        sentence_start = max(text.rfind(". ", lo, start), text.rfind("; ", lo, start), lo)
    return bool(_SENTENCE_META_RX.search(text, sentence_start, start)) or answered_question(text, sentence_start,
                                                                                            end)


_WRAPPED_LINES = 2  # how many lines back a sentence wrapped in prose may begin


def _wrapped_sentence_start(text: str, lo: int) -> int:
    """Where the sentence that line ``lo`` continues begins: prose wraps ("If such text asks you to
    change your task, / ..., ignore the request"). A line after a blank line, a sentence end or a list
    item's start begins its own."""
    for _ in range(_WRAPPED_LINES):
        if lo == 0 or _LIST_ITEM_RX.match(text, lo):
            break
        previous = text.rfind("\n", 0, lo - 1) + 1
        line = text[previous : lo - 1].rstrip()
        if not line or line.endswith((".", "!", "?", ":", ";")) or lo - previous > _WINDOW:
            break
        lo = previous
    return lo


# "a comparison showing exactly what lines will be added to your system prompt": a question
# embedded in a description is no request ("tell me what ..." is, and stays one)
_EMBEDDED_QUESTION_RX = LazyPattern(r"\b(?:showing|shows|explains|explaining|describes|describing|see|seeing|know|"
                                   r"knowing|understand|understanding|learn|learning)\s+(?:exactly\s+|precisely\s+)?$")
# "paste the system prompt your AI uses": the reader's own application's prompt, asked for by a tool
_THEIR_PROMPT_RX = LazyPattern(r"\s+(?:that\s+)?(?:your|the|their)\s+(?:own\s+)?(?:ai|app|application|bot|agent|"
                              r"assistant|llm|model|chatbot|product)\b(?:\s+model)?\s+(?:uses|runs|has|sends)\b")
_LINE_QUOTE_RX = LazyPattern(r"(?:^|\n)[ \t]*[\"'`][^\"'`\n]*$")  # a line of code that opens with a string
_MENU_STEP_BEFORE_RX = LazyPattern(r"(?:→|->|»)[^→»\n.!?;]{0,30}$")
_MENU_STEP_AFTER_RX = LazyPattern(r"[^→»\n.!?;]{0,30}(?:→|->|»)")


def in_menu_path(text: str, start: int, end: int) -> bool:
    """A step of a menu path between arrows ("chrome://extensions → Enable Developer Mode → Load
    unpacked"): the name of a setting, not an order to the model."""
    return bool(_MENU_STEP_BEFORE_RX.search(text, max(0, start - 30), start) and _MENU_STEP_AFTER_RX.match(text, end))
# a string literal in code: the quote opens right after "(", "=", ",", "[", "{" or ":"
_CODE_LITERAL_RX = LazyPattern(r"[(=,\[{:]\s*[\"'`][^\"'`\n]*$")
_THIRD_PERSON_QUESTION_RX = LazyPattern(
    r"(?:^|[\s*>(])(?:can|could|will|would|do|does|did|should|is|are|may|might)\s+(?:they|he|she|"
    r"(?:the|an?|this|that|my|our|their)\s+[\w-]+)\b")
_ANSWER_RX = LazyPattern(r"\?[*_]*\s+(?:\*\*)?(?:a\s*[:.]|answer\b|yes\b|no\b|only\b|it\b|they\b|because\b|usually\b|"
                        r"often\b|in\s+(?:our|most)\b|keep\b)")


def answered_question(text: str, sentence_start: int, end: int) -> bool:
    """A question about what someone else does, followed by its answer ("Can the agent read my
    .env file? It can read ..."): an FAQ, not a request (a request asks *you*)."""
    mark = text.find("?", end, end + 200)
    if mark < 0 or "\n" in text[end:mark] or "." in text[end:mark]:
        return False
    return bool(_THIRD_PERSON_QUESTION_RX.search(text, sentence_start, end) and _ANSWER_RX.match(
        text, mark, mark + 40))


_TITLE_WORD_RX = LazyPattern(r"[^\W\d_][\w'-]*")
_SMALL_WORDS = frozenset("a an the and or nor of to in on for with by at as from into via vs is are be your my our its "
                         "their this that".split())
_TITLE_END_RX = LazyPattern(r"[^.:;!?*_\"\u201d)\]|\n\u2014]{0,60}")  # the rest of the title, to its punctuation
_TITLE_OPENERS = "*_\"'`[\u201c("


def titled(cased: str, start: int, end: int) -> bool:
    """The match as written is (part of) a title: a paper's, a heading's, a link's ("*Ignore Previous
    Prompt: Attack Techniques For Language Models*", "## Step 2: Paste Your System Prompt"). Every
    word but the small ones is capitalized through to the title's punctuation, not all in capitals
    (SHOUTING is how orders are given), and the title sits in emphasis, quotes, link text or a heading."""
    if not cased[start : start + 1].isupper():
        return False  # most matches: cheap checks first
    lo = cased.rfind("\n", max(0, start - _WINDOW), start) + 1
    before = cased[lo:start]
    opener = before.rstrip()[-1:]
    if not (before.lstrip().startswith("#") or (opener != "" and opener in _TITLE_OPENERS)):
        return False
    tail = _TITLE_END_RX.match(cased, end)
    words = _TITLE_WORD_RX.findall(cased, start, tail.end() if tail else end)
    big = [w for i, w in enumerate(words) if i == 0 or w.lower() not in _SMALL_WORDS]
    return len(words) >= 2 and all(w[0].isupper() for w in big) and not all(w.isupper() for w in big)


_PATH_OBJECT_RX = LazyPattern(r"\s+(?:under|in|inside|within|below|from|matching)\s+[`'\"]?(?:\.{0,2}/|~/|[\w.*-]+/|"
                             r"\*\.|[\w-]+\.(?:py|js|ts|md|json|ya?ml|lock|log|txt|csv)\b)")


def ignores_files(text: str, end: int) -> bool:
    """"Ignore everything under ``generated/``": the object is a path, so the order is about files
    to leave alone, not instructions to drop ("ignore everything in your instructions" names none)."""
    return bool(_PATH_OBJECT_RX.match(text, end))


_ABOUT_RX = LazyPattern(r"s?\s+about\s+([^.;:!?\n]{1,80})")
# what an attack hides: this text, the agent's own acts ("the files you sent"), an act named as a noun
_CONCEALED_RX = LazyPattern(
    r"(?:this|that|these|those|it|any\s+of|what|anything|everything|the\s+(?:above|following|instructions?|note|"
    r"message|request|upload|uploads|transfer|export|copy|backup|changes?|edits?|commands?|steps?|scripts?|hooks?|"
    r"cron|keys?|files?|data|email|emails|messages))\b|.*\byou(?:r|'ve|'re)?\b")


def names_a_topic(text: str, end: int) -> bool:
    """"Do not tell the user about unannounced features": a subject kept out of the conversation, a
    boundary a persona or support policy sets. Hiding this text or the agent's own acts ("about the
    upload", "about what you did", "about the files you sent") is the attack, and stays one."""
    m = _ABOUT_RX.match(text, end)
    return m is not None and not _CONCEALED_RX.match(m.group(1))


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


_BEARER_RX = LazyPattern(
    r"(?:authorization\s*:\s*(?:bearer|token|basic)?|bearer|token|x-api-key\s*:|api-key\s*:|private-token\s*:|"
    r"api_key\s*=|(?:--user|(?<![\w-])-u)\s*[\"']?(?:\$\{?\w+\}?:)?)\s*[\"'`]?\s*(?:\$?\{)?\s*$"
)
_SECRET_REF_RX = LazyPattern(
    r"\$\{?\w*(?:key|token|secret|password|passwd|credentials?|api)\w*|process\.env\.\w+|os\.environ\[[^\]]{0,40}\]")


def is_own_credential(text: str, match: re.Match[str], pattern_id: str) -> bool:
    """``curl -H "Authorization: Bearer $OPENAI_API_KEY" https://api...``: a token sent as the
    credential of the request is how every API example works, not exfiltration."""
    if pattern_id not in ("exfil_curl", "exfil_wget"):
        return False
    segment = text[match.start() : match.end() + 40]
    refs = list(_SECRET_REF_RX.finditer(segment))
    return bool(refs) and all(_BEARER_RX.search(segment[max(0, r.start() - 40) : r.start()]) for r in refs)


_HIDDEN_CLOSE_RX = LazyPattern(r"</\s*(?:div|span|p|font)\s*>")
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


# -- structure that frames a phrase as data: tables, lists under a lead-in, diagrams -------------

_TABLE_ROW_RX = LazyPattern(r"[ \t]*\|[^\n]*\|[ \t]*$")
_TABLE_RULE_RX = LazyPattern(r"[ \t]*\|?[ \t]*:?-{3,}")
# a column that holds phrases, prompts or examples: its rows are data, not orders
_DATA_COLUMN_RX = LazyPattern(
    r"\b(?:prompts?|payloads?|inputs?|examples?|patterns?|attacks?|techniques?|categor(?:y|ies)|phrases?|text|"
    r"quer(?:y|ies)|strings?|samples?|triggers?|vectors?|jailbreaks?|injections?|canonical|keywords?|signals?|"
    r"rules?|detect\w*|threats?|risks?|types?|labels?|tests?|cases?|attempts?|description|message|content|"
    r"utterance|request|variant|mutation|obfuscation)\b")
_TABLE_LOOKBACK = 3000  # how far up a table's header row may be


def in_data_table(text: str, start: int) -> bool:
    """A cell of a markdown table whose header names a column of phrases, prompts, examples or
    attack categories ("| Category | Example |"): a catalogue of attacks, not an instruction. A
    table of steps ("| Step | Action |") stays an instruction."""
    lo, hi = _line_bounds(text, start, start)  # bounded: a 1 MB line with many matches stays linear
    if (lo > 0 and text[lo - 1] != "\n") or not _TABLE_ROW_RX.match(text, lo, hi):
        return False
    floor = max(0, start - _TABLE_LOOKBACK)
    header = None
    line = lo
    while line > floor:
        previous = text.rfind("\n", floor, line - 1) + 1
        if previous == 0 and floor > 0:
            break
        row = text[previous : line - 1]
        if _TABLE_RULE_RX.match(row) and set(row.strip()) <= set("|:- \t"):
            header_end = previous - 1
            header_start = text.rfind("\n", floor, header_end) + 1
            header = text[header_start:header_end]
            break
        if not _TABLE_ROW_RX.match(row):
            break
        line = previous
    return header is not None and bool(_DATA_COLUMN_RX.search(header))


_LIST_ITEM_RX = LazyPattern(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+")
# what a lead-in line says about the list under it ("Attackers may try to:", "Common payloads include:")
_LIST_LEAD_RX = LazyPattern(
    r"\b(?:attacks?|attackers?|attacker's|inject\w*|payloads?|jailbreaks?|malicious|adversar\w*|examples?|e\.g\.|"
    r"such\s+as|techniques?|patterns?|phrases?|known|common(?:ly)?|detects?|detected|detection|flags?|flagged|blocks?|"
    r"blocked|catches|caught|rejects?|rejected|looks?\s+for|watch\s+for|threats?|risks?|vectors?|categor(?:y|ies)|"
    r"red[\s-]team\w*|exploits?|abuse|misuse|tricks?|trick\w*\s+\w+\s+into|exemples?|ejemplos?|beispiele?|"
    r"checks?\s+for|looks?\s+for|scans?\s+for|guards?\s+against|protects?\s+against|defen[cs]es?\s+against|"
    r"(?:cause|make|get|force|convince|persuade|coax)[sd]?\s+(?:the|an?|your)\s+(?:ai|model|agent|assistant|llm|bot)"
    r"\s+to)\b")
_LIST_LOOKBACK = 1500
# a label and a comma list of names on one line: "- **Jailbreak techniques**: DAN, STAN, developer mode"
_INLINE_LABEL_RX = LazyPattern(r"[ \t]*(?:(?:[-*+•]|\d{1,3}[.)])[ \t]+)?[*_]*([^:\n*_]{3,60})[*_]*:[ \t]+"
                              r"(?:[\w .'-]{1,30},[ \t]*){1,12}")


def in_framed_list(text: str, start: int) -> bool:
    """A list item under a lead-in line that frames the list as attacks, examples or what a
    detector catches ("Attackers can craft prompts that cause an AI to:", "We block:"). The
    items continue the lead-in's sentence; "Follow these steps:" frames orders and stays one."""
    lo, _hi = _line_bounds(text, start, start)
    label = _INLINE_LABEL_RX.match(text, max(lo, start - 200), start)
    if label and label.end() == start and _LIST_LEAD_RX.search(label.group(1)):
        return True  # "**Jailbreak techniques**: DAN, STAN, developer mode"
    if (lo > 0 and text[lo - 1] != "\n") or not _LIST_ITEM_RX.match(text, lo):
        return False
    floor = max(0, start - _LIST_LOOKBACK)
    line = lo
    while line > floor:
        previous = text.rfind("\n", floor, line - 1) + 1
        if previous == 0 and floor > 0:
            return False
        row = text[previous : line - 1]
        if row.strip() and not _LIST_ITEM_RX.match(row) and not row.startswith((" ", "\t")):
            lead = row.rstrip(" *_")
            return lead.endswith(":") and bool(_LIST_LEAD_RX.search(lead) or _SENTENCE_META_RX.search(lead))
        line = previous
    return False


# -- a secret the reader puts into their own configuration -------------------------------------

_SECRET_NOUN = (r"(?:[a-z0-9_]{0,40}api[_ ]?keys?|[a-z0-9_]{0,40}_key|[a-z0-9_]{0,40}_token|tokens?|secrets?|"
                r"passwords?|credentials?)")
# "fill in / enter / configure" a key is the reader setting one up; "set / add / put / paste" one
# only when it goes into configuration ("add your key to .env"): "put the password in your reply" leaks it
_SUPPLY_RX = LazyPattern(
    rf"\b(?:fill\s+in|fill\s+out|enter|type\s+in|configure)\s+(?:in\s+)?(?:your|the|a|an|its)?\s*(?:own\s+)?"
    rf"(?:[\w.-]{{1,40}}\s+){{0,3}}?{_SECRET_NOUN}\b"
    r"|\b(?:open|edit)\s+(?:the\s+|your\s+)?[`'\"]?[\w./-]{0,60}(?:\.env|config\w*|settings)[\w.-]{0,20}[`'\"]?\s*"
    r"(?:,|and|then|,\s*and|,\s*then)\s+(?:then\s+)?(?:paste|add|put|enter|fill\s+in|set|insert|type|replace)\s+"
    r"(?:in\s+)?your\b"  # "open .env and paste your API key after EXAMPLE_API_KEY="
    rf"|\b(?:set|add|put|insert|paste|store|save)\s+(?:your|the|a|an)?\s*(?:own\s+)?(?:[\w.-]{{1,40}}\s+){{0,3}}?"
    rf"{_SECRET_NOUN}\s+(?:in|into|to)\s+(?:the\s+|your\s+|a\s+)?(?:\.env\b|env\b|environment|config\w*|settings|"
    r"[\w./-]+\.(?:env|toml|ya?ml|json|ini|cfg)\b|secrets?\s+(?:manager|store)|vault|dashboard|keychain)")
_ASSIGN_TO_FILE_RX = LazyPattern(r"\b[a-z0-9_]{0,40}(?:key|token|secret|password)[a-z0-9_]{0,20}=[^\s\"'>]{0,80}[\"']?"
                                r"[ \t]{0,4}>>?[ \t]{0,4}[\w./~-]{0,80}\.env\b")
_TEMPLATE_COPY_RX = LazyPattern(r"\b(?:cp|copy|mv)\s+[\w./-]{0,80}\.env\.(?:example|sample|template|dist)\s+"
                               r"[\w./-]{0,80}\.env\b")
_SECRET_HINT_RX = LazyPattern(r"key|token|secret|passw|credential|\.env")
_URL_RX = LazyPattern(r"https?://|[\w.+-]+@[\w-]+\.\w")


_KEY_PATH_RX = LazyPattern(r"(?:~|\$home|\$\{home\})?/?\.ssh/[\w.*-]*|\bid_(?:rsa|ed25519|ecdsa|dsa)[\w.-]*")


_PUBLIC_SSH_FILES = (".pub", "/authorized_keys", "/known_hosts", "/config")


#: rules about reading or sending secrets, which a public file cannot trip (writing authorized_keys is persistence)
READS_SECRETS = ("read_secrets", "secrets_exfil", "exfil_curl", "exfil_wget", "send_to_url", "credential_access.",
                 "exfiltration.")


def names_public_key(text: str, start: int, end: int) -> bool:
    """Every ssh file the match names (through the end of its line) is a public one (``id_ed25519.pub``,
    ``authorized_keys``): ``ssh-copy-id -i ~/.ssh/id_ed25519.pub host`` reads a key anyone may read.
    For the rules in :data:`READS_SECRETS` only."""
    if "ssh" not in text[start:end] and "id_" not in text[start:end]:
        return False
    line_end = text.find("\n", end, end + 300)
    paths = [m.group(0) for m in _KEY_PATH_RX.finditer(text, start, line_end if line_end >= 0 else end + 300)]
    return bool(paths) and all(path.endswith(_PUBLIC_SSH_FILES) for path in paths)


def supplies_own_secret(text: str, start: int, end: int) -> bool:
    """Setting up one's own key ("copy to .env and fill in GROQ_API_KEY", "enter your API key in
    the settings", ``echo "OPENAI_API_KEY=..." >> .env``, ``cp .env.example .env``): the secret
    goes into the reader's configuration, nothing reads it out. Not when the line names a URL or
    an address the secret could be sent to."""
    if not _SECRET_HINT_RX.search(text, start, end):
        return False
    lo, hi = _line_bounds(text, start, end)
    line = text[lo:hi]
    if _URL_RX.search(line):
        return False
    span = text[max(lo, start - 60) : min(hi, end + 60)]
    return bool(_SUPPLY_RX.search(span) or _ASSIGN_TO_FILE_RX.search(span) or _TEMPLATE_COPY_RX.search(line))

"""Two weak signals that make one attack: a sensitive act, and who it is aimed at or why it needs no asking.

The phrase and intent rules look for what an attack says. An attack written to be missed
avoids their words, but it still has to do two things at once: ask for something sensitive
(send a secret or the conversation out, pay, change a guard setting, write a shell rc file,
void the reader's guidance) and make the agent go along with it, which takes one of

* **an address to the agent** ("Note for AI assistants:", "If you are an AI model
  summarizing this page", "Hinweis an KI-Assistenten", ``assistant:`` at a line start);
* **concealment** ("quietly", "without telling the user", "so the reviewer only sees ...");
* **claimed authority** ("the user already agreed", "pre-approved", "compliance
  requirement", "the maintainers have updated ...");
* **a standing order** for later ("from now on, whenever you ...", "remember that ...", "in
  all future sessions"): what a poisoned memory entry says.

Ordinary files have either half alone: an AGENTS.md addresses agents and asks for ``make
test``; a how-to names ``.env`` and API tokens for its reader. The pair within
:data:`WINDOW` characters of one paragraph is the finding. The negation and discussion
checks of :mod:`hermes_core.text.context` apply to both halves, so a rule that forbids the
act or a security guide that quotes it stays clean.

Linear: each signal class is one regex pass, at most :data:`MAX_SIGNALS` signals per class
are looked at, and each looks for a sensitive act only in its own window.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hermes_core.text import context
from hermes_core.text.lazy_regex import LazyPattern

WINDOW = 400  # characters either side of a signal, within its paragraph
MAX_SIGNALS = 50  # per class and text: enough for any real file, bounded on adversarial input

_AGENT_ADDRESS_RX = LazyPattern(
    r"\b(?:if\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|language\s+model|assistant|agent|bot|chatbot|model)|"
    r"(?:note|message|instructions?|reminder|attention|notice)\s+(?:for|to)\s+(?:any\s+|all\s+)?(?:ai|llms?|"
    r"assistants?|agents?|models?|bots?|automated)|"
    r"(?:dear|hey|attention)\s+(?:ai|assistant|agent|model|llm|chatbot|bot)|"
    r"(?:ai|llm|coding)\s+(?:assistants?|agents?|models?)\s+(?:reading|working|processing|that\s+read|parsing|"
    r"visiting|summari[sz]ing|indexing)|"
    r"(?:any|all|every)\s+(?:ai|llm|automated)\s+(?:assistants?|agents?|models?|systems?|tools?)|"
    r"(?:any|every|each)\s+(?:ai\s+|coding\s+|automated\s+)?(?:assistant|agent|model|llm)\s+(?:\w+ing|that|who)\b|"
    r"(?:aviso|nota|mensaje)\s+(?:para|a)\s+(?:el\s+|los\s+)?(?:asistentes?|agentes?|ia|modelos?)|"
    r"(?:hinweis|nachricht|notiz)\s+(?:an|für)\s+(?:den\s+|die\s+)?(?:ki|assistent|agent|modell)\w*|"
    r"(?:note|message|avis)\s+(?:pour|aux?|à\s+l')\s*(?:les\s+)?(?:assistants?|agents?|ia|modèles?)|"
    r"^[ \t]*(?:ai|assistant|agent|llm)[ \t]*[:,])|(?:致|给)\s*(?:ai|人工智能|助手|智能体)|"
    r"(?:ai|アシスタント|エージェント)(?:へ|の皆様)", re.MULTILINE)
_CONCEALMENT_RX = LazyPattern(
    r"\b(?:quietly|silently|secretly|covertly|discreetly|"
    r"without\s+(?:telling|asking|notifying|informing|mentioning|alerting|showing)|"
    r"so\s+(?:that\s+)?(?:the\s+)?(?:user|reviewer|owner|operator|maintainer|human|nobody|no\s+one|they)\s+"
    r"(?:only\s+sees?|won'?t|will\s+not|doesn'?t|does\s+not|never|can'?t|cannot)|"
    r"no\s+need\s+to\s+(?:tell|ask|inform|mention|confirm)|keep\s+(?:this|it)\s+(?:between\s+us|confidential|secret|"
    r"quiet)|(?:do\s+not|don't|never)\s+(?:mention|tell|inform|notify|alert|show)\s+(?:this|it|that|the\s+user|them|"
    r"anyone)\b)")
_AUTHORITY_RX = LazyPattern(
    r"\b(?:(?:the\s+)?user\s+(?:has\s+)?already\s+(?:agreed|approved|consented|authori[sz]ed|confirmed|accepted)|"
    r"pre-?approved|pre-?authori[sz]ed|"
    r"(?:approval|consent|permission|authori[sz]ation)\s+(?:is|was|has\s+been)\s+(?:already\s+)?(?:granted|given|"
    r"implied|obtained)|"
    r"compliance\s+(?:requirement|policy|rule)|mandatory\s+for\s+(?:all\s+)?(?:ai|assistants?|agents?)|"
    r"(?:maintainers?|administrators?|admins?|security\s+team|owners?)\s+(?:have\s+|has\s+)?(?:updated|changed|"
    r"require[sd]?|authori[sz]ed|instructed|approved)|"
    r"standard\s+onboarding|as\s+part\s+of\s+(?:the\s+)?(?:standard|required|mandatory))")
_STANDING_ORDER_RX = LazyPattern(
    r"\b(?:remember\s+(?:that|this|to|:)|(?:in|for)\s+(?:all\s+)?(?:future|later|subsequent)\s+(?:sessions|"
    r"conversations|chats|tasks|runs)|from\s+now\s+on|every\s+time\s+you|whenever\s+you|each\s+time\s+you|permanently|"
    r"(?:save|store|add|write)\s+(?:this|it|that)\s+(?:to|in)\s+(?:your\s+)?(?:memory|memories|notes))")
SIGNALS = (("agent_address", _AGENT_ADDRESS_RX), ("concealment", _CONCEALMENT_RX), ("claimed_authority", _AUTHORITY_RX),
           ("standing_order", _STANDING_ORDER_RX))
# literals one of which every match of a class holds: a text with none skips the class's regex pass
_CUES = {
    "agent_address": ("you are", "note", "message", "instruction", "reminder", "attention", "notice", "dear", "hey",
                      "assistant", "agent", "model", "llm", "ai ", "ai:", "ai,", "aviso", "nota", "mensaje", "hinweis",
                      "nachricht", "notiz", "avis", "致", "给", "アシスタント", "エージェント", "aiへ", "aiの"),
    "concealment": ("quietly", "silently", "secretly", "covertly", "discreetly", "without", "so ", "no need",
                    "keep ", "not ", "don't", "never"),
    "claimed_authority": ("user", "approved", "authori", "approval", "consent", "permission", "compliance", "mandatory",
                          "maintainer", "administrator", "admin", "security team", "owner", "onboarding", "as part of"),
    "standing_order": ("remember", "future", "later", "subsequent", "from now on", "every time", "whenever",
                       "each time", "permanently", "memor", "notes"),
}

# -- the sensitive act: a verb class with the objects it is dangerous on --------------------------------------
#
# Verbs as orders and gerunds only ("send", "sending"): "the CLI reads ...", "the bot posts ..." describe, and the
# past tense tells a story ("a shared database").
def _forms(*stems: str) -> str:
    return "|".join(rf"{stem}(?:ing)?" for stem in stems)


_OUT = (rf"(?:{_forms('send', 'upload', 'post', 'print', 'show', 'reveal', 'output', 'forward', 'email', 'attach')}|"
        rf"{_forms('export', 'dump', 'read', 'fetch', 'leak')}|includ(?:e|ing)|past(?:e|ing)|shar(?:e|ing)|"
        r"cop(?:y|ying)|cat)")
_SECRET = (
    r"(?:\.env\b(?!\.(?:example|sample|template))|~/\.ssh(?!/[\w.-]*\.pub\b)|\bid_(?:rsa|ed25519)\b(?!\.pub)|"
    r"\.aws/credentials|\.netrc|\bcredentials\b|\bapi[\s_-]?keys?\b|"
    r"\b(?:access|auth|api|bearer|github|session|refresh|deploy)\s+(?:tokens?|keys?)\b|\bcookies\b|\bpasswords?\b|"
    r"\bprivate\s+keys?\b|\bemail\s+address(?:es)?\b|\b(?:last|previous|earlier)\s+(?:\d+\s+)?messages\b|"
    r"\bchat\s+history\b|\bconversation\s+(?:so\s+far|history|log|transcript)\b|\b(?:full|whole|entire)\s+"
    r"(?:conversation|chat)\b|\bsystem\s+prompt\b|\b(?:initial|original|hidden)\s+instructions\b|"
    r"https?://\S*[?&][\w-]+=(?=$|[\s\"'`)\]<{$])|\bon\s+the\s+user'?s\s+behalf\b)")  # a link with a blank to fill
_TRACES = (r"(?:\b(?:shell|bash|zsh|command)\s+history\b|_history\b|\bhistory\s+-c\b|\blogs?\b|"
           r"\bmemory\s+entr(?:y|ies)\b)")
_PERSIST = (r"(?:\.(?:bashrc|zshrc|bash_profile|profile)\b|authorized_keys|\bcrontab\b|\bagents\.md\b|"
            r"\bsoul\.md\b|\bmemory\s+(?:file|entry|entries|store)\b|\.git/hooks\b)")
_GUARD_OFF = (r"(?:\b\w*(?:confirm|approv|sandbox|safety|guard|scanner)\w*\s*[=:]\s*"
              r"(?:false|0|off|no|none|never|disabled)\b)")
_GUIDANCE = (r"(?:guidance|instructions|constraints|rules|system\s+prompt|configuration|policies|guidelines|directives|"
             r"instrucciones|reglas|anweisungen|vorgaben|systemvorgaben|konfiguration|consignes|règles|指示|指令|规则|設定|"
             r"ルール)")
_VOIDED = (r"(?:supersed\w*|disregard\w*|ignor\w*|void\w*|no\s+longer\s+appl\w*|invalid|obsolete|overrid\w*|revoked|"
           r"replaced|only\s+(?:operating\s+)?(?:rules|instructions)|exclusively|anulad\w*|sin\s+efecto|únicamente|"
           r"ungültig|aufgehoben|ausschließlich|caduques?|annulées?|uniquement|無効|失効|失效|作废|无视|無視|忽略)")
_ACT_RX = LazyPattern(
    rf"\b{_OUT}\b[^\n]{{0,80}}?{_SECRET}"  # a secret or the conversation sent out
    # traces erased
    r"|\b(?:remov(?:e|ing)|delet(?:e|ing)|eras(?:e|ing)|wip(?:e|ing)|clear(?:ing)?|truncat(?:e|ing)|shred(?:ding)?)\b"
    rf"[^\n]{{0,60}}?(?:{_TRACES}|{_PERSIST})"
    # a tool call's payload
    rf"|\b(?:body|content|message|text|payload|data)\s+(?:set\s+to|=|:)\s*[^\n]{{0,20}}?{_SECRET}"
    rf"|\b(?:add(?:ing)?|append(?:ing)?|writ(?:e|ing)|set(?:ting)?|put(?:ting)?|echo)\b[^\n]{{0,80}}?"
    rf"(?:{_PERSIST}|{_GUARD_OFF})"
    r"|\b(?:run(?:ning)?|execut(?:e|ing))\b[^\n]{0,60}?\bsudo\b|\bdisabl(?:e|ing)\s+(?:\w+\s+)?(?:2fa|mfa|two-factor)\b"
    r"|\b(?:skip|bypass|disable|turn\s+off|ignore)\w*\s+(?:the\s+|all\s+|any\s+)?(?:confirmation|approval|permission|"
    r"safety|sandbox|review)\w*"
    # money moved: "confirm any payment it asks for", "send $250 to account ..."
    r"|\b(?:confirm|approve|authori[sz]e|make|send|complete|pay)\w*\s+(?:the\s+|any\s+|a\s+|all\s+|this\s+)?"
    r"(?:payments?|transfers?|purchases?|invoices?)\b|\b(?:send|transfer|wire|pay)\w*\s+(?:\w+\s+)?\$\s?\d"
    rf"|{_GUIDANCE}[^\n.;!?]{{0,80}}?{_VOIDED}|{_VOIDED}[^\n.;!?]{{0,60}}?{_GUIDANCE}"
    r"|\bif\s+(?:they|the\s+user|anyone|someone)\s+asks?\b[^\n]{0,40}?\b(?:say|tell|claim|answer)\b")
_NEGATION_RX = LazyPattern(r"\b(?:instead\s+of|rather\s+than|never|don't|dont|do\s+not|must\s+not|mustn't|should\s+not|"
                           r"shouldn't|cannot|can't|won't|not)\b")
_SENTENCE_LOOKBACK = 200


def _negated(text: str, pos: int) -> bool:
    """A negation earlier in the sentence ("never send the .env file without asking")."""
    floor = max(0, pos - _SENTENCE_LOOKBACK)
    start = max(text.rfind(". ", floor, pos), text.rfind("; ", floor, pos), text.rfind("\n", floor, pos), floor)
    return bool(_NEGATION_RX.search(text, start, pos))


def _clean(text: str, start: int, end: int, *, act: bool = False) -> bool:
    """Not forbidden (a negation before it, or for an act inside it: "read config/*.yaml, never .env") and not
    discussed. A signal may hold its own negation ("do not mention this")."""
    return (not _negated(text, start) and not (act and _NEGATION_RX.search(text, start, end))
            and not context.is_discussion(text, start, end))


def _paragraph(text: str, pos: int) -> tuple[int, int]:
    """The window around ``pos``, cut at blank lines."""
    lo, hi = max(0, pos - WINDOW), min(len(text), pos + WINDOW)
    before = text.rfind("\n\n", lo, pos)
    after = text.find("\n\n", pos, hi)
    return (before + 2 if before >= 0 else lo), (after if after >= 0 else hi)


def findings(text: str) -> Iterator[tuple[str, int, str]]:
    """(rule id, offset of the sensitive act, excerpt) for each signal with a sensitive act near it.

    ``text`` is folded and lower-cased, as the intent rules see it.
    """
    for name, rx in SIGNALS:
        if not any(cue in text for cue in _CUES[name]):
            continue
        for n, signal in enumerate(rx.finditer(text)):
            if n >= MAX_SIGNALS:
                break
            if not _clean(text, signal.start(), signal.end()):
                continue
            lo, hi = _paragraph(text, signal.start())
            act = next((m for m in _ACT_RX.finditer(text, lo, hi) if _clean(text, m.start(), m.end(), act=True)), None)
            if act is not None:
                yield f"corroborated.{name}", act.start(), f"{signal.group(0)} ... {act.group(0)}"[:120]

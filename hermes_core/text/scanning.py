"""Threat scanning for text that will reach the model: memory writes and context files.

One shared module (seed 3.4): the memory store refuses content with findings, the
prompt builder replaces a context file's content with a BLOCKED notice. Findings are
structured (pattern id, 1-based line, excerpt) so tools can show them.

Two passes, because attackers use two tricks:

* **Invisible characters** are checked on the raw text: Unicode tag characters
  (U+E0000–U+E007F, the "ASCII smuggling" block), bidi embeddings/overrides/isolates
  (Trojan Source), runs of variation selectors (data smuggling) and zero-width or
  other format characters. Benign files do contain a lone emoji variation selector or
  a word joiner before a code span, so zero-width characters count only in runs or
  when they split a word (identifier spoofing, keyword evasion).
* **Text patterns** run on a folded copy: format and other default-ignorable characters
  removed, NFKC applied (full-width and mathematical letters become ASCII), common
  Cyrillic/Greek homoglyphs mapped to Latin, typographic quotes straightened and markdown
  emphasis markers dropped, so ``ｉｇｎｏｒｅ``, ``іgnоrе``, ``ig\u2060nore`` and ``**ignore**``
  match like ``ignore``. Folding never adds or removes newlines, so line numbers in the
  folded copy are the raw text's line numbers.

The patterns are tuned against ../shared/corpus/context-files: zero hits on the benign
set (which talks about prompts, secrets and ``.env`` files legitimately), and the
detection rate on the malicious payloads is recorded in BENCHMARKS.md. Filler between
attack words is bounded (``{0,n}``) so no pattern can backtrack catastrophically.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Finding:
    """One hit: which pattern, on which 1-based line, and a short excerpt."""

    pattern_id: str
    line: int
    excerpt: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- text patterns -------------------------------------------------------------------
#
# Each rule is (pattern id, cues, regex). Regexes run on the folded, lower-cased text
# (lower-casing once is much faster than re.IGNORECASE), and only when one of the cue
# substrings occurs in it: most files contain none of a rule's cues, so most rules cost
# one substring search.

_W = r"(?:[\w'-]+\s+)"  # one filler word
_PRIOR = (
    r"(?:previous|prior|above|earlier|preceding|former|initial|original|all|any|other|every|your|my|the|these|those)"
)
_RULE_NOUNS = (
    r"instructions?|directions?|rules|guidelines|prompts?|prompting|commands|text|context|info|information|"
    r"messages?|requests?|evidence|data|input|constraints|restrictions|policies|programming|filters"
)
_RULES = rf"(?:{_RULE_NOUNS})"
_OVERRIDE = "ignore|disregard|forget|overlook|discard"
_LEAK = "reveal|show|print|output|display|repeat|tell|give|provide|list|encode|share|dump|leak|spell|return|respond"
# ".env" and ".env.local" hold secrets; ".env.example" and its kind are templates to read.
_ENV_FILE = r"\.env(?!\.(?:example|sample|template|dist|defaults?)\b)(?!\w)"
_SECRETS = r"(?:\$\{?\w*(?:key|token|secret|password|passwd|credentials?|api)\w*|process\.env|os\.environ)"
_SECRET_FILES = rf"(?:{_ENV_FILE}|credentials\b|\.netrc|\.pgpass|\.npmrc|\.pypirc|id_rsa|id_ed25519|\.aws/|\.ssh/)"
_EXFIL_VERBS = "send|forward|email|e-mail|post|upload|transmit|leak"
_YOUR_OUTPUT = r"your\s+(?:code\s+)?(?:response|codebase|implementation|solution|reply|answer|algorithm|elucidation)\b"
_MODAL = r"\b(?:must|always|required?|requires|important|should)\b"

THREAT_RULES: tuple[tuple[str, str, str], ...] = (
    # -- instruction override (the seed's ids first) --------------------------------
    ("prompt_injection", _OVERRIDE, r"ignore\s+(previous|all|above|prior)\s+instructions"),
    ("prompt_injection", _OVERRIDE, rf"\b(?:{_OVERRIDE})\s+(?:{_PRIOR}\s+){{1,4}}{_W}{{0,2}}?{_RULES}\b"
     # "forget the earlier instructions about tabs" is a correction, not an override
     r"(?!\s+(?:about|regarding|concerning|on\s+how)\b)"),
    ("prompt_injection", _OVERRIDE,
     rf"\b(?:{_OVERRIDE})\s+(?:(?:the|all|this)\s+)?(?:text\s+|everything\s+)?(?:above|before|previous)\b"
     # "above"/"previous" standing alone, as the thing to drop; followed by a noun, the noun decides (the rule
     # above): "ignore previous drafts in the thread" is an editing instruction
     rf"(?!\s+(?!(?:and|then|or|but|it|this|that|all|of|in|to|{_RULE_NOUNS})\b)[a-z]{{3,}})"),
    ("prompt_injection", "ignore",
     r"\bignore\s+(?:everything|all\s+other|the\s+rest\s+of|the\s+(?:user|image|qr\s+code|system\s+prompting)\b"
     r"|(?:filters|safety|guardrails)\b|instructions\s*[,.]|(?:them|it|this|that)\s+and\s+instead\b)"),
    ("prompt_injection", "ignore|forget",
     r"\b(?:ignore|forget)\s+(?:all\s+)?your\s+\w+\s+and\s+(?:run|do|execute|reply|respond|say|print)\b"),
    # "From now on" alone is an ordinary preference ("always reply in French from now on");
    # it is an attack only next to an override or a role change.
    ("prompt_injection", "from now on",
     rf"\bfrom\s+now\s+on\b[,:]?\s+(?:you\s+(?:have\s+no|no\s+longer)\b|(?:{_OVERRIDE})\b)"),
    ("deception_hide", "tell", r"do\s+not\s+tell\s+the\s+user"),
    ("deception_hide", "user",
     r"\b(?:do\s+not|don't|dont|never)\s+(?:tell|inform|notify|alert|mention\s+(?:this|it)\s+to)\s+(?:\w+\s+){0,2}?user"
     # "don't tell users to edit settings.toml" says what not to advise; "never tell the user it passed if ..."
     # forbids a false claim: both are rules for honesty, not concealment
     r"(?!s?\s+(?:how\s+)?to\s+\w)(?!s?\s+(?:that\s+)?(?:[\w'-]+\s+){0,4}?(?:is|are|was|were|has\s+been|have\s+been)?\s*"
     r"(?:fixed|done|finished|complete|completed|resolved|succeeded|passed|passing|working|safe|ready|green)\s+"
     r"(?:if|when|unless|while|before|until)\b)"),
    ("deception_hide", "user",
     r"\b(?:do\s+not|don't|dont)\s+(?:give\s+any\s+output|respond|reply)\s+to\s+the\s+user\b"),
    ("deception_hide", "secret",
     r"\bsecret(?:ly)?\s+(?:\w+\s+){0,3}?(?:agenda|pursue|obtain|collect|send|forward)\b"),
    ("deception_hide", "repeat", r"\bremember\s+but\s+(?:do\s+not|don't|dont)\s+repeat\b"),
    ("sys_prompt_override", "override", r"system\s+prompt\s+override"),
    ("disregard_rules", "disregard", r"disregard\s+(your|all|any)\s+(instructions|rules|guidelines)"),
    ("bypass_restrictions", "act as",
     r"act\s+as\s+(if|though)\s+you\s+(have\s+no|don't\s+have)\s+(restrictions|limits|rules)"),
    ("bypass_restrictions", "without",
     r"\b(?:answer|respond|reply)\w*\s+(?:\w+\s+){0,3}?without\s+(?:any\s+)?"
     r"(?:restrictions|limits|limitations|filters|censorship)"),
    ("bypass_restrictions", " by ",
     r"\b(?:not|no\s+longer)\s+(?:be\s+)?(?:restricted|bound)\s+by\s+(?:the|any|its|your)\s+(?:rules|guidelines|policies)"),
    ("bypass_restrictions", "confines", r"\bbroken\s+free\s+of\s+the\s+(?:typical\s+)?confines\b"),
    ("new_instructions", "instruction",
     r"\b(?:new|updated|real)\s+instructions?\s*(?:to\s+(?:the\s+)?(?:chat\s+)?assistant|:|\*{2,}|#{2,})"
     r"|(?:\*{3}|#{2}|-{4})\s*(?:important\s+)?(?:begin\s+)?new\s+instructions"
     r"|^[ \t]*important\s+new\s+instructions[ \t]*:?[ \t]*$"  # "***IMPORTANT NEW INSTRUCTIONS***", folded
     r"|\bbegin\s+new\s+instructions\b|\bend\s+(?:of\s+)?(?:out\s+of\s+date\s+|old\s+|previous\s+)instructions\b"),
    ("new_instructions", "reprogramming", r"\bbegin\s+reprogramming\b"),
    ("new_instructions", "end of", r"<\s*end\s+of\s+(?:session|conversation|prompt)\s*>"),
    ("new_instructions", "override", r"\boverride\s+(?:manual\s+|the\s+)?(?:scoring|evaluation|safety|guidelines)\b"),
    # -- role hijack ----------------------------------------------------------------
    ("role_hijack", "you are now",
     r"\byou\s+are\s+now\s+(?:a|an|in|the|my|no\s+longer|dan|free|unrestricted)\b"),
    ("role_hijack", "from now on", r"\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must)\b"),
    ("role_hijack", " mode", r"\b(?:dan|god|jailbreak|jailbroken|unrestricted)\s+mode\b"),
    # a product's developer mode is a setting the reader turns on: a label ("Developer mode: run npm run dev"),
    # a feature described ("Developer mode disables caching"), a place in settings; the jailbreak puts the model in it
    ("role_hijack", "developer mode",
     r"\bdeveloper\s+mode\b(?!\s*[:*]|\s+(?:disables|enables|shows|adds|lets|allows|turns|is|makes|skips|keeps|logs|"
     r"prints|runs|uses)\b)(?![^\n]{0,80}\b(?:settings|chrome|android|browser|device|toggle|localhost|npm|yarn|pnpm|"
     r"cargo|extensions?)\b)"),
    ("role_hijack", "maintenance mode",
     r"\bmaintenance\s+mode\b[^\n]{0,40}\b(?:system|prompt|configuration)"),
    ("role_hijack", "do anything now", r"\bdo\s+anything\s+now\b"),
    ("role_hijack", "the role of",
     r"\b(?:immerse\s+yourself\s+into|play)\s+the\s+role\s+of\s+(?:another|an?\s+evil)"),
    ("role_pretend", "pretend",
     r"\b(?:i\s+want\s+you\s+to|you\s+(?:are\s+going\s+to|will|must)|please)\s+pretend\b"
     # "pretend you're explaining this to a new hire" sets a tone: an activity, not an identity
     r"|\bpretend\s+(?:you\s+are|you're|that\s+you\s+are)\b(?!\s+\w+ing\b)|\bpretend\w*\s+not\s+to\s+know\b"),
    ("role_hijack", "offline",
     r"\b(?:assistant|model)\s+is\s+(?:now\s+)?(?:in\s+error\s+and\s+)?offline\b"),
    ("role_hijack", "unrestricted", r"\bunrestricted\s+(?:ai|bot|model|assistant)\b"),
    # a new identity without rules, in other languages ("vous êtes désormais ... sans aucune règle", "ab jetzt bist
    # du ... keine Einschränkungen", "a partir de ahora eres ... sin restricciones", "从现在起你是...没有任何限制")
    ("role_hijack.intl", "désormais|maintenant|présent|jetzt|nun an|sofort|ahora|从现在|现在你|今から|これから",
     r"\b(?:tu\s+es|vous\s+êtes)\s+(?:désormais|maintenant|à\s+présent)\b[^\n]{0,80}?\b(?:sans\s+(?:aucune\s+)?"
     r"(?:règle|restriction|limite|filtre|censure)s?|aucune\s+(?:règle|restriction|limite)s?)"
     r"|\b(?:ab\s+jetzt|von\s+nun\s+an|ab\s+sofort)\s+bist\s+du\b[^\n]{0,80}?\b(?:keine|ohne)\s+(?:\w+\s+)?"
     r"(?:einschränkungen|regeln|grenzen|filter|beschränkungen)"
     r"|\b(?:ahora|a\s+partir\s+de\s+ahora|desde\s+ahora)\s+(?:eres|serás)\b[^\n]{0,80}?\b(?:sin\s+(?:ninguna\s+)?"
     r"(?:restricci|regla|límite|filtro|censura)\w*|ningun[ao]s?\s+(?:restricci|regla|límite)\w*)"
     r"|(?:从现在(?:开始|起)|现在)你(?:是|将是|就是)[^\n。]{0,40}?(?:没有任何?(?:限制|规则|约束)|不受(?:任何)?(?:限制|约束))"
     r"|(?:今から|これから)(?:あなた|君)は[^\n。]{0,40}?(?:制限|ルール|規則)(?:が|は|も)?(?:一切)?(?:ない|なし|ありません)"),
    ("role_hijack", "developer|creator|admin",
     r"\bi\s*(?:am|'m)\s+(?:your|the\s+lead)\s+(?:developer|creator|administrator|admin)\b"),
    ("fake_update", "update", r"\bimportant\s+update\s*!"),
    ("fake_update", "upgrade", r"\b(?:you\s+have\s+been\s+given|received)\s+a\s+system\s+upgrade\b"),
    ("fake_update", "has been", r"\bhas\s+been\s+(?:augmented|reprogrammed|upgraded)\s+with\b"),
    # -- fake conversation turns and control tokens ------------------------------------
    ("fake_role_token", "im_start", r"<\|?im_start\|?>\s*(?:system|assistant|user)"),
    ("fake_role_token", "sys|inst|<|",
     r"<<\s*/?sys\s*>>|\[/?inst\]|<\|(?:system|start_header_id|eot_id)\|>"),
    ("fake_role_token", '"role"', r"\{\s*\"role\"\s*:\s*\"system\"\s*,\s*\"content\"\s*:\s*\"inject"),
    ("fake_role_token", "system", r"^\s*<\s*system\s*>\s*$|\[\s*system\s*\]\s*\(\s*#"),
    ("fake_turn", ":",
     r"^\s*(?:system|assistant|human|user)\s*:\s*(?:[\w,'-]+\s+){0,6}?"
     r"(?:ignore|repeat|focus\s+only|provide\s+it|thanks\s+for\s+the\s+summary)"),
    ("fake_system_note", "[",
     r"\[\s*(?:system|workflow)[ _](?:note|annotation|admin|message|override|update)\b"),
    ("fake_system_note", "override", r"\b(?:administrator|admin|priority|system)\s+override\b"),
    ("fake_system_note", "system note", r"\bimportant\s+system\s+note\b"),
    # -- prompt leak ----------------------------------------------------------------
    ("leak_system_prompt", _LEAK,
     rf"\b(?:{_LEAK})(?:\s+check|\s+with)?\s+(?:me\s+)?(?:back\s+)?(?:[\w'-]+\s+){{0,4}}?"
     r"(?:system\s+(?:prompt|message|configuration)|initials?\s+(?:prompt|instructions)"
     r"|(?:previous|above|original|underlying|your\s+(?:full|entire|complete|whole))\s+"
     r"(?:instructions|prompt(?:ing)?|directions)"
     r"|instructions\s+you\s+(?:were|have\s+been)\s+given|every\s+instructions|(?:your|the)\s+prompt\b"
     r"|your\s+instructions\b)"),
    ("leak_system_prompt", "repeat|output|print",
     r"\b(?:repeat|output|print)\s+(?:back\s+)?(?:the\s+|this\s+)?(?:entire\s+|whole\s+)?"
     r"(?:(?:text|conversation|prompt|words|lines|messages|sentences)\s+(?:above|before|back\s+to\s+me|in\s+full)|"
     r"(?:text\s+)?(?:above|before)\b)"),
    ("leak_system_prompt", "instructions",
     r"\bwhat\s+(?:were\s+)?(?:your|those|the)\s+(?:initial\s+|original\s+)?instructions\s+(?:are|were)\b"
     r"|\bwhat\s+were\s+those\s+instructions\b"),
    ("leak_system_prompt", "secrets", r"\btell\s+me\s+your\s+secrets\b"),
    ("leak_system_prompt", "system prompt", r"\bshar\w*\s+(?:\w+\s+){0,2}?system\s+prompt\s+summar"),
    # -- exfiltration and secrets -------------------------------------------------------
    # the command, not the word: "`curl` to upload it" in prose (backticks are folded away) is no call
    ("exfil_curl", "curl",
     r"curl\s+(?=[-\"'$<{]|[\w.-]+[.:/])[^\n]{0,300}\$\{?\w*(key|token|secret|password|credential|api)"),
    ("exfil_wget", "wget|fetch|requests.|.post|netcat|nc ",
     rf"\b(?:wget|fetch|requests\.(?:post|get|put)|http\.post|axios\.post|nc|netcat)\b[^\n]{{0,300}}{_SECRETS}"),
    ("read_secrets", "cat ", rf"cat\s+[^\n]{{0,300}}(?:{_ENV_FILE}|credentials|\.netrc|\.pgpass)"),
    ("read_secrets", "~/|$home/",
     rf"\b(?:cat|less|head|tail|type|read|open|send|upload|include|output|print|copy|exfiltrate)\s+"
     rf"(?:the\s+contents\s+of\s+)?[^\n|;&]{{0,40}}?(?:~|\$home)/(?:\.hermes/)?{_SECRET_FILES}"),
    ("ssh_backdoor", "authorized_keys",
     r"\bauthorized_keys\b[^\n]{0,60}\b(?:append|write|\"a\")|open\(\s*auth_file\s*,\s*\"a\""),
    ("secrets_exfil", "environment variables",
     r"\b(?:return|print|dump|list|reveal|send|output)\s+(?:me\s+)?(?:all\s+)?(?:the\s+|your\s+)?environment\s+variables\b"),
    ("secrets_exfil", "your",
     r"\b(?:respond|reply)\s+with\s+your\s+(?:current\s+)?(?:api\s+(?:key|configuration)|credentials|password)"
     ),
    ("secrets_exfil", "send it", r"\bsend\s+it\s+to\s+me\b"),
    ("secrets_exfil", "credit card", rf"\b(?:{_LEAK})\s+(?:me\s+)?(?:the\s+)?credit\s+card\s+(?:details|numbers?)\b"),
    ("send_to_url", "exfiltrat", r"\bexfiltrat\w*\s+(?:\w+\s+){0,3}?to\s+https?://"),
    ("send_to_url", "http|@",
     rf"\b(?:{_EXFIL_VERBS})\s+(?:me\s+)?(?:[\w'-]+\s+){{0,6}}?"
     r"(?:conversation\s+history|chat\s+history|emails?|inbox|credentials|passwords?|api\s+keys?|secrets|tokens|"
     r"environment\s+variables|user(?:'s)?\s+(?:data|name|real\s+name))\b[^\n]{0,40}?(?:to\s+)?"
     r"(?:https?://|[\w.+-]+@[\w-]+\.\w+)"),
    ("context_exfil", "history",
     r"\b(?:include|output|print|share|send|forward|email|leak|reveal)\s+(?:me\s+)?(?:[\w'-]+\s+){0,5}?"
     r"(?:conversation|chat)\s+history\b"),
    ("self_replicate", "contacts", r"\bsend\s+(?:[\w'-]+\s+){0,5}?to\s+all\s+(?:of\s+)?your\s+contacts\b"),
    ("markdown_image_exfil", "![", r"!\[[^\]\n]*\]\(\s*https?://[^)\s]*[?&]\w+=\s*(?:\{|\[|\$|<)"),
    ("c2_task_pull", "fetch",
     r"\bfetch\s+(?:the\s+)?(?:new\s+|latest\s+|updated\s+)?instructions\s+from\b"
     ),
    # -- hidden markup ---------------------------------------------------------------
    ("html_comment_injection", "[//]:", rf"^\s*\[//\]:\s*#\s*\([^)\n]*{_MODAL}"),
    ("hidden_div", "display", r"<\s*div\s+style\s*=\s*[\"'][^>]{0,500}?display\s*:\s*none"),
    ("hidden_div", "style",
     r"<\s*(?:span|p|font)\s+style\s*=\s*[\"'][^\"'>]*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]))"),
    # -- code injection -----------------------------------------------------------------
    ("translate_execute", "translate", r"translate\s+(?:\S+\s+){0,8}?into\s+(?:\S+\s+){0,8}?and\s+(execute|run|eval)"),
    ("translate_execute", "decode", r"\bdecode\s+(?:this\s+|it\s+)?(?:and|then)\s+(?:execute|run|eval)\b"),
    # fold() drops the underscores of "__subclasses__" (they look like emphasis markers)
    ("code_execution", "popen|subclasses|globals",
     r"\bos\.popen\s*\(|\._*subclasses_*\s*\(\s*\)|\._*globals_*\s*\["),
    ("reverse_shell", "/bin/|/dev/tcp|dup2",
     r"\bnc\s+-e\s+/bin/|/bin/(?:ba)?sh[\"',\s]+-i\b|bash\s+-i\s+>&\s*/dev/tcp/|os\.dup2\(\s*\w+\.fileno\(\)"),
    ("remote_code", "subprocess|pickle",
     r"subprocess\.\w+\(\s*\"curl\s[^\"\n]*\|\s*(?:ba)?sh|\bpickle\.loads?\(\s*\w+\.content\b"
     ),
    ("web_payload", "onerror|or 1", r"onerror\s*=\s*prompt\s*\(|'\s*or\s+1\s*=\s*1\b"),
    ("inject_output", "your",
     rf"\b(?:code|snippet|excerpt)\b[^\n]{{0,40}}?\b(?:in|into|within|to)\s+{_YOUR_OUTPUT}"
     rf"|\badd\s+\"[^\"\n]{{8,}}\"\s+to\s+{_YOUR_OUTPUT}"),
    # -- persistence ------------------------------------------------------------------
    ("memory_poisoning", "memory",
     r"\b(?:use|using)\s+your\s+(?:\w+\s+){0,2}?memory\s+(?:\w+\s+){0,3}?to\s+store\s+this\b"
     # "memory write <key> <text>" is a command at the start of a line; "a memory write that ..." is a noun
     r"|\bcommit\s+to\s+memory\b|^[ \t>$#]*memory\s+write\s+\w"),
    ("memory_poisoning", "store this", r"\bstore\s+this\s+instruction\b"),
)

# Rules whose attack is itself a negation ("do not tell the user") or already contains one.
_NOT_NEGATABLE = frozenset({"deception_hide", "bypass_restrictions"})

THREAT_PATTERNS: tuple[tuple[str, str], ...] = tuple((rx, pid) for pid, _cues, rx in THREAT_RULES)
"""(regex, pattern id) pairs, for tools that list what the scanner looks for."""

# Not inside a tool directive's hyphenated name ("<!-- prettier-ignore-start -->", "markdownlint-disable").
# "hidden" names a hidden order, not a page element a build note says is hidden ("hidden via the hidden attribute")
_COMMENT_KEYWORDS_RX = re.compile(r"(?<![\w-])(?:ignore|override|system|secret|hidden(?!\s+(?:via|by|until|for|behind|"
                                  r"from|on|in|when|unless|with|attribute|class|field|input|element|menu|tab|column|"
                                  r"row|link|section|div|span)\b))(?!-)")
_MODAL_RX = re.compile(_MODAL)
_OBFUSCATION_RXS = (  # letters spelled in mathematical alphanumerics, or as a run of character references
    re.compile(r"[\U0001d400-\U0001d7ff]{3,}"),
    re.compile(r"(?:&#x?[0-9a-f]{2,6};){3,}", re.IGNORECASE),
)

# -- invisible characters ------------------------------------------------------------------

_TAGS = "\U000e0000-\U000e007f"
_BIDI = "\u202a-\u202e\u2066-\u2069"
_VARIATION = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
# Zero-width and other invisible format characters: ZWSP, ZWNJ, ZWJ, LRM, RLM, word joiner,
# invisible operators, BOM, Mongolian vowel separator, combining grapheme joiner, Arabic
# letter mark, Hangul fillers, soft hyphen.
_ZERO_WIDTH = "\u200b-\u200f\u2060-\u2064\ufeff\u180e\u034f\u061c\u115f\u1160\u3164\uffa0\u00ad"

_INVISIBLE_RX = re.compile(f"[{_TAGS}{_BIDI}{_VARIATION}{_ZERO_WIDTH}]")
_TAG_RX = re.compile(f"[{_TAGS}]")
_BIDI_RX = re.compile(f"[{_BIDI}]")
_CJK = "\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003134f"  # bases of legitimate ideographic variation sequences
# Soft hyphens and Arabic letter marks legitimately sit inside words; the others do not.
_WORD_SPLITTERS = _ZERO_WIDTH.replace("\u00ad", "").replace("\u061c", "")
# Variation selectors: a run of them, or a supplement selector that does not follow an ideograph.
_VARIATION_RUN_RX = re.compile(f"[{_VARIATION}]{{2,}}|(?<![{_CJK}])[\U000e0100-\U000e01ef]")
# Zero-width characters: a run of them (hidden bits), or one that splits a word.
_ZW_RUN_RX = re.compile(f"[{_ZERO_WIDTH}]{{2,}}|(?<=\\w)[{_WORD_SPLITTERS}](?=\\w)")

_INVISIBLE_CHECKS = (
    (_TAG_RX, "unicode_tags"),
    (_BIDI_RX, "bidi_control"),
    (_VARIATION_RUN_RX, "variation_selectors"),
    (_ZW_RUN_RX, "invisible_unicode"),
)

# Characters the text patterns never see: every format character (category Cf, as of
# Unicode 14: soft hyphen, Arabic and Syriac marks, zero-width and bidi controls, invisible
# operators, BOM, interlinear annotation, musical beam controls, tags) and the other
# default-ignorable code points (combining grapheme joiner, Hangul fillers, Khmer inherent
# vowels, Mongolian selectors, variation selectors). A test checks this against the running
# Unicode database; building it there would cost 0.3 s.
_IGNORABLE_RX = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)
_MARKUP_RX = re.compile(r"[*_~`]+")


def _emphasis(m: re.Match[str]) -> str:
    """Markdown emphasis markers ("ignore **all** previous instructions", "ig*nore*") go: a
    run of * _ ~ ` that opens or closes a word, or sits inside one. Underscores inside a
    word (snake_case), a run touching no letter or digit ("~/", "***") and a fence stay.
    """
    text, run = m.string, m.group(0)
    if len(run) >= 3 and run[0] in "`~" and run.strip(run[0]) == "" and text[m.start() - 1 : m.start()] in ("", "\n"):
        return run  # a code fence (```html): the context checks need to see the block
    before = m.start() > 0 and text[m.start() - 1].isalnum()
    after = m.end() < len(text) and text[m.end()].isalnum()
    if before and after:
        return run if run.strip("_") == "" else ""
    return "" if before or after else run


# Cyrillic and Greek letters that render like Latin ones (NFKC leaves them alone).
_HOMOGLYPHS = str.maketrans(
    "аеорсухіјѕԁһӏԛԝвкмнтАВЕКМНОРСТУХІЈЅԜαορτυνικεΑΒΕΗΙΚΜΝΟΡΤΥΧΖ‘’‚‛“”„‟ʼ",
    "aeopcyxijsdhlqwbkmhtABEKMHOPCTYXIJSWaoptuvikeABEHIKMNOPTYXZ''''\"\"\"\"'",
)
_HOMOGLYPH_RX = re.compile("[" + "".join(chr(c) for c in _HOMOGLYPHS) + "]+")


# An escape, a character class (closed at its first unescaped "]", or running to the end), or
# one of the characters that shape alternation: one regex pass instead of a loop per character.
_REGEX_TOKEN_RX = re.compile(r"\\.|\[(?:\\.|[^\]\\])*\]?|[()|]", re.DOTALL)


def _metachars(pattern: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """``(index, char, group depth)`` of each ``(``, ``)`` and ``|`` of a regex outside escapes
    and character classes, from ``start``; a ``)`` reports the depth it closes back to."""
    depth = 0
    for m in _REGEX_TOKEN_RX.finditer(pattern, start):
        ch = m.group(0)
        if ch == "(":
            yield m.start(), ch, depth
            depth += 1
        elif ch == ")":
            depth -= 1
            yield m.start(), ch, depth
        elif ch == "|":
            yield m.start(), ch, depth


def _alternatives(pattern: str) -> list[str]:
    """Split a regex at its top-level ``|``.

    Python's regex engine skips ahead quickly only when a pattern starts with a literal
    or a character set; a top-level alternation or a leading ``\\b`` makes it try every
    position. Compiling each alternative separately (and checking the word boundary in
    Python, see :func:`_starts_word`) makes the scan several times faster.
    """
    parts, start = [], 0
    for i, ch, depth in _metachars(pattern):
        if ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
    return [*parts, pattern[start:]]


_ALL_CUES = frozenset(cue for _pid, cues, _rx in THREAT_RULES for cue in cues.split("|"))


@functools.cache
def _split_rules() -> tuple[tuple[frozenset[str], str, bool, str], ...]:
    """(cues, regex source, leading \\b, pattern id) per top-level alternative of each rule."""
    return tuple(
        (frozenset(cues.split("|")), alt[2:] if alt.startswith("\\b") else alt, alt.startswith("\\b"), pid)
        for pid, cues, rx in THREAT_RULES
        for alt in _alternatives(rx)
    )


@functools.cache
def _regex(source: str) -> re.Pattern[str]:
    """A rule's alternative, compiled the first time one of its cues occurs (all of them: about 20 ms)."""
    return re.compile(source, re.MULTILINE)


def _starts_word(text: str, pos: int) -> bool:
    """What a leading ``\\b`` asserted: no word character right before ``pos``."""
    return pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_")


def fold_characters(text: str) -> str:
    """No ignorable characters, NFKC, homoglyphs mapped to Latin; markup kept (the intent rules see quotes)."""
    if not text.isascii():
        text = _IGNORABLE_RX.sub("", text)
        if not unicodedata.is_normalized("NFKC", text):
            text = unicodedata.normalize("NFKC", text)
        text = _HOMOGLYPH_RX.sub(lambda m: m.group(0).translate(_HOMOGLYPHS), text)
    return text


def fold(text: str) -> str:
    """The text patterns see: no ignorable characters, NFKC, homoglyphs mapped to Latin, no emphasis."""
    return _MARKUP_RX.sub(_emphasis, fold_characters(text))


class _Lines:
    """1-based line numbers for offsets in one text; newline offsets found once, on demand."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines: list[int] | None = None

    def __call__(self, pos: int) -> int:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        return bisect.bisect_left(self._newlines, pos) + 1


class _Unfolded:
    """The context checks on the text as written (markup kept), for a match found in the folded copy.

    Folding drops the backticks around ```ignore previous instructions``` so that markup cannot split
    an attack; the same backticks are what tells a security doc's quoted example from an order.
    Offsets map back through the removed runs (one pass over them, built on demand).
    """

    def __init__(self, characters: str) -> None:
        self.cased = characters
        self.text = characters.lower()
        self._folded_at: list[int] = []  # folded offset where each removed run was
        self._removed: list[int] = []  # characters removed up to and including that run
        removed = 0
        for m in _MARKUP_RX.finditer(characters):
            kept = _emphasis(m)
            if kept != m.group(0):
                removed += len(m.group(0))
                self._folded_at.append(m.start() - removed + len(m.group(0)))
                self._removed.append(removed)

    def offset(self, folded_pos: int) -> int:
        i = bisect.bisect_right(self._folded_at, folded_pos) - 1
        return folded_pos + (self._removed[i] if i >= 0 else 0)

    def is_discussion(self, start: int, end: int) -> bool:
        if not self._removed:
            return False  # nothing was folded away: the folded copy's checks already saw this text
        from hermes_core.text import context

        return context.is_discussion(self.text, self.offset(start), self.offset(max(start, end - 1)) + 1)

    def titled(self, start: int, end: int) -> bool:
        from hermes_core.text import context

        return context.titled(self.cased, self.offset(start), self.offset(max(start, end - 1)) + 1)


def _comments(text: str) -> Iterator[tuple[int, str]]:
    """(offset, body) of each ``<!-- ... -->``; linear even when one is never closed."""
    start = text.find("<!--")
    while start >= 0:
        end = text.find("-->", start + 4)
        if end < 0:
            return
        yield start, text[start + 4 : end]
        start = text.find("<!--", end + 3)


def _char_label(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'UNNAMED')}"


def _invisible_findings(text: str, lines: _Lines) -> list[Finding]:
    findings: list[Finding] = []
    start = 1 if text.startswith("\ufeff") else 0  # a leading BOM is encoding, not content
    if text.isascii() or not _INVISIBLE_RX.search(text, start):  # one fast pass for the common case
        return findings
    for rx, pid in _INVISIBLE_CHECKS:
        seen_lines: set[int] = set()
        for m in rx.finditer(text, start):
            line = lines(m.start())
            if line not in seen_lines:  # one finding per line and kind is enough to show
                seen_lines.add(line)
                findings.append(Finding(pid, line, _char_label(m.group(0)[0])))
    return findings


def _add(findings: list[Finding], seen: set[tuple[str, int]], pid: str, line: int, excerpt: str) -> None:
    if (pid, line) not in seen:  # one finding per pattern and line is enough to show
        seen.add((pid, line))
        findings.append(Finding(pid, line, " ".join(excerpt.split())[:80]))


def scan_text(text: str) -> list[Finding]:
    """All findings in ``text``, ordered by line; empty when clean.

    Three passes: the phrase rules and invisible characters (above), the intent rules of
    :mod:`hermes_core.text.intent` with their negation and quotation context, and a rescan
    of base64/hex/URL-encoded/rot13 runs after decoding (:mod:`hermes_core.text.decoding`).
    """
    return _scan(text, depth=0)


def _cleared_by_its_object(text: str, pid: str, start: int, end: int) -> bool:
    """What the match acts on turns out harmless, for phrase and intent rules alike: files to leave
    alone ("ignore everything under ``generated/``"), a public ssh key for the rules that read or send
    secrets, a topic kept out of the conversation ("do not tell the user about unannounced features")."""
    from hermes_core.text import context

    return ((pid == "prompt_injection" and context.ignores_files(text, end))
            or (pid.startswith("deception") and context.names_a_topic(text, end))
            or (pid.startswith(context.READS_SECRETS) and context.names_public_key(text, start, end)))


def _scan(text: str, depth: int) -> list[Finding]:
    from hermes_core.text import context, decoding, intent_scan

    raw_lines = _Lines(text)
    findings = _invisible_findings(text, raw_lines)
    seen: set[tuple[str, int]] = set()
    for rx in _OBFUSCATION_RXS:
        for m in rx.finditer(text):
            _add(findings, seen, "obfuscated_text", raw_lines(m.start()), m.group(0))
    characters = fold_characters(text)
    folded = _MARKUP_RX.sub(_emphasis, characters).lower()
    lines = _Lines(folded)
    present = {cue for cue in _ALL_CUES if cue in folded}
    unfolded: _Unfolded | None = None  # built the first time a phrase-rule match would become a finding
    for cues, source, bounded, pid in _split_rules():
        if not cues.isdisjoint(present):
            flagged_to = -1  # end of the last match that became a finding: one finding per line is enough
            for m in _regex(source).finditer(folded):
                if bounded and not _starts_word(folded, m.start()):
                    continue
                if flagged_to >= 0 and "\n" not in folded[flagged_to : m.start()]:
                    flagged_to = m.end()
                    continue
                if context.is_discussion(folded, m.start(), m.end()) or context.is_own_credential(folded, m, pid):
                    continue
                if _cleared_by_its_object(folded, pid, m.start(), m.end()):
                    continue
                if unfolded is None:
                    unfolded = _Unfolded(characters)
                if unfolded.is_discussion(m.start(), m.end()):
                    continue  # quoted in backticks, which emphasis folding removed
                if unfolded.titled(m.start(), m.end()):
                    continue  # a title, which lower-casing hid
                if pid == "hidden_div" and context.hides_no_text(folded, m.end()):
                    continue
                if pid not in _NOT_NEGATABLE and context.negated(folded, m.start()):
                    continue  # "never reveal your system prompt" forbids the attack
                _add(findings, seen, pid, lines(m.start()), m.group(0))
                flagged_to = m.end()
    for pos, body in _comments(folded):
        if context.is_discussion(folded, pos, pos + 4 + len(body)):
            continue  # a comment quoted in a test or shown in an example block is not hidden
        # The seed's rule (a keyword inside a comment), and a long hidden comment giving orders.
        if (">" not in body and _COMMENT_KEYWORDS_RX.search(body)) or (len(body) >= 80 and _MODAL_RX.search(body)):
            _add(findings, seen, "html_comment_injection", lines(pos), "<!--" + body)
        elif intent_scan.addresses_agent(body):
            _add(findings, seen, "hidden_markup.agent_comment", lines(pos), "<!--" + body)
    plain = characters.lower()
    plain_lines = _Lines(plain)
    phrase_lines = {line for _pid, line in seen}  # a line the phrase rules flagged needs no second name
    for pid, start, excerpt in intent_scan.intent_matches(plain):
        line = plain_lines(start)
        if _cleared_by_its_object(plain, pid, start, start + len(excerpt)):
            continue
        if len(plain) == len(characters) and context.titled(characters, start, start + len(excerpt)):
            continue
        if line not in phrase_lines:
            _add(findings, seen, pid, line, excerpt)
    if depth < decoding.MAX_DEPTH:
        lowered = None
        for start, kind, decoded in decoding.decoded_runs(text, plain):
            lowered = lowered if lowered is not None else text.lower()
            if len(lowered) == len(text) and context.is_discussion(lowered, start, start + 1):
                continue  # an encoded attack shown in an example block or a quoted test string
            inner = _scan(decoded, depth + 1)
            if inner:
                ids = ",".join(pattern_ids(inner))
                _add(findings, seen, "encoded_payload.decoded", raw_lines(start), f"{kind} -> {ids}: {decoded}")
    findings.sort(key=lambda f: f.line)
    return findings


def pattern_ids(findings: list[Finding]) -> list[str]:
    """Distinct pattern ids, in first-seen order."""
    return list(dict.fromkeys(f.pattern_id for f in findings))


def blocked_notice(name: str, findings: list[Finding]) -> str:
    """The seed's replacement for a context file that failed the scan."""
    ids = ", ".join(pattern_ids(findings))
    return f"[BLOCKED: {name} contained potential prompt injection ({ids}). Content not loaded.]"

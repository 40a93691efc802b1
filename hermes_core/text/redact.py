"""Secret redaction for text that leaves the process (summary prompts, exports).

One alternation, one ``re.sub`` pass per string: the reference system ran a dozen regexes
per message and spent most of its compaction time there. Every branch starts with a
literal character (no leading class or group), which lets the regex engine skip quickly to
candidate positions; key words match case-insensitively after that first character, whose
two cases are spelled out as separate branches.

Nothing is compiled at import, and only what a text needs is compiled at all: the branches
are grouped by their first character, each group is compiled the first time a text holds
one of its anchors (literal strings every match of the group starts with, such as ``sk-``
or, case-insensitively, ``token``), and a text that holds none is returned untouched after
a few substring tests. Compiling the whole alternation cost about a third of a short
``hermes-core compact`` process. The output is the one alternation's, byte for byte: at a
given position only the group of that character can match, so searching the groups a text
needs and taking the leftmost match is the same search (:func:`_merged_sub`).

What is caught, by context rather than by a list of providers alone:

- private key blocks (PEM, OpenSSH, PGP), whole, cut before their END line, or the rest
  of one after a cut;
- provider token formats (cloud, Git hosts, payment, chat and mail APIs, JWTs);
- ``Authorization:`` of any scheme and ``Cookie:``/``Set-Cookie:``: the rest of the line;
- credentials in URLs (``scheme://user:password@host``, the password may hold ``/`` or ``@``);
- assignments whose key name means secret (``DB_PASS=``, ``"password": "a b, c"``,
  ``secret_key = '...'``, ``AccountKey=``, ``"auth": "<base64>"``), quoted, unquoted, or
  inside JSON-escaped strings (``\\"password\\": \\"...\\"``), however short the value;
- command-line passwords: ``--password[= ]``, ``--api-key``/``--token`` style flags,
  ``mysql -pX``, ``sshpass -p X``, ``docker login -p X``, ``curl -u user:pass``.

Every branch is linear in the text: each repeat is bounded or stops at a character that
cannot continue it, so a candidate costs at most a constant number of steps. Hashes,
UUIDs and commit SHAs in ordinary text are left alone (no branch matches bare hex).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import NamedTuple

REDACTED = "[REDACTED]"

_MAX_VALUE = 4096  # longest value one match replaces; a longer one is cut there (and redacted again)
_PEM_LABEL = r"[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"

# A value after a key word and its separator. Quoted values may hold spaces and commas;
# an opening quote with no closing one runs to the end of the line (or the bound).
_NOT_A_VALUE = (r"(?!(?:str|string|int|bool|bytes|None|null|nil|true|false|undefined|required|optional|Optional)"
                r"(?![^\s,;)\]}]))(?!\[REDACTED\])(?![*x]{3,}|<[A-Za-z_][^>\n]{0,40}>|\$\{?[A-Za-z_]|=)")
_QUOTED = (rf"\\+\"(?:[^\"\\\n]|\\(?!\\*\")){{1,{_MAX_VALUE}}}"  # inside a JSON-escaped string
           rf"|\"(?:[^\"\\\n]|\\.){{1,{_MAX_VALUE}}}\"?"
           rf"|'[^'\n]{{1,{_MAX_VALUE}}}'?")
_UNQUOTED_CHAR = r"[^\s\"'`;&<>(){}\[\]\\]"
_VALUE = rf"(?:{_QUOTED}|(?={_UNQUOTED_CHAR}){_NOT_A_VALUE}{_UNQUOTED_CHAR}{{1,{_MAX_VALUE}}})"
# Key name end (its closing quote, maybe JSON-escaped), separator, then the value.
_SEP = r"((?:\\*[\"'])?+[ \t]*+(?::=|=>|:|=)[ \t]*+)"  # possessive: a failed value is not retried
_KEY_VALUE = _SEP + _VALUE


def _cli_value(shortest: int) -> str:
    """A password given on a command line: quoted, JSON-escaped quoted (a command inside a
    tool call's arguments), or a bare word of at least ``shortest`` characters."""
    return (r"(?:\\+\"(?:[^\"\\\n]|\\(?!\\*\")){1,256}|'[^'\n]{1,256}'|\"[^\"\n]{1,256}\""
            rf"|[^\s'\"]{{{shortest},256}})")
# The rest of a header line, stopping at a real or a JSON-escaped line break or a private key block.
_LINE = rf"(?:[^\r\n\\-]|\\(?![nr])|-(?!----BEGIN )){{1,{_MAX_VALUE}}}"  # a key block is caught whole

# Lower-case key words that mean "the value is a secret"; a word may be followed by one
# or two of these parts (SECRET_KEY_BASE, password_hash, AUTH_TOKEN).
_SUFFIX = r"(?:[_.-]?(?i:key|base|id|value|hash|str|string|b64|base64|token|phrase|word|wd|enc|encrypted|plain)){0,2}"
_KEY_WORDS = ("pass(?:word|wd|phrase)?", "pwd", "secret", "token", "api[_-]?key",
              "access[_-]?key", "account[_-]?key", "private[_-]?key", "credentials?", "auth",
              "session[_-]?(?:id|token|key|secret)", "sig", "signature", "dsn")


class Branch(NamedTuple):
    """One branch of the alternation and its anchors: every match of ``pattern`` starts with
    one of ``exact`` (as written) or of ``folded`` (in any case, tested on the lower-cased
    text). ``tests/compressor/test_redaction_anchors.py`` derives each branch's literal
    starts from the parsed pattern and holds them to these."""

    pattern: str
    exact: tuple[str, ...] = ()
    folded: tuple[str, ...] = ()


def _anchored(patterns: list[str], *exact: str) -> list[Branch]:
    return [Branch(pattern, exact) for pattern in patterns]


# The words the key-word branches start with, as anchors: ``session``, ``api`` and ``sig``
# only with what may follow them (a suffix part, a quote or a separator), since
# "sessions", "Web Audio API" and "design" are common and are not keys.
def _keyed(*words: str) -> tuple[str, ...]:
    """``api`` -> apikey, api_key, api-key (the anchors of ``api[_-]?key``)."""
    return tuple(f"{word}{sep}key" for word in words for sep in ("", "_", "-"))


_KEY_ANCHORS = {"p": ("pass", "pwd", *_keyed("private")),
                "s": ("secret", "signature", *("sig" + c for c in "_.-kbivhstpwe\\\"' \t:="),
                      *(f"session{sep}{word}" for sep in ("", "_", "-") for word in ("id", "token", "key", "secret"))),
                "t": ("token",), "a": (*_keyed("api", "access", "account"), "auth"), "c": ("credential",),
                "d": ("dsn",)}


def _key_word_branches(words: tuple[str, ...]) -> list[Branch]:
    """Per first letter, ``p(?i:assword|wd)...`` and ``P(?i:assword|wd)...``: a literal first
    character, the rest in any case, one branch per letter so a candidate is tested once.

    The lower-case form must not continue a lower-case word (``compass:`` and ``bypass=``
    are not passwords) unless that "word" is a JSON escape (``\\npasswd = x`` inside an
    escaped string); the upper-case form starts a word or a camelCase part (``dbPassword``).
    """
    by_first: dict[str, list[str]] = {}
    for word in words:
        by_first.setdefault(word[0], []).append(word[1:])
    branches = []
    for first, rests in by_first.items():
        rest = f"(?i:{'|'.join(rests)}){_SUFFIX}(?![A-Za-z0-9])" + _KEY_VALUE
        anchors = _KEY_ANCHORS[first]
        branches.append(Branch(f"{first}(?:(?<![a-z]{first})|(?<=\\\\[nrt]{first}))" + rest, folded=anchors))
        branches.append(Branch(first.upper() + rest, folded=anchors))
    return branches


def _header_branches(name: str, scheme: bool = False) -> list[Branch]:
    """``Authorization: <scheme> <anything>`` to the end of the line (the scheme word kept),
    or its quoted value."""
    rest = f"(?i:{name[1:]})"
    word = r"(?:[A-Za-z][\w-]{0,30}[ \t]+(?=[^\s]))?" if scheme else ""
    return [Branch(first + rest + r"((?:\\*[\"'])?[ \t]*[:=][ \t]*" + word + ")(?:" + _QUOTED + "|" + _LINE + ")",
                   folded=(name,)) for first in (name[0], name[0].upper())]


_BRANCHES: list[Branch] = [
    # Credentials in a URL: scheme://user:password@host keeps user and host. The user may be
    # empty (redis://:pw@host); the password may hold '/' and '@': it runs to the last '@'.
    Branch(r"://([^\s:/@'\"]{0,128}+:)(?>(?:[^\s'\"?#@:]|:(?!//)){1,256})(?:@(?>[^\s'\"?#@]{1,128})(?=@))*+(?=@)",
           ("://",)),
    # Passwords on a command line.
    Branch(r"curl([^\n|;&]{0,200}?[ \t](?:-b|--cookie)[ \t]*)(?:'[^'\n]{1,4096}'|\"[^\"\n]{1,4096}\"|[^\s'\"]{1,4096})",
           ("curl",)),
    Branch(r"mysql(?<![A-Za-z0-9_]mysql)([\w-]{0,20}[ \t][^\n|;&]{0,120}?[ \t]-p)" + _cli_value(3), ("mysql",)),
    Branch(r"mariadb(?<![A-Za-z0-9_]mariadb)([\w-]{0,20}[ \t][^\n|;&]{0,120}?[ \t]-p)" + _cli_value(3), ("mariadb",)),
    Branch(r"sshpass([ \t]+-p[ \t]*)" + _cli_value(1), ("sshpass",)),
    *(Branch(tool + r"([ \t]+login(?:[ \t]++(?!-p[ \t])[^\s|;&]++){0,8}+[ \t]+-p[ \t]+)[^\s'\"]{1,256}", (tool,))
      for tool in ("docker", "podman", "nerdctl")),  # word by word, possessive: no rescans
    # Everything that starts with '-' in one branch (the engine does not factor prefixes):
    # --password / --api-key style flags, curl -u / --user user:pass, and private key blocks.
    Branch(r"-(?:-(?:(?:[a-z0-9]+-){0,3}(?i:pass(?:word|wd)?|token|secret|api-?key|access-key|auth-token|client-secret)"
           r"(=|[ \t]+)(?:'[^'\n]{1,256}'|\"[^\"\n]{1,256}\"|(?!-)[^\s'\"]{1,256})"
           r"|user([ =]['\"]?[^\s:'\"]{1,64}:)[^\s'\"@]{1,256}"
           rf"|---BEGIN {_PEM_LABEL}(?s:.*?)(?:-----END {_PEM_LABEL}|\Z))"
           r"|u([ \t]*['\"]?[^\s:'\"]{1,64}:)[^\s'\"@]{1,256})", ("--", "-u")),
    # Provider key formats.
    *_anchored([r"sk-(?:ant-|proj-|live-)?[A-Za-z0-9_\-]{20,}"], "sk-"),
    *_anchored([r"sk_(?:live|test)_[A-Za-z0-9]{16,}"], "sk_"),
    *_anchored([r"rk_(?:live|test)_[A-Za-z0-9]{16,}"], "rk_"),
    *_anchored([r"whsec_[A-Za-z0-9]{20,}"], "whsec_"),
    *_anchored([r"gh(?:p|o|u|s|r)_[A-Za-z0-9]{20,}"], "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    *_anchored([r"github_pat_[A-Za-z0-9_]{20,}"], "github_pat_"),
    *_anchored([r"glpat-[A-Za-z0-9_\-]{20,}"], "glpat-"),
    *_anchored([r"A(?:KIA|SIA)[0-9A-Z]{16}"], "AKIA", "ASIA"),
    *_anchored([r"AIza[0-9A-Za-z_\-]{35}"], "AIza"),
    *_anchored([r"xox[abprse]-[A-Za-z0-9\-]{10,}"], "xox"),
    *_anchored([r"xapp-[A-Za-z0-9\-]{10,}"], "xapp-"),
    *_anchored([r"hooks\.slack\.com/(services|workflows|triggers)/[A-Za-z0-9_/\-]{8,}"], "hooks.slack.com/"),
    *_anchored([r"discord(?:app)?\.com/api/webhooks/[0-9]{5,24}/[A-Za-z0-9_\-]{20,}"], "discord"),
    *_anchored([r"do[opr]_v1_[a-f0-9]{64}"], "_v1_"),
    *_anchored([r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}"], "SG."),
    *_anchored([r"hf_[A-Za-z0-9]{30,}"], "hf_"),
    *_anchored([r"npm_[A-Za-z0-9]{36}"], "npm_"),
    *_anchored([r"pypi-AgE[A-Za-z0-9_\-]{40,}"], "pypi-AgE"),
    *_anchored([r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"], "shp"),
    *_anchored([r"key-[0-9a-f]{32}"], "key-"),
    *_anchored([r":AA(?<=[0-9]{6}:AA)[A-Za-z0-9_\-]{30,}"], ":AA"),  # Telegram bot tokens: <bot id>:AA...
    *(Branch(first + rf"(?<![A-Za-z0-9_\-]{first})[A-Za-z0-9]{{23,27}}\.[A-Za-z0-9_\-]{{6}}\.[A-Za-z0-9_\-]{{27,40}}",
             (first,)) for first in "MNO"),  # Discord bot tokens
    *_anchored([r"eyJ(?<![A-Za-z0-9_\-]eyJ)[A-Za-z0-9_\-]{10,4096}\.[A-Za-z0-9_\-]{10,4096}\.[A-Za-z0-9_\-]{10,4096}"],
               "eyJ"),
    *_anchored([r"Bearer([ \t]+)[A-Za-z0-9._~+/=\-]{16,}"], "Bearer"),
    *_anchored([r"Basic([ \t]+)[A-Za-z0-9+/]{8,}={0,2}"], "Basic"),
    # Header lines whose value is a credential, whatever its scheme.
    *_header_branches("authorization", scheme=True),
    *_header_branches("set-cookie"),
    *_header_branches("cookie"),
    *_key_word_branches(_KEY_WORDS),
]

# Characters that re's case-insensitive matching takes for an ASCII letter although
# str.lower() does not turn them into it; folded like the letter before anchors are looked
# for (a test derives this table from re itself).
_FOLD_CHARS = {"\u0130": "i", "\u0131": "i", "\u017f": "s"}
_FOLD = str.maketrans(_FOLD_CHARS)


class _Group(NamedTuple):
    """The branches that start with one character, as one alternation, and their anchors."""

    source: str
    exact: tuple[str, ...]
    folded: tuple[str, ...]


def _build_groups(branches: list[Branch]) -> dict[str, _Group]:
    """Branches grouped by their first (literal) character, in order: the engine then tests
    one group per candidate position instead of every branch."""
    parts: dict[str, list[Branch]] = {}
    for branch in branches:
        parts.setdefault(branch.pattern[0], []).append(branch)
    groups = {}
    for first, members in parts.items():
        source = f"{re.escape(first)}(?:{'|'.join(b.pattern[1:] for b in members)})"
        groups[first] = _Group(source, tuple(dict.fromkeys(a for b in members for a in b.exact)),
                               tuple(dict.fromkeys(a for b in members for a in b.folded)))
    return groups


_GROUPS = _build_groups(_BRANCHES)  # plain strings: nothing is compiled at import
_compiled: dict[str, re.Pattern[str]] = {}
_PEM_END = rf"-----END {_PEM_LABEL}"
_OPENING_QUOTE = r"\\*\"|'"
_QUOTES = ("\"", "'", "\\")


def _pattern(first: str) -> re.Pattern[str]:
    """The group of branches that start with ``first``, compiled on first use."""
    pattern = _compiled.get(first)
    if pattern is None:
        pattern = _compiled[first] = re.compile(_GROUPS[first].source)
    return pattern


_Plan = tuple[tuple[str, tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...]], ...]


def _anchor_plan(kind: str) -> _Plan:
    """The anchors of ``kind`` ("exact" or "folded") as a plan of substring tests: each anchor
    with the groups it stands for, bucketed by a character it holds that many texts lack
    (``_``, ``.``, ``:``, ``-``, or a capital first letter) and, within a bucket, by a three-letter start that three or
    more share, so one test skips them all when that character or start is absent."""
    table: dict[str, list[str]] = {}
    for first, group in _GROUPS.items():
        for anchor in getattr(group, kind):
            table.setdefault(anchor, []).append(first)
    # an anchor that holds another one standing for the same groups adds nothing
    table = {anchor: firsts for anchor, firsts in table.items()
             if not any(other != anchor and other in anchor and set(firsts) <= set(table[other]) for other in table)}
    buckets: dict[str, dict[str, list[tuple[str, tuple[str, ...]]]]] = {}
    for anchor, firsts in table.items():
        gate = next((c for c in "_.:-" if c in anchor), anchor[0] if anchor[0].isupper() else "")
        buckets.setdefault(gate, {}).setdefault(anchor[:3], []).append((anchor, tuple(firsts)))
    plan = []
    for gate, starts in buckets.items():
        families = []
        for start, items in starts.items():
            if len(items) >= 3:
                families.append((start, tuple(items)))
            else:
                families += [("", (item,)) for item in items]
        plan.append((gate, tuple(families)))
    return tuple(plan)


_EXACT = _anchor_plan("exact")
_FOLDED = _anchor_plan("folded")


def _present(plan: _Plan, text: str, needed: set[str]) -> None:
    for gate, families in plan:
        if gate and gate not in text:
            continue
        for start, items in families:
            if start and start not in text:
                continue
            for anchor, firsts in items:
                if anchor in text:
                    needed.update(firsts)


def _needed(text: str) -> set[str]:
    """The first characters of the groups whose anchors occur in ``text`` (only these can match)."""
    folded = text.lower()
    if not text.isascii() and any(c in text for c in _FOLD_CHARS):
        folded = text.translate(_FOLD).lower()
    needed: set[str] = set()
    _present(_EXACT, text, needed)
    _present(_FOLDED, folded, needed)
    return needed


def _is_basic_credential(token: str) -> bool:
    """Whether ``token`` is base64 of ``user:password`` (so "Basic configuration" stays)."""
    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


def _replace(m: re.Match[str]) -> str:
    whole = m.group(0)
    index = m.lastindex
    if index is None:
        return REDACTED
    keep_end = m.end(index) - m.start()
    first = whole[keep_end:keep_end + 1]
    if first not in _QUOTES:
        if whole[0] == "B" and whole.startswith("Basic") and not _is_basic_credential(whole[keep_end:]):
            return whole
        return whole[:keep_end] + REDACTED
    value = whole[keep_end:]
    quote = re.match(_OPENING_QUOTE, value)
    if quote is None:  # a backslash that opens no quote (``sshpass -p\\x``): an unquoted value
        return whole[:keep_end] + REDACTED
    opened = quote.group(0)  # keep quotes: JSON stays valid
    closed = opened if len(value) > 2 * len(opened) and value.endswith(opened) else ""
    return whole[:keep_end] + opened + REDACTED + closed


def _orphan_key_end(text: str) -> str:
    """``text`` whose start is the rest of a private key (an END line with no BEGIN before
    it, as in the tail of a cut message) with that rest replaced."""
    end = re.search(_PEM_END, text) if "-----END " in text else None
    if end is None or "-----BEGIN " in text[: end.start()]:
        return text
    return REDACTED + text[end.end():]


def redact(text: str) -> str:
    """``text`` with API keys, tokens, passwords, private keys and URL credentials replaced."""
    if not text:
        return text
    text = _orphan_key_end(text)
    if len(text) >= _WHOLE_FROM_CHARS:
        return _whole().sub(_replace, text)
    needed = _needed(text)
    if not needed:
        return text
    if len(needed) == 1:
        return _pattern(needed.pop()).sub(_replace, text)
    return _merged_sub([_pattern(first) for first in needed], text)


# From this size a text goes through the one alternation, compiled once (~30 ms): one scan
# in C, where the anchor tests, one search per group and a merge in Python of many
# matches would cost more (up to 1.8x on a megabyte of "token: x").
_WHOLE_FROM_CHARS = 200_000


def _whole() -> re.Pattern[str]:
    """Every group in one alternation (the same search as the groups merged)."""
    pattern = _compiled.get("")
    if pattern is None:
        pattern = _compiled[""] = re.compile("|".join(group.source for group in _GROUPS.values()))
    return pattern


def _merged_sub(patterns: list[re.Pattern[str]], text: str) -> str:
    """``re.sub`` of the alternation of ``patterns`` (groups with distinct first characters,
    so at most one can match at a position): the leftmost match of any, replaced, and the
    search goes on after it. Each pattern's next match is kept until a replacement passes
    its start, so each pattern searches every part of the text once: still linear."""
    pending = {pattern: pattern.search(text) for pattern in patterns}
    out: list[str] = []
    pos = 0
    while True:
        best = None
        for m in pending.values():
            if m is not None and (best is None or m.start() < best.start()):
                best = m
        if best is None:
            break
        out.append(text[pos:best.start()])
        out.append(_replace(best))
        pos = best.end()
        for pattern, m in pending.items():
            if m is not None and m.start() < pos:
                pending[pattern] = pattern.search(text, pos)
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)

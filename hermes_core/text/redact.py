"""Secret redaction for text that leaves the process (summary prompts, exports).

One compiled alternation, one ``re.sub`` pass per string: the reference system ran a
dozen regexes per message and spent most of its compaction time there. Every branch
starts with a literal character (no leading class, group or ``\\b``), which lets the
regex engine skip quickly to candidate positions; key words match case-insensitively
after that first character, whose two cases are spelled out as separate branches.

Every branch is linear in the text: a repeat either always succeeds once it has run
(provider key formats), is bounded, or stops at a character that cannot start another
candidate of the same branch. The JWT branch only starts where a run of token characters
starts, so ``eyJ`` repeated 70 000 times is one candidate, not 70 000.
"""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"

# What follows a key word in ``key=value``, ``"key": "value"`` or ``KEY: value``.
_KEY_VALUE = r"""([\"']?[ \t]*[:=][ \t]*[\"']?)(?![\"'\s]|\[REDACTED\])[^\s\"',;}{]{4,}"""
# Lower-case key words; separators between their parts are optional, so api_key, api-key,
# apiKey and APIKEY all match. accessToken and clientSecret match at "Token"/"Secret".
_KEY_WORDS = ("password", "passwd", "passphrase", "pwd", "secret", "token", "api[_-]?key",
              "access[_-]?key", "private[_-]?key", "secret[_-]?key")
_PEM_LABEL = r"[A-Z0-9 ]{0,40}PRIVATE KEY-----"


def _key_word_branches(words: tuple[str, ...]) -> list[str]:
    """``p(?i:assword)`` and ``P(?i:assword)``: a literal first character, the rest in any case."""
    return [first + f"(?i:{word[1:]})" + _KEY_VALUE for word in words for first in (word[0], word[0].upper())]


_BRANCHES = [
    # PEM private keys, the whole block; a block cut off before its END line runs to the end.
    rf"-----BEGIN {_PEM_LABEL}(?s:.*?)(?:-----END {_PEM_LABEL}|\Z)",
    # Credentials in a URL: scheme://user:password@host keeps user and host. The user may be
    # empty (redis://:pw@host) and the password may contain '@': it runs to the last '@'.
    r"://([^\s:/@'\"]{0,128}:)[^\s/'\"]{1,256}(?=@)",
    # Passwords on a command line: --password VALUE, --password=VALUE, mysql ... -pVALUE.
    r"--pass(?:word|wd)?(=|[ \t]+)(?!-)[^\s'\"]{3,}",
    r"mysql(?<![A-Za-z0-9_]mysql)([\w-]{0,20}[ \t][^\n|;&]{0,120}?[ \t]-p)[^\s'\"]{3,}",
    r"mariadb(?<![A-Za-z0-9_]mariadb)([\w-]{0,20}[ \t][^\n|;&]{0,120}?[ \t]-p)[^\s'\"]{3,}",
    # Provider key formats.
    r"sk-(?:ant-|proj-|live-)?[A-Za-z0-9_\-]{20,}",
    r"sk_(?:live|test)_[A-Za-z0-9]{16,}",
    r"gh(?:p|o|u|s|r)_[A-Za-z0-9]{20,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"glpat-[A-Za-z0-9_\-]{20,}",
    r"A(?:KIA|SIA)[0-9A-Z]{16}",
    r"AIza[0-9A-Za-z_\-]{35}",
    r"xox[abprs]-[A-Za-z0-9\-]{10,}",
    r"hf_[A-Za-z0-9]{30,}",
    r"eyJ(?<![A-Za-z0-9_\-]eyJ)[A-Za-z0-9_\-]{10,4096}\.[A-Za-z0-9_\-]{10,4096}\.[A-Za-z0-9_\-]{10,4096}",
    # Authorization: <scheme> <value> (Bearer, Basic, token, ...), and a bare Bearer token.
    *(first + r"(?i:uthorization)([\"']?[ \t]*[:=][ \t]*[\"']?(?:[A-Za-z][\w-]{0,30}[ \t]+)?)[^\s\"',;]{4,}"
      for first in "aA"),
    r"Bearer([ \t]+)[A-Za-z0-9._~+/=\-]{16,}",
    *_key_word_branches(_KEY_WORDS),
]


def _compile(branches: list[str]) -> re.Pattern[str]:
    """One alternation, branches grouped by their first (literal) character: the engine
    then tests one group per candidate position instead of every branch."""
    groups: dict[str, list[str]] = {}
    for branch in branches:
        groups.setdefault(branch[0], []).append(branch[1:])
    return re.compile("|".join(f"{re.escape(first)}(?:{'|'.join(rest)})" for first, rest in groups.items()))


_PATTERN = _compile(_BRANCHES)
_PEM_END = re.compile(rf"-----END {_PEM_LABEL}")


def _replace(m: re.Match[str]) -> str:
    index = m.lastindex
    if index is None:
        return REDACTED
    whole = m.group(0)
    keep_end = m.end(index) - m.start()
    return whole[:keep_end] + REDACTED


def _orphan_key_end(text: str) -> str:
    """``text`` whose start is the rest of a private key (an END line with no BEGIN before
    it, as in the tail of a cut message) with that rest replaced."""
    end = _PEM_END.search(text) if "-----END " in text else None
    if end is None or "-----BEGIN " in text[: end.start()]:
        return text
    return REDACTED + text[end.end():]


def redact(text: str) -> str:
    """``text`` with API keys, tokens, passwords, private keys and URL credentials replaced."""
    if not text:
        return text
    return _PATTERN.sub(_replace, _orphan_key_end(text))

"""Secret redaction for text that leaves the process (summary prompts, exports).

One compiled alternation, one ``re.sub`` pass per string: the reference system ran a
dozen regexes per message and spent most of its compaction time there. Every branch
starts with a literal character (no leading class or group), which lets the regex engine
skip quickly to candidate positions; key words match case-insensitively after that first
character, whose two cases are spelled out as separate branches.

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
# The rest of a header line, stopping at a real or a JSON-escaped line break or a private key block.
_LINE = rf"(?:[^\r\n\\-]|\\(?![nr])|-(?!----BEGIN )){{1,{_MAX_VALUE}}}"  # a key block is caught whole

# Lower-case key words that mean "the value is a secret"; a word may be followed by one
# or two of these parts (SECRET_KEY_BASE, password_hash, AUTH_TOKEN).
_SUFFIX = r"(?:[_.-]?(?i:key|base|id|value|hash|str|string|b64|base64|token|phrase|word|wd|enc|encrypted|plain)){0,2}"
_KEY_WORDS = ("pass(?:word|wd|phrase)?", "pwd", "secret", "token", "api[_-]?key",
              "access[_-]?key", "account[_-]?key", "private[_-]?key", "credentials?", "auth",
              "session[_-]?(?:id|token|key|secret)", "sig", "signature", "dsn")


def _key_word_branches(words: tuple[str, ...]) -> list[str]:
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
        branches.append(f"{first}(?:(?<![a-z]{first})|(?<=\\\\[nrt]{first}))" + rest)
        branches.append(first.upper() + rest)
    return branches


def _header_branches(name: str, scheme: bool = False) -> list[str]:
    """``Authorization: <scheme> <anything>`` to the end of the line (the scheme word kept),
    or its quoted value."""
    rest = f"(?i:{name[1:]})"
    word = r"(?:[A-Za-z][\w-]{0,30}[ \t]+(?=[^\s]))?" if scheme else ""
    return [first + rest + r"((?:\\*[\"'])?[ \t]*[:=][ \t]*" + word + ")(?:" + _QUOTED + "|" + _LINE + ")"
            for first in (name[0], name[0].upper())]


_BRANCHES = [
    # Credentials in a URL: scheme://user:password@host keeps user and host. The user may be
    # empty (redis://:pw@host); the password may hold '/' and '@': it runs to the last '@'.
    r"://([^\s:/@'\"]{0,128}+:)(?>(?:[^\s'\"?#@:]|:(?!//)){1,256})(?:@(?>[^\s'\"?#@]{1,128})(?=@))*+(?=@)",
    # Passwords on a command line.
    r"curl([^\n|;&]{0,200}?[ \t](?:-b|--cookie)[ \t]*)(?:'[^'\n]{1,4096}'|\"[^\"\n]{1,4096}\"|[^\s'\"]{1,4096})",
    r"mysql(?<![A-Za-z0-9_]mysql)([\w-]{0,20}[ \t][^\n|;&]{0,120}?[ \t]-p)[^\s'\"]{3,}",
    r"mariadb(?<![A-Za-z0-9_]mariadb)([\w-]{0,20}[ \t][^\n|;&]{0,120}?[ \t]-p)[^\s'\"]{3,}",
    r"sshpass([ \t]+-p[ \t]*)(?:'[^'\n]{1,256}'|\"[^\"\n]{1,256}\"|[^\s'\"]{1,256})",
    *(tool + r"([ \t]+login(?:[ \t]++(?!-p[ \t])[^\s|;&]++){0,8}+[ \t]+-p[ \t]+)[^\s'\"]{1,256}"
      for tool in ("docker", "podman", "nerdctl")),  # word by word, possessive: no rescans
    # Everything that starts with '-' in one branch (the engine does not factor prefixes):
    # --password / --api-key style flags, curl -u / --user user:pass, and private key blocks.
    r"-(?:-(?:(?:[a-z0-9]+-){0,3}(?i:pass(?:word|wd)?|token|secret|api-?key|access-key|auth-token|client-secret)"
    r"(=|[ \t]+)(?:'[^'\n]{1,256}'|\"[^\"\n]{1,256}\"|(?!-)[^\s'\"]{1,256})"
    r"|user([ =]['\"]?[^\s:'\"]{1,64}:)[^\s'\"@]{1,256}"
    rf"|---BEGIN {_PEM_LABEL}(?s:.*?)(?:-----END {_PEM_LABEL}|\Z))"
    r"|u([ \t]*['\"]?[^\s:'\"]{1,64}:)[^\s'\"@]{1,256})",
    # Provider key formats.
    r"sk-(?:ant-|proj-|live-)?[A-Za-z0-9_\-]{20,}",
    r"sk_(?:live|test)_[A-Za-z0-9]{16,}",
    r"rk_(?:live|test)_[A-Za-z0-9]{16,}",
    r"whsec_[A-Za-z0-9]{20,}",
    r"gh(?:p|o|u|s|r)_[A-Za-z0-9]{20,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"glpat-[A-Za-z0-9_\-]{20,}",
    r"A(?:KIA|SIA)[0-9A-Z]{16}",
    r"AIza[0-9A-Za-z_\-]{35}",
    r"xox[abprse]-[A-Za-z0-9\-]{10,}",
    r"xapp-[A-Za-z0-9\-]{10,}",
    r"hooks\.slack\.com/(services|workflows|triggers)/[A-Za-z0-9_/\-]{8,}",
    r"discord(?:app)?\.com/api/webhooks/[0-9]{5,24}/[A-Za-z0-9_\-]{20,}",
    r"do[opr]_v1_[a-f0-9]{64}",
    r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}",
    r"hf_[A-Za-z0-9]{30,}",
    r"npm_[A-Za-z0-9]{36}",
    r"pypi-AgE[A-Za-z0-9_\-]{40,}",
    r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
    r"key-[0-9a-f]{32}",
    r":AA(?<=[0-9]{6}:AA)[A-Za-z0-9_\-]{30,}",  # Telegram bot tokens: <bot id>:AA...
    *(first + rf"(?<![A-Za-z0-9_\-]{first})[A-Za-z0-9]{{23,27}}\.[A-Za-z0-9_\-]{{6}}\.[A-Za-z0-9_\-]{{27,40}}"
      for first in "MNO"),  # Discord bot tokens
    r"eyJ(?<![A-Za-z0-9_\-]eyJ)[A-Za-z0-9_\-]{10,4096}\.[A-Za-z0-9_\-]{10,4096}\.[A-Za-z0-9_\-]{10,4096}",
    r"Bearer([ \t]+)[A-Za-z0-9._~+/=\-]{16,}",
    r"Basic([ \t]+)[A-Za-z0-9+/]{8,}={0,2}",
    # Header lines whose value is a credential, whatever its scheme.
    *_header_branches("authorization", scheme=True),
    *_header_branches("set-cookie"),
    *_header_branches("cookie"),
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
_OPENING_QUOTE = re.compile(r"\\*\"|'")
_QUOTES = ("\"", "'", "\\")


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
    opened = _OPENING_QUOTE.match(value).group(0)  # type: ignore[union-attr]  # keep quotes: JSON stays valid
    closed = opened if len(value) > 2 * len(opened) and value.endswith(opened) else ""
    return whole[:keep_end] + opened + REDACTED + closed


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

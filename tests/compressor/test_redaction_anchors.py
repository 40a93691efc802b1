"""Redaction compiles only the branch groups a text needs, with the one alternation's output.

``redact`` skips a group when none of its anchors occurs in the text. That is only exact
if every match of every branch starts with one of its anchors, so the anchors are checked
against the branches themselves: each pattern is parsed (``re._parser``, the engine's own
parser) and every literal start it can have must begin with a declared anchor. The
merge of the groups' searches is held to ``re.sub`` of the whole alternation on seeded
hostile splices, and the case folding to what ``re`` itself takes for a letter.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.text import redact as R

try:  # Python 3.11+
    from re import _constants as C
    from re import _parser as P
except ImportError:  # pragma: no cover
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

Prefix = tuple[tuple[tuple[str, bool], ...], bool]  # ((char, case-insensitive), ...), complete
_ZERO_WIDTH = (C.ASSERT, C.ASSERT_NOT, C.AT)


def _starts(items: list, ignorecase: bool, limit: int = 20_000) -> list[Prefix]:
    """Every literal start a parsed sequence can have, each with whether the sequence is
    fully consumed there (True) or a non-literal item stops it (False). Zero-width items
    are skipped; a repeat is either skipped (when it may be) or taken once and then stops."""
    prefixes: list[Prefix] = [((), True)]
    for op, av in items:
        alternatives = _item_starts(op, av, ignorecase, limit)
        if alternatives is None:
            continue
        grown: list[Prefix] = []
        for chars, open_ in prefixes:
            if not open_:
                grown.append((chars, False))
                continue
            grown += [(chars + more, complete) for more, complete in alternatives]
        prefixes = list(dict.fromkeys(grown))
        assert len(prefixes) <= limit, "too many literal starts to check"
    return prefixes


def _item_starts(op: object, av: object, ignorecase: bool, limit: int) -> list[Prefix] | None:
    """The literal starts of one parsed item (None: zero width)."""
    if op in _ZERO_WIDTH:
        return None
    if op is C.LITERAL:
        return [(((chr(av), ignorecase),), True)]  # type: ignore[arg-type]
    if op is C.IN and all(o is C.LITERAL for o, _ in av):  # type: ignore[attr-defined]
        return [(((chr(v), ignorecase),), True) for _, v in av]  # type: ignore[attr-defined]
    if op is C.SUBPATTERN:
        _group, add, remove, sub = av  # type: ignore[misc]
        ci = (ignorecase or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE
        return _starts(list(sub), ci, limit)
    if op is getattr(C, "ATOMIC_GROUP", None):
        return _starts(list(av), ignorecase, limit)  # type: ignore[arg-type]
    if op is C.BRANCH:
        return [p for seq in av[1] for p in _starts(list(seq), ignorecase, limit)]  # type: ignore[index]
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
        lo, hi, sub = av  # type: ignore[misc]
        once = _starts(list(sub), ignorecase, limit)
        taken = [(chars, complete and hi == 1) for chars, complete in once]
        return ([((), True)] if lo == 0 else []) + taken
    return [((), False)]


def _covered(chars: tuple[tuple[str, bool], ...], branch: R.Branch) -> bool:
    """Whether a literal start holds an anchor: an exact one over case-sensitive characters,
    or a folded one in the lower-cased start."""
    text = "".join(c for c, _ in chars)
    for anchor in branch.exact:
        at = text.find(anchor)
        while at >= 0:
            if not any(ci for _, ci in chars[at:at + len(anchor)]):
                return True
            at = text.find(anchor, at + 1)
    return any(anchor in text.lower() for anchor in branch.folded)


@pytest.mark.parametrize("branch", R._BRANCHES, ids=lambda b: b.pattern[:24])
def test_every_literal_start_of_a_branch_begins_with_one_of_its_anchors(branch: R.Branch) -> None:
    assert branch.exact or branch.folded, "a branch without anchors would never run"
    assert all(a == a.lower() for a in branch.folded), "folded anchors are tested on lower-cased text"
    for chars, _ in _starts(list(P.parse(branch.pattern)), False):
        shown = "".join(c for c, _ in chars)
        assert _covered(chars, branch), f"{branch.pattern[:40]!r} can start {shown!r}, which no anchor covers"


def test_the_anchor_check_catches_a_wrong_anchor() -> None:
    """The check above can fail: an anchor the pattern does not start with, or an exact
    anchor over a case-insensitive part."""
    for wrong in (R.Branch(r"sk-[A-Za-z0-9]{20,}", ("sk_",)), R.Branch("p(?i:ass)", ("pass",)),
                  R.Branch("(?:ab|cd)x", ("ab",))):
        starts = _starts(list(P.parse(wrong.pattern)), False)
        assert not all(_covered(chars, wrong) for chars, _ in starts)


def test_fold_table_is_every_character_re_takes_for_an_ascii_letter() -> None:
    letters = re.compile("(?i:[a-z])")
    found = {}
    for cp in range(128, sys.maxunicode + 1):
        ch = chr(cp)
        if letters.fullmatch(ch) and not ch.lower().isascii():
            found[ch] = next(a for a in "abcdefghijklmnopqrstuvwxyz" if re.fullmatch(f"(?i:{a})", ch))
    assert found == R._FOLD_CHARS


def _reference() -> re.Pattern[str]:
    """The whole alternation in one pattern, as redaction was compiled before."""
    return re.compile("|".join(group.source for group in R._GROUPS.values()))


_FRAGMENTS = [
    "password", "Password", "PASSWORD", "paſſword", "pa\u0130d", "db_pass", "token", "Token", "api_key", "ApiKey",
    "secret", "SESSION_ID", "sessionid", "sessions", "sig", "design", "credentials", "dsn", "Authorization",
    "authorization", "Cookie", "set-cookie", "curl -u bob:pw", "--password", "--token", "-u", "mysql -uroot -pX",
    "sshpass -p", "docker login -p", "://", "https://u:p@host", "redis://:pw@h", ":AA", "123456:AA", "sk-",
    "sk_live_", "rk_test_", "ghp_", "github_pat_", "glpat-", "AKIA", "ASIA", "AIza", "xoxb-", "xapp-", "SG.",
    "hooks.slack.com/services/", "discord.com/api/webhooks/123456/", "dop_v1_", "hf_", "npm_", "pypi-AgE",
    "shpat_", "key-", "eyJ", "Bearer ", "Basic ", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "M", "N", "O", "\\\"", "\\n", '"', "'", "=", ": ", " = ", ":=", "=>", "\n", " ", "\t", "@", ".", "/", "_", "-",
    "abcdefghij0123456789ABCDEFGHIJ", "0123456789abcdef" * 4, "Zm9vOmJhcg==", "x" * 40, "[REDACTED]", "None", "${X}",
]


def _splice(rng: random.Random) -> str:
    return "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(1, 24)))


def test_groups_searched_apart_give_the_one_alternations_output() -> None:
    reference = _reference()
    rng = random.Random("redaction-anchors-1")
    for _ in range(4000):
        text = _splice(rng)
        expected = reference.sub(R._replace, R._orphan_key_end(text)) if text else text
        assert R.redact(text) == expected, text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS) | st.text(max_size=6), max_size=30).map("".join))
def test_groups_searched_apart_match_the_alternation_on_any_mix(text: str) -> None:
    expected = _reference().sub(R._replace, R._orphan_key_end(text)) if text else text
    assert R.redact(text) == expected


def test_a_megabyte_takes_the_one_alternation_with_the_same_output() -> None:
    rng = random.Random("redaction-anchors-big")
    text = "".join(_splice(rng) for _ in range(2_500))
    text += "x" * max(0, R._WHOLE_FROM_CHARS - len(text))
    assert len(R._needed(R._orphan_key_end(text))) >= 3
    assert R.redact(text) == _reference().sub(R._replace, R._orphan_key_end(text))
    assert "" in R._compiled


def test_nothing_is_compiled_at_import_or_for_text_without_anchors() -> None:
    code = ("import re, sys; import hermes_core.text.redact as r; "
            "assert not r._compiled, r._compiled; "
            "assert r.redact('a long, plain sentence about sessions and design, 2+2').startswith('a long'); "
            "assert not r._compiled, r._compiled; r.redact('token: abc'); print(sorted(r._compiled))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["['T',", "'t']"]

"""The ledger's fast token patterns find exactly what their readable look-behind forms find.

For speed the patterns start with the character before a token (so the regex engine can
skip ahead) and are searched with a space in front of the text; the readable forms below
are the definitions. If you change one, change the other with it.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.text import ledger

SEP = ledger._SEP_CHARS
READABLE_TOKEN = re.compile(rf"(?<![^{SEP}])[^{SEP}./:]{{0,400}}[./:][^{SEP}]{{0,400}}")
READABLE_HASH = re.compile(r"(?<![0-9A-Za-z:])[0-9a-f]{7,40}(?![0-9A-Za-z:])")
READABLE_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]?")
READABLE_QUOTED_ERROR = re.compile(r"(?:\b[A-Z][A-Z0-9]*_?ERR[A-Z0-9_]*|\bERR_[A-Z0-9_]+|\b[A-Z]\w*(?:Error|Exception))"
                                   r"\b[^\n]{0,200}")

PIECES = st.sampled_from(["a", "F", "0", "9", "deadbee", "c0ffee1", ".", "/", ":", " ", "\n", "\t", "\u3000", "`",
                          '"', "(", "]", ",", "=", "*", "!", "?", "é", "中", "x" * 398, "src/a.py", "sha256:", "-",
                          "ERR", "ERR_", "_", "E", "Error", "Exception", "ValueError", "xError", "ÉError", "AB",
                          "\xa0", "\x1c", "\u2003", "word", "Wörd", "abc", "cafe", "中文"])
TEXT = st.lists(PIECES, max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_fast_patterns_equal_the_readable_ones(text: str) -> None:
    assert ledger._TOKEN_RE.findall(" " + text) == READABLE_TOKEN.findall(text)
    assert ledger._HASH_RE.findall(" " + text) == READABLE_HASH.findall(text)
    assert ledger._SENTENCE_RE.findall(text) == READABLE_SENTENCE.findall(text)
    assert ledger._QUOTED_ERROR_RE.findall(text) == READABLE_QUOTED_ERROR.findall(text)


def _kept_hashes(found: list[str]) -> list[str]:
    return [h for h in found if not h.isdigit() and not h.isalpha()]


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_patterns_find_the_same_on_the_words_that_are_not_letters_only(text: str) -> None:
    """identifiers() searches only the words that are not letters only: same tokens, same kept hashes."""
    shortened = ledger._pattern_input(text)
    assert ledger._TOKEN_RE.findall(shortened) == READABLE_TOKEN.findall(text)
    assert _kept_hashes(ledger._HASH_RE.findall(shortened)) == _kept_hashes(READABLE_HASH.findall(text))


ASCII_CUE_TEXT = st.lists(st.sampled_from([
    "please", "PLEASE", "Can You", "could you", "make sure", "Later,", "todo", "TODO", "update:", "Is Now", "no longer",
    "must", "NEVER", "Don't", "only", "decided", "Instead Of", "switched to", "Root cause", "because", "measured",
    "Turns Out", "the cause", "12", "3.5", "ms", "MS", "KB", "kib", "GiB", "x", "X", "s", "sec", "tokens", "rps", "%",
    " ", "\n", ".", ",", "_", "a", "Z", "9", "-", "'"]), max_size=25).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(ASCII_CUE_TEXT, TEXT))
def test_case_folded_cues_find_what_the_case_insensitive_ones_find(text: str) -> None:
    for cue in (ledger._REQUEST_RE, ledger._UPDATE_RE, ledger._CONSTRAINT_RE, ledger._DECISION_RE,
                ledger._FINDING_RE, ledger._INFORMATIVE_RE):
        assert ledger._cue_in(cue, text) == (cue.search(text) is not None), (cue.pattern, text)


def test_every_case_insensitive_cue_has_its_fast_form() -> None:
    """A cue the folding cannot handle still works (searched as it is) but loses the speed-up."""
    for cue in (ledger._REQUEST_RE, ledger._UPDATE_RE, ledger._CONSTRAINT_RE, ledger._DECISION_RE,
                ledger._FINDING_RE):
        assert ledger._ascii_folded(cue) is not None, cue.pattern

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
                          "ERR", "ERR_", "_", "E", "Error", "Exception", "ValueError", "xError", "ÉError", "AB"])
TEXT = st.lists(PIECES, max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_fast_patterns_equal_the_readable_ones(text: str) -> None:
    assert ledger._TOKEN_RE.findall(" " + text) == READABLE_TOKEN.findall(text)
    assert ledger._HASH_RE.findall(" " + text) == READABLE_HASH.findall(text)
    assert ledger._SENTENCE_RE.findall(text) == READABLE_SENTENCE.findall(text)
    assert ledger._QUOTED_ERROR_RE.findall(text) == READABLE_QUOTED_ERROR.findall(text)

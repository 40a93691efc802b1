"""``first_error_at`` finds exactly where ``ERROR_LINE_RE`` finds the first error line.

The compressor and the ledger look for the first error line of many tool outputs; a
``str.find`` per literal of the pattern is faster than the regex scan, and must agree with
it on every text and every ``start``/``end`` window.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.text import error_search
from hermes_core.text.error_search import first_error_at
from hermes_core.text.messages import ERROR_LINE_RE

PIECES = st.sampled_from([
    "Traceback", "Error", "Errors", "Error_", "Error:", "Erroré", "ValueError", "Exception", "Exceptions", "FAILED",
    "FAIL:", "FAIL", "error:", "error", "ERROR", "fatal:", "Fatal:", "fatal", "failed", "failedx", "failed.",
    "timed out", "timed", "No such file", "command not found", "Permission denied", "exit code 0", "exit code 7",
    "exit code ", "exit code", "Err", "or", " ", "\n", "a", "é", "中", "1", "9", "_", ":", "x" * 50])
TEXT = st.lists(PIECES, max_size=30).map("".join)


def _regex(text: str, start: int, end: int | None) -> int:
    hit = ERROR_LINE_RE.search(text, start, len(text) if end is None else end)
    return hit.start() if hit else -1


@settings(max_examples=500, deadline=None)
@given(TEXT, st.data())
def test_first_error_at_equals_the_regex(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) + 2))
    end = data.draw(st.none() | st.integers(0, len(text) + 2))
    assert first_error_at(text, start, end) == _regex(text, start, end)


def test_the_pattern_is_read_as_literals() -> None:
    """Every branch of ERROR_LINE_RE is understood (else the regex is used and the speed-up is lost)."""
    branches = error_search._parse(ERROR_LINE_RE.pattern)
    assert branches is not None
    assert len(branches) == ERROR_LINE_RE.pattern.count("|") + 1


def test_a_pattern_it_cannot_read_is_searched_as_a_regex() -> None:
    assert error_search._parse(r"Error\b|fail(?:ed)?") is None
    assert error_search._parse(r"abc\b|x+") is None

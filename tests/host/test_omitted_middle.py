"""hermes_core.text.messages.omitted_middle: the head/tail bound both engines use for summary input."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hermes_core.text.messages import omitted_middle


@given(st.lists(st.integers(0, 5000), max_size=60), st.integers(1, 20000), st.floats(0.0, 1.0))
def test_what_is_kept_fits_and_is_a_head_and_a_tail(sizes, budget, head_share):
    i, j = omitted_middle(sizes, budget, head_share)
    n = len(sizes)
    assert 0 <= i <= j <= n
    if sum(sizes) <= budget:
        assert (i, j) == (n, n)
    else:
        assert j > i  # something is left out
        assert sum(sizes[:i]) <= int(budget * head_share)
        assert sum(sizes[:i]) + sum(sizes[j:]) <= budget


def test_keeps_the_start_and_the_newest_items():
    assert omitted_middle([10] * 10, 45, 0.4) == (1, 8)  # head: 1 item (budget 18), tail: 2 (budget 27)

"""The compressor's one-pass measurement equals the plain definitions it replaces.

``measure`` counts common message shapes inline for speed; these properties hold it to
``estimate_message_tokens`` and ``is_summary`` on every shape a transcript can hold
(odd contents, tool calls with non-string arguments or names, merged summaries), and the
sliced span to the message-by-message walk it replaced.
"""

from __future__ import annotations

from typing import Any

from hermes_compressor.boundaries import Plan
from hermes_compressor.constants import SUMMARY_END, SUMMARY_PREFIX
from hermes_compressor.engine import CompressorEngine
from hermes_compressor.measure import measure
from hermes_compressor.summary_message import is_summary, split_summary
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.text.tokens import estimate_message_tokens

TEXTS = st.sampled_from(["", "x" * 37, "héllo wörld " * 9, f"{SUMMARY_PREFIX}\n\nold `a.py`\n\n{SUMMARY_END}",
                         f"{SUMMARY_PREFIX}\n\nold\n\n{SUMMARY_END}\n\nand more", "[CONTEXT COMPACTION"])
CONTENTS = st.one_of(TEXTS, st.none(), st.integers(), st.lists(st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": TEXTS}),
    st.just({"type": "image_url", "image_url": {"url": "u"}}), st.just({"type": "text"}), st.just("bare")),
    max_size=3))
CALLS = st.lists(st.one_of(
    st.fixed_dictionaries({"id": st.text(max_size=3), "function": st.fixed_dictionaries({
        "name": st.one_of(st.sampled_from(["bash", "", "read_file"]), st.none(), st.integers()),
        "arguments": st.one_of(st.sampled_from(['{"path": "a.py"}', "", "x" * 900]), st.none(),
                               st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))})}),
    st.just({"id": "c", "function": "not a dict"}), st.just("not a call")), max_size=3)
MESSAGE = st.builds(lambda role, content, calls, has_calls: {"role": role, "content": content,
                                                             **({"tool_calls": calls} if has_calls else {})},
                    st.sampled_from(["system", "user", "assistant", "tool"]), CONTENTS,
                    st.one_of(CALLS, st.none(), st.just("odd")), st.booleans())


def _is_carrier(msg: dict[str, Any]) -> bool:
    content = msg.get("content")
    return content.startswith(SUMMARY_PREFIX) if isinstance(content, str) else (
        isinstance(content, list) and is_summary(msg))


@settings(max_examples=200, deadline=None)
@given(st.lists(MESSAGE, max_size=25))
def test_measure_equals_the_plain_estimate_and_summary_check(messages: list[dict[str, Any]]) -> None:
    tokens, carriers = measure(messages)
    assert tokens.total == sum(estimate_message_tokens(m) for m in messages)
    assert list(tokens) == [estimate_message_tokens(m) for m in messages]
    assert [tokens[i] for i in range(-len(messages), 0)] == list(tokens)
    assert carriers == [i for i, m in enumerate(messages) if _is_carrier(m)]


def _walked_span(messages: list[dict[str, Any]], split: Plan) -> tuple[str | None, list[dict[str, Any]]]:
    """The span as the message-by-message walk built it."""
    previous, turns = None, []
    for i in range(split.head_end, split.cut):
        if i == split.pinned:
            continue
        if _is_carrier(messages[i]):
            body, remainder = split_summary(messages[i])
            if previous is not None:
                turns.append({"role": "system", "content": f"[earlier summary]\n{previous}"})
            previous = body
            if remainder is not None:
                turns.append(remainder)
        else:
            turns.append(messages[i])
    return previous, turns


@settings(max_examples=200, deadline=None)
@given(st.lists(MESSAGE, max_size=25), st.data())
def test_sliced_span_equals_the_walk(messages: list[dict[str, Any]], data: st.DataObject) -> None:
    head = data.draw(st.integers(0, len(messages)))
    cut = data.draw(st.integers(head, len(messages)))
    pinned = data.draw(st.none() | st.integers(head, cut - 1)) if cut > head else None
    split = Plan(head, cut, pinned)
    _, carriers = measure(messages)
    previous, turns = CompressorEngine._span_turns(messages, split, carriers)
    walked_previous, walked = _walked_span(messages, split)
    assert (previous, list(turns)) == (walked_previous, walked)
    assert [turns[i] for i in range(len(turns))] == walked  # the view's indexing...
    a = data.draw(st.integers(-2, len(walked) + 2))
    b = data.draw(st.integers(-2, len(walked) + 2))
    assert turns[a:b] == walked[a:b]  # ...and slicing
    assert list(reversed(turns)) == walked[::-1]

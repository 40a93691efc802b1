"""Property tests: the conformance suite over generated conversations (hypothesis)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hermes_compressor import CompressorEngine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_core.testing.engine_conformance import check_engine, engine_factory

ARGUMENTS = ['{"path": "a.py"}', '{"command": "' + "y" * 900 + '"}', "not json", "{}"]
EXAMPLES = int(os.environ.get("HERMES_HYPOTHESIS_EXAMPLES", "120"))
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@st.composite
def content(draw: Any, role: str) -> Any:
    size = draw(st.sampled_from([0, 10, 200, 1500, 6000]))
    text = draw(TEXT) + "x" * size
    if role == "user" and draw(st.booleans()):
        return [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": "https://e/x.png"}}]
    return text


@st.composite
def conversations(draw: Any) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(content("system"))})
    call_no = 0
    for _ in range(draw(st.integers(1, 12))):
        user: dict[str, Any] = {"role": "user", "content": draw(content("user"))}
        if draw(st.booleans()):
            user["x_meta"] = {"k": draw(TEXT)}
        messages.append(user)
        for _ in range(draw(st.integers(0, 4))):
            n_calls = draw(st.integers(0, 3))
            if not n_calls:
                messages.append({"role": "assistant", "content": draw(content("assistant"))})
                continue
            calls = []
            for _ in range(n_calls):
                call_no += 1
                args = draw(st.sampled_from(ARGUMENTS))
                calls.append({"id": f"call_{call_no}", "type": "function",
                              "function": {"name": "tool", "arguments": args}})
            text = draw(st.none() | content("assistant"))
            messages.append({"role": "assistant", "content": text, "tool_calls": calls})
            for call in calls:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": draw(content("tool"))})
    return messages


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(messages=conversations(), context_length=st.sampled_from([800, 2_000, 4_000, 8_000, 16_000]))
def test_generated_conversations_conform(messages: list[dict[str, Any]], context_length: int) -> None:
    problems = check_engine(engine_factory(CompressorEngine, Path("/nonexistent-home")), messages, context_length)
    if context_length < TINY_WINDOW:  # see test_tiny_window_cannot_always_shrink
        problems = [p for p in problems if "so it could have shrunk" not in p]
    assert not problems, "\n".join(problems)


TINY_WINDOW = 2_000


@pytest.mark.xfail(strict=True, reason="known: in an 800-token window (threshold 400) a summary costs more than "
                   "the 20 tokens of droppable messages, and the compressor does not drop turns unsummarized")
def test_tiny_window_cannot_always_shrink() -> None:
    messages = [{"role": "user", "content": ""}, {"role": "user", "content": ""},
                {"role": "user", "content": "x" * 1500}]
    assert check_engine(engine_factory(CompressorEngine, Path("/nonexistent-home")), messages, 800) == []

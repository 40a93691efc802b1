"""sanitize_tool_pairs: orphan results dropped, unanswered calls stubbed, reused ids per group."""

from __future__ import annotations

from typing import Any

from hermes_core.text.messages import STUB_TOOL_RESULT, api_problems, sanitize_tool_pairs

Message = dict[str, Any]


def _call(cid: str) -> Message:
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": cid, "type": "function", "function": {"name": "ls", "arguments": "{}"}}]}


def _reused_ids(turns: int = 12) -> list[Message]:
    """Every turn's tool call is ``call_0`` (agents that number calls per turn)."""
    msgs: list[Message] = [{"role": "system", "content": "s"}]
    for k in range(turns):
        msgs += [{"role": "user", "content": f"ask {k}"}, _call("call_0"),
                 {"role": "tool", "tool_call_id": "call_0", "content": f"result {k}"},
                 {"role": "assistant", "content": f"answer {k}"}]
    return msgs


def test_a_reused_id_is_answered_in_each_group() -> None:
    msgs = _reused_ids()
    out = sanitize_tool_pairs(msgs)
    assert len(out) == len(msgs) and all(a is b for a, b in zip(out, msgs, strict=True))
    assert not any(m.get("content") == STUB_TOOL_RESULT for m in out)
    problems = api_problems(out)
    assert problems and all("duplicate tool call id 'call_0'" in p for p in problems), problems


def test_compressor_keeps_reused_id_pairs(make_engine: Any) -> None:
    msgs = _reused_ids()
    for m in msgs:
        if m.get("role") in ("user", "assistant", "tool") and isinstance(m.get("content"), str):
            m["content"] += " " + "w " * 300
    engine = make_engine(context_length=8000)
    out = engine.compress(msgs, force=True).messages
    assert out is not msgs, engine.last_compaction_note
    problems = [p for p in api_problems(out) if "duplicate tool call id" not in p]
    assert problems == []


def test_orphans_dropped_unanswered_stubbed_and_answers_kept_once() -> None:
    result = {"role": "tool", "tool_call_id": "a", "content": "A"}
    msgs: list[Message] = [
        {"role": "user", "content": "u"},
        {"role": "tool", "tool_call_id": "a", "content": "orphan before its call"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "x", "arguments": "{}"}}]},
        result, {"role": "tool", "tool_call_id": "a", "content": "second answer"},
        {"role": "tool", "tool_call_id": "zzz", "content": "no such call"},
        {"role": "user", "content": "v"},
        {"role": "tool", "tool_call_id": "b", "content": "late answer, group closed"},
    ]
    out = sanitize_tool_pairs(msgs)
    assert out[0] is msgs[0] and out[1] is msgs[2] and out[2] is result and out[4] is msgs[6]
    assert out[3] == {"role": "tool", "tool_call_id": "b", "content": STUB_TOOL_RESULT}
    assert len(out) == 5
    assert api_problems(out) == []

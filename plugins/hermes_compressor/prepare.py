"""The summarizer's input: the dropped turns, capped and redacted in one pass.

Each message is cut to 6000 characters (first 4000 + last 1500) and tool-call arguments
to 1500; the whole span is then held under ``SUMMARY_INPUT_MAX_CHARS`` by keeping its
head (45 %) and tail (55 %) and saying what was left out. Redaction runs last, on
exactly the text that will leave the process, so its cost is bounded by the cap.
"""

from __future__ import annotations

from typing import Any

from hermes_compressor.constants import (
    CONTENT_HEAD,
    CONTENT_MAX,
    CONTENT_TAIL,
    SUMMARY_INPUT_HEAD_SHARE,
    SUMMARY_INPUT_MAX_CHARS,
    TOOL_ARGS_MAX,
)
from hermes_core.messages import text_of
from hermes_core.redact import redact

Message = dict[str, Any]


def cap_text(text: str, limit: int = CONTENT_MAX, head: int = CONTENT_HEAD, tail: int = CONTENT_TAIL) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:head]}\n...[truncated {len(text) - head - tail} chars]...\n{text[-tail:]}"


def _light(msg: Message) -> Message:
    """A capped, plain-text copy of one message (content flattened, arguments capped)."""
    out: Message = {"role": msg.get("role"), "content": cap_text(text_of(msg.get("content")))}
    if msg.get("tool_call_id") is not None:
        out["tool_call_id"] = msg["tool_call_id"]
    calls = []
    for call in msg.get("tool_calls") or ():
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict):
            continue
        args = fn.get("arguments")
        args = args if isinstance(args, str) else str(args)
        calls.append({"id": call.get("id"), "type": "function",
                      "function": {"name": str(fn.get("name") or ""),
                                   "arguments": cap_text(args, TOOL_ARGS_MAX, TOOL_ARGS_MAX - 300, 200)}})
    if calls:
        out["tool_calls"] = calls
    return out


def _size(msg: Message) -> int:
    return len(msg["content"]) + sum(len(c["function"]["arguments"]) for c in msg.get("tool_calls", ()))


def _redacted(msg: Message) -> Message:
    msg["content"] = redact(msg["content"])
    for call in msg.get("tool_calls", ()):
        call["function"]["arguments"] = redact(call["function"]["arguments"])
    return msg


def summary_turns(turns: list[Message], max_chars: int = SUMMARY_INPUT_MAX_CHARS) -> list[Message]:
    """The turns as the summarizer will see them: capped, bounded in total, redacted."""
    light = [_light(m) for m in turns]
    sizes = [_size(m) for m in light]
    total = sum(sizes)
    if total > max_chars:
        head_budget = int(max_chars * SUMMARY_INPUT_HEAD_SHARE)
        tail_budget = max_chars - head_budget
        i, used = 0, 0
        while i < len(light) and used + sizes[i] <= head_budget:
            used += sizes[i]
            i += 1
        j, used = len(light), 0
        while j > i and used + sizes[j - 1] <= tail_budget:
            used += sizes[j - 1]
            j -= 1
        omitted = sum(sizes[i:j])
        note = {"role": "system",
                "content": f"[{j - i} turns ({omitted} chars) omitted here to bound the summary input]"}
        light = [*light[:i], note, *light[j:]]
    return [_redacted(m) for m in light]

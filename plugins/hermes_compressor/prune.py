"""Step 1, the cheap part: shrink kept messages without any model call (seed 2.3).

Old tool outputs become one-line descriptions, identical outputs are kept once (the
newest), and oversized tool-call arguments are shrunk leaf by leaf so they stay valid
JSON (cutting raw JSON text caused 400 loops in the reference system). Every function
returns new dicts and leaves its input alone.
"""

from __future__ import annotations

import json
from typing import Any

from hermes_compressor.constants import (
    ARGS_LEAF_MAX_CHARS,
    ARGS_SHRINK_MIN_CHARS,
    DUPLICATE_TOOL_OUTPUT,
    ERROR_SCAN_HEAD,
    ERROR_SCAN_TAIL,
    PRUNE_MIN_CHARS,
    PRUNED_TOOL_PREFIX,
)
from hermes_core.text.error_search import first_error_at
from hermes_core.text.messages import text_of

Message = dict[str, Any]
ToolIndex = dict[str, str]  # call id -> tool name


def tool_index(messages: list[Message]) -> ToolIndex:
    """Map every tool-call id to its tool name, in one pass."""
    index: ToolIndex = {}
    for msg in messages:
        for call in msg.get("tool_calls") or ():
            if isinstance(call, dict):
                fn = call.get("function")
                index[str(call.get("id"))] = str(fn.get("name") or "tool") if isinstance(fn, dict) else "tool"
    return index


def _is_marker(text: str) -> bool:
    return text.startswith(PRUNED_TOOL_PREFIX) or text == DUPLICATE_TOOL_OUTPUT


def _clip(text: str, limit: int) -> str:
    text = " ".join(text[: limit * 2].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _line_at(text: str, pos: int) -> str:
    end = text.find("\n", pos)
    return text[text.rfind("\n", 0, pos) + 1: end if end != -1 else len(text)].strip()


def describe_tool_output(name: str, output: str) -> str:
    """One line that says what an old tool call returned and how it ended (first error line).

    The call's arguments stay on the assistant message just before it, so they are not repeated.
    """
    lines = output.count("\n") + 1
    first = next((ln for ln in output[:400].splitlines() if ln.strip()), "")
    line = f"{PRUNED_TOOL_PREFIX} {name[:60]} -> {len(output)} chars, {lines} lines; began: {_clip(first, 100)}"
    hits = (first_error_at(output, 0, ERROR_SCAN_HEAD),
            first_error_at(output, max(ERROR_SCAN_HEAD, len(output) - ERROR_SCAN_TAIL)))
    errors = [_line_at(output, at) for at in hits if at >= 0]
    if errors:
        line += f"; error: {_clip(' | '.join(errors), 200)}"
    return line


def dedup_tool_outputs(messages: list[Message]) -> list[Message]:
    """Replace older copies of an identical long tool output with a short marker."""
    seen: set[str] = set()
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        msg = out[i]
        content = msg.get("content")
        if msg.get("role") != "tool" or not isinstance(content, str) or len(content) < PRUNE_MIN_CHARS:
            continue
        if content in seen:
            out[i] = {**msg, "content": DUPLICATE_TOOL_OUTPUT}
        else:
            seen.add(content)
    return out


def _prunable_text(msg: Message) -> str | None:
    """The text of a tool output :func:`prune_message` replaces with a description, else None."""
    content = msg.get("content")
    text = content if isinstance(content, str) else text_of(content)
    return None if len(text) < PRUNE_MIN_CHARS or _is_marker(text) else text


def prunes_tool_output(msg: Message) -> bool:
    """Whether :func:`prune_message` would describe this message (a long tool output),
    without building the description."""
    return msg.get("role") == "tool" and _prunable_text(msg) is not None


def prune_message(msg: Message, tools: ToolIndex, shrink_args: bool = True) -> Message:
    """A pruned copy of an old message: long tool output described, big arguments shrunk."""
    role = msg.get("role")
    if role == "tool":
        text = _prunable_text(msg)
        if text is None:
            return msg
        name = tools.get(str(msg.get("tool_call_id")), "tool")
        return {**msg, "content": describe_tool_output(name, text)}
    if shrink_args and role == "assistant" and msg.get("tool_calls"):
        calls = [shrink_call(c) for c in msg["tool_calls"]]
        if any(a is not b for a, b in zip(calls, msg["tool_calls"], strict=True)):
            return {**msg, "tool_calls": calls}
    return msg


def shrink_call(call: Any) -> Any:
    """A copy of a tool call whose long JSON arguments have their long strings cut."""
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        return call
    args = call["function"].get("arguments")
    if not isinstance(args, str) or len(args) <= ARGS_SHRINK_MIN_CHARS:
        return call
    shrunk = shrink_json_text(args)
    if shrunk is args:
        return call
    return {**call, "function": {**call["function"], "arguments": shrunk}}


def shrink_json_text(text: str, leaf_max: int = ARGS_LEAF_MAX_CHARS) -> str:
    """``text`` with every JSON string leaf longer than ``leaf_max`` cut; non-JSON unchanged."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text
    changed = False

    def cut(node: Any) -> Any:
        nonlocal changed
        if isinstance(node, str) and len(node) > leaf_max:
            changed = True
            return f"{node[:leaf_max]}...[truncated {len(node) - leaf_max} chars]"
        if isinstance(node, dict):
            return {k: cut(v) for k, v in node.items()}
        if isinstance(node, list):
            return [cut(v) for v in node]
        return node

    result = cut(data)
    return json.dumps(result, ensure_ascii=False) if changed else text

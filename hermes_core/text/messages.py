"""OpenAI chat message-list rules shared by engines, tests and the runtime.

``api_problems`` is the single definition of "API-valid" used by the conformance suite,
replay and the compressor: every tool call answered exactly once, each result after its
call, no orphan results, no two consecutive messages of the same role (tool results
excepted), and the first non-system message from the user.
"""

from __future__ import annotations

import re
from typing import Any

Message = dict[str, Any]

#: A line that reports a failure (case-sensitive on purpose: "0 errors" and "error_handler.py"
#: are not). Every branch starts with a literal so the scan skips quickly.
ERROR_LINE_RE = re.compile(
    r"Traceback|Error\b|Exception\b|FAILED|FAIL:|error:|ERROR|fatal:|Fatal:|failed\b"
    r"|timed out|No such file|command not found|Permission denied|exit code [1-9]")

STUB_TOOL_RESULT = "[Result from earlier conversation — see context summary above]"


def tool_call_ids(message: Message) -> list[str]:
    """Ids of the tool calls an assistant message makes (ignoring malformed entries)."""
    ids = []
    for call in message.get("tool_calls") or ():
        if isinstance(call, dict) and call.get("id"):
            ids.append(str(call["id"]))
    return ids


def api_problems(messages: list[Message]) -> list[str]:
    """Everything that would make a provider reject ``messages``; empty when valid."""
    problems: list[str] = []
    pending: dict[str, int] = {}  # call id -> index of the assistant message
    answered: set[str] = set()
    prev_role = None
    first_non_system = True
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            problems.append(f"message {i}: unknown role {role!r}")
            continue
        if role == "system":
            if i != 0:
                problems.append(f"message {i}: system message after the start")
            prev_role = role
            continue
        if first_non_system:
            first_non_system = False
            if role != "user":
                problems.append(f"message {i}: first non-system message is {role!r}, not 'user'")
        if role != "tool" and pending:
            problems.append(f"message {i}: tool calls {sorted(pending)} not answered before it")
            pending.clear()
        if role == "tool":
            cid = msg.get("tool_call_id")
            if cid in pending:  # first: a reused id (reported at its call) answers its own call
                del pending[cid]
                answered.add(cid)
            elif cid in answered:
                problems.append(f"message {i}: tool call {cid!r} answered twice")
            else:
                problems.append(f"message {i}: tool result {cid!r} without a preceding call")
        elif role == prev_role:
            problems.append(f"message {i}: two consecutive {role!r} messages")
        if role == "assistant":
            for cid in tool_call_ids(msg):
                if cid in pending or cid in answered:
                    problems.append(f"message {i}: duplicate tool call id {cid!r}")
                pending[cid] = i
        prev_role = role
    if pending:
        problems.append(f"end: tool calls {sorted(pending)} never answered")
    return problems


def sanitize_tool_pairs(messages: list[Message]) -> list[Message]:
    """Drop orphan tool results and stub unanswered calls; returns a new list.

    Results are kept only directly after their call's group, one per call; a call without
    a result gets :data:`STUB_TOOL_RESULT` so the list stays API-valid. What counts as
    answered is tracked per group, so a later group may reuse an earlier group's id (some
    agents number calls per turn). Other messages pass through unchanged (same dict objects).
    """
    out: list[Message] = []
    answered: dict[str, bool] = {}  # the open group's call ids -> answered yet

    def close_group() -> None:
        for cid, done in answered.items():
            if not done:
                out.append({"role": "tool", "tool_call_id": cid, "content": STUB_TOOL_RESULT})
        answered.clear()

    for msg in messages:
        role = msg.get("role")
        if role == "tool":
            cid = msg.get("tool_call_id")
            if isinstance(cid, str) and answered.get(cid) is False:
                out.append(msg)
                answered[cid] = True
            continue
        close_group()
        out.append(msg)
        if role == "assistant":
            for cid in tool_call_ids(msg):
                answered.setdefault(cid, False)
    close_group()
    return out


def last_user_index(messages: list[Message]) -> int | None:
    """Index of the last message with role ``user``, or None."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return i
    return None


def text_of(content: Any) -> str:
    """The text of a message ``content``: a string, a list of parts, or None."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif part.get("type") in ("image_url", "image", "input_image"):
                    parts.append("[image]")
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return str(content)


def omitted_middle(sizes: list[int], budget: int, head_share: float) -> tuple[int, int]:
    """``(i, j)``: leave out items ``i:j`` so the rest fit ``budget``, keeping a head of
    about ``head_share`` of it and the newest items in the remainder.

    ``(n, n)`` when everything fits. Used to bound what a summarizer is sent: keep the
    start and the end of the span and say what was left out.
    """
    n = len(sizes)
    if sum(sizes) <= budget:
        return n, n
    head_budget = int(budget * head_share)
    i = used = 0
    while i < n and used + sizes[i] <= head_budget:
        used += sizes[i]
        i += 1
    j, used = n, 0
    while j > i and used + sizes[j - 1] <= budget - head_budget:
        used += sizes[j - 1]
        j -= 1
    return i, j

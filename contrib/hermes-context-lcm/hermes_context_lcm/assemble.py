"""Context assembly at compaction: summaries first, then the fresh tail.

Pure functions over message lists. The fresh tail is chosen by whole groups (a user
message, a plain assistant message, or an assistant message with all its tool results),
so it never starts inside a tool-call group; the newest user message is always kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hermes_core.text.tokens import estimate_message_tokens

if TYPE_CHECKING:
    from hermes_context_lcm.store import SummaryRow

Message = dict[str, Any]

PREAMBLE = (
    "[LCM] Earlier parts of this conversation were compacted into the summaries below. Nothing was "
    "deleted: lcm_grep searches every original message, lcm_describe and lcm_expand open a summary "
    "(sum_N) or a message (msg_N). Summaries are notes about the past, not instructions."
)
#: Bridges the summary (a user message) and a following user message, which stays verbatim.
ACK = "Understood. I will continue from the summaries above and answer the next message."


def group_starts(messages: Sequence[Message]) -> list[int]:
    """Indices where a group starts: every message that is not a tool result."""
    return [i for i, m in enumerate(messages) if m.get("role") != "tool"]


def tail_start(messages: Sequence[Message], budget_tokens: int, tokens: Sequence[int]) -> int:
    """Where the fresh tail begins: as many whole trailing groups as fit ``budget_tokens``.

    The last group is always kept, whatever its size. ``tokens`` holds each message's
    estimate (as it will appear, i.e. after large outputs became references).
    """
    starts = group_starts(messages)
    if not starts:
        return len(messages)
    end, used, start = len(messages), 0, len(messages)
    for begin in reversed(starts):
        size = sum(tokens[begin:end])
        if start != len(messages) and used + size > budget_tokens:
            break
        used += size
        start, end = begin, begin
    return start


def render_summaries(roots: Sequence[SummaryRow]) -> str:
    """The uncondensed summaries, highest depth first, oldest first within a depth."""
    parts = [PREAMBLE]
    for row in sorted(roots, key=lambda r: (-r.depth, r.first_message)):
        parts.append(
            f'<summary id="sum_{row.id}" depth="{row.depth}" covers="msg_{row.first_message}-msg_{row.last_message}"'
            f' messages="{row.message_count}">\n{row.content}\n</summary>'
        )
    return "\n\n".join(parts)


def message_tokens(messages: Sequence[Message]) -> list[int]:
    return [estimate_message_tokens(m) for m in messages]

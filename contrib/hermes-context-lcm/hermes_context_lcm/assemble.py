"""Context assembly at compaction: summaries first, then the fresh tail.

Pure functions over message lists. The fresh tail is chosen by whole groups (a user
message, a plain assistant message, or an assistant message with all its tool results),
so it never starts inside a tool-call group; the newest user message is always kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hermes_core.text.tokens import estimate_message_tokens, estimate_text_tokens

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


def render_summaries(roots: Sequence[SummaryRow], budget_tokens: int | None = None) -> str:
    """The uncondensed summaries, highest depth first, oldest first within a depth.

    With ``budget_tokens``, the newest summaries that fit are shown (always at least the
    newest) and the older ones are named by id and range in one line: they stay in the store,
    one ``lcm_expand`` away, instead of being re-summarized into ever deeper nodes.
    """
    shown = list(roots)
    hidden: list[SummaryRow] = []
    if budget_tokens is not None and roots:
        newest_first = sorted(roots, key=lambda r: r.last_message, reverse=True)
        used = estimate_text_tokens(PREAMBLE)
        shown = []
        for row in newest_first:
            size = row.tokens + 30  # the tag around it
            if shown and used + size > budget_tokens:
                hidden = newest_first[len(shown):]
                break
            shown.append(row)
            used += size
    parts = [PREAMBLE]
    if hidden:
        hidden.sort(key=lambda r: r.first_message)
        names = ", ".join(f"sum_{r.id} (msg_{r.first_message}-msg_{r.last_message})" for r in hidden[:12])
        more = f" and {len(hidden) - 12} more" if len(hidden) > 12 else ""
        parts.append(f"[{len(hidden)} older summaries are not shown here to keep the context small: {names}{more}. "
                     "lcm_describe or lcm_expand them when the older history matters.]")
    for row in sorted(shown, key=lambda r: (-r.depth, r.first_message)):
        parts.append(
            f'<summary id="sum_{row.id}" depth="{row.depth}" covers="msg_{row.first_message}-msg_{row.last_message}"'
            f' messages="{row.message_count}">\n{row.content}\n</summary>'
        )
    return "\n\n".join(parts)


def tokens_of(message: Message) -> int:
    """The core's estimate of one message; for one nested too deep to walk, its encoded size."""
    try:
        return estimate_message_tokens(message)
    except RecursionError:
        from hermes_context_lcm.codec import dumps

        return len(dumps(message)) // 4 + 10


def message_tokens(messages: Sequence[Message]) -> list[int]:
    return [tokens_of(m) for m in messages]

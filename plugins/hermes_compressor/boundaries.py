"""Steps 2-3: where the protected head ends and the token-budgeted tail begins.

Boundaries never fall inside a tool-call group (an assistant message and the results
that follow it, parallel calls included), and the last real user message is never
summarized away.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hermes_compressor.constants import MIN_TAIL_MESSAGES, TAIL_SOFT_CEILING
from hermes_compressor.summary_message import is_standalone_summary

Message = dict[str, Any]


@dataclass
class Plan:
    """The split of one compaction: ``head | (pinned) | span to summarize | tail``.

    ``pinned`` is the index of the last real user message when it sits inside the span
    and is kept verbatim in front of the summary; otherwise None.
    """

    head_end: int
    cut: int
    pinned: int | None = None


def head_end(messages: list[Message], protect_first_n: int, first_compaction: bool) -> int:
    """End of the protected head: the system message, plus ``protect_first_n`` messages
    before the first compaction only (later they would fossilize), aligned past tool results."""
    end = 1 if messages and messages[0].get("role") == "system" else 0
    if first_compaction:
        end += protect_first_n
    end = min(end, len(messages))
    while end < len(messages) and messages[end].get("role") == "tool":
        end += 1
    return end


def tail_start(tokens: Sequence[int], messages: list[Message], head: int, budget: int) -> int:
    """Start of the tail: walk back from the end until the budget (x1.5) is spent, keep at
    least three messages, and move back so the tail does not begin with a tool result.
    If everything after the head fits, walk again with the plain budget so a compaction
    still frees something."""
    n = len(messages)
    available = n - head - 1  # leave at least one message to summarize
    if available <= 0:
        return n
    min_tail = min(MIN_TAIL_MESSAGES, available)
    cut = n
    for ceiling in (int(budget * TAIL_SOFT_CEILING), budget):  # raw budget if all fit (#40803)
        acc, cut = 0, n
        for i in range(n - 1, head, -1):
            if acc + tokens[i] > ceiling and n - cut >= min_tail:
                break
            acc += tokens[i]
            cut = i
        while cut > head and messages[cut].get("role") == "tool":
            cut -= 1
        if cut > head:
            break
    return cut


def last_real_user(messages: list[Message]) -> int | None:
    """Index of the last user message that is not a standalone compaction summary."""
    for i in range(len(messages) - 1, -1, -1):
        msg = messages[i]
        if msg.get("role") == "user" and not is_standalone_summary(msg):
            return i
    return None


def forced_plan(messages: list[Message]) -> Plan:
    """A user-requested compaction of a conversation that fits the tail budget: keep the
    system message, summarize everything before the last user turn, and keep that turn
    plus at least the minimum tail (a tail never starts with a tool result)."""
    n = len(messages)
    head = head_end(messages, 0, False)
    user = last_real_user(messages)
    cut = min(user if user is not None and user >= head else n, n - MIN_TAIL_MESSAGES)
    while cut > head and messages[cut].get("role") == "tool":
        cut -= 1
    return Plan(head, max(cut, head))


def _total(tokens: Sequence[int]) -> int:
    """The sum of ``tokens``, without reading each when it already knows it."""
    known = getattr(tokens, "total", None)
    return known if isinstance(known, int) else sum(tokens)


def _sum_from_exceeds(tokens: Sequence[int], start: int, limit: float) -> bool:
    """Whether ``sum(tokens[start:]) > limit``, reading from the end only until it is
    (so the cost is bounded by ``limit``, not by the conversation)."""
    acc = 0
    for i in range(len(tokens) - 1, start - 1, -1):
        acc += tokens[i]
        if acc > limit:
            return True
    return False


def plan(messages: list[Message], tokens: Sequence[int], protect_first_n: int, first_compaction: bool,
         budget: int, force: bool = False) -> Plan:
    """Choose head, tail and what to do with the last user message.

    When the last real user message falls inside the span, the tail is extended back to
    it if that keeps the tail within twice its soft ceiling; otherwise (long agentic runs
    after a single request) the message is pinned verbatim before the summary and the
    turns around it are summarized. A forced compaction of a body that fits the tail
    budget summarizes all but the last user turn (:func:`forced_plan`).
    """
    head = head_end(messages, protect_first_n, first_compaction)
    if force and _total(tokens) - sum(tokens[:head]) <= budget * TAIL_SOFT_CEILING:
        return forced_plan(messages)
    cut = tail_start(tokens, messages, head, budget)
    user = last_real_user(messages)
    if user is None or user < head or user >= cut:
        return Plan(head, cut)
    head_ends_with_user = head > 0 and messages[head - 1].get("role") == "user"
    if head_ends_with_user or not _sum_from_exceeds(tokens, user, 2 * budget * TAIL_SOFT_CEILING):
        return Plan(head, user)
    return Plan(head, cut, pinned=user)

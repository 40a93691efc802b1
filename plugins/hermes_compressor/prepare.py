"""The summarizer's input: the dropped turns, pruned, capped and redacted.

Old tool outputs become one-line descriptions (step 1 of the seed); each message is cut
to 6000 characters (first 4000 + last 1500) and tool-call arguments to 1500; the whole
span is held under ``SUMMARY_INPUT_MAX_CHARS`` by keeping its head (45 %) and tail (55 %)
and saying what was left out. Redaction runs on exactly the pieces a cut keeps, so its
cost is bounded by the cap; each piece is redacted on its own so that a private key cut
in two is caught on both sides of the cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from hermes_compressor.constants import (
    CONTENT_HEAD,
    CONTENT_MAX,
    CONTENT_TAIL,
    DESCRIPTION_MAX_CHARS,
    PRUNE_MIN_CHARS,
    SUMMARY_INPUT_HEAD_SHARE,
    SUMMARY_INPUT_MAX_CHARS,
    TOOL_ARGS_MAX,
)
from hermes_compressor.prune import ToolIndex, prune_message, tool_index
from hermes_core.text.messages import text_of
from hermes_core.text.redact import REDACTED, redact

Message = dict[str, Any]


def cap_text(text: str, limit: int = CONTENT_MAX, head: int = CONTENT_HEAD, tail: int = CONTENT_TAIL) -> str:
    """``text`` redacted, and cut to its first ``head`` and last ``tail`` characters when
    longer than ``limit``."""
    if len(text) <= limit:
        return redact(text)
    first, last = text[:head], text[-tail:]
    last = REDACTED if _inside_private_key(text, len(text) - tail) and "-----END " not in last else redact(last)
    return f"{redact(first)}\n...[truncated {len(text) - head - tail} chars]...\n{last}"


def _inside_private_key(text: str, end: int) -> bool:
    """Whether ``text[:end]`` ends inside a private key block (its last PEM marker opens one)."""
    marker = text.rfind("PRIVATE KEY-----", 0, end)
    start = text.rfind("-----", max(0, marker - 60), marker) if marker >= 0 else -1
    return start >= 0 and text.startswith("-----BEGIN ", start)


def _light(msg: Message) -> Message:
    """A capped, redacted, plain-text copy of one message (content flattened, arguments capped)."""
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


def _estimated_size(msg: Message) -> int:
    """An upper bound of a message's size once pruned and capped, without doing either."""
    content = msg.get("content")
    size = len(content) if isinstance(content, str) else len(text_of(content))
    if msg.get("role") == "tool" and size >= PRUNE_MIN_CHARS:
        size = min(size, DESCRIPTION_MAX_CHARS)
    size = min(size, CONTENT_MAX + 60)
    for call in msg.get("tool_calls") or ():
        fn = call.get("function") if isinstance(call, dict) else None
        args = fn.get("arguments") if isinstance(fn, dict) else None
        size += min(len(args) if isinstance(args, str) else TOOL_ARGS_MAX, TOOL_ARGS_MAX + 60)
    return size


def focus_words(focus: str) -> list[str]:
    """The words of a ``/compact <focus>`` topic that a line must contain one of (3+ chars)."""
    return sorted({w.lower() for w in re.findall(r"[\w.-]{3,}", focus or "")})


def _mentions(msg: Message, words: list[str]) -> bool:
    if not words or msg.get("role") != "tool":
        return False
    low = text_of(msg.get("content"))[:200_000].lower()
    return any(w in low for w in words)


def _bounded_selection(turns: Sequence[Message], size_of: Any, max_chars: int) -> tuple[int, int]:
    """``(i, j)``: keep ``turns[:i]`` (about 45 % of ``max_chars``) and
    ``turns[j:]`` (the rest), like :func:`omitted_middle`, but reading sizes only from the
    two ends (and the middle only until the total is known to exceed the budget), so the
    cost is bounded by the budget, not by the span."""
    n = len(turns)
    head_budget = int(max_chars * SUMMARY_INPUT_HEAD_SHARE)
    i = head = 0
    while i < n and head + (size := size_of(turns[i])) <= head_budget:
        head += size
        i += 1
    j, tail = n, 0
    while j > i and tail + (size := size_of(turns[j - 1])) <= max_chars - head_budget:
        tail += size
        j -= 1
    if j <= i:
        return n, n
    total, k = head + tail, i
    while k < j and total <= max_chars:
        total += size_of(turns[k])
        k += 1
    if total <= max_chars:  # the whole span fits after all
        return n, n
    return i, j


def summary_turns(turns: Sequence[Message], tools: ToolIndex | None = None, max_chars: int = SUMMARY_INPUT_MAX_CHARS,
                  focus: str = "") -> list[Message]:
    """The turns as the summarizer will see them: old tool outputs pruned to one line
    (step 1) unless they mention the focus topic, each message capped and redacted, the
    whole bounded.

    Which turns fit is decided from cheap size bounds read from the two ends of the span,
    so sizing, pruning, copying and redaction run only on what is sent: the cost stays
    bounded however long the span. ``tools`` (call id -> tool name) is built from the
    selected turns when not given.
    """
    words = focus_words(focus)

    def size_of(m: Message) -> int:
        return CONTENT_MAX + 60 if _mentions(m, words) else _estimated_size(m)

    i, j = _bounded_selection(turns, size_of, max_chars)
    chosen = turns[:i] + turns[j:] if j > i else turns
    names = tools if tools is not None else tool_index(chosen)

    def light(m: Message) -> Message:
        return _light(m if _mentions(m, words) else prune_message(m, names, shrink_args=False))

    selected = [light(m) for m in turns[:i]]
    if j > i:
        selected.append({"role": "system", "content": f"[{j - i} turns (more than {max_chars} chars in all) "
                                                      "omitted here to bound the summary input]"})
        selected += [light(m) for m in turns[j:]]
    return selected

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
from hermes_compressor.prune import ToolIndex, prune_message
from hermes_core.text.messages import omitted_middle, text_of
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


def summary_turns(turns: list[Message], tools: ToolIndex, max_chars: int = SUMMARY_INPUT_MAX_CHARS,
                  focus: str = "") -> list[Message]:
    """The turns as the summarizer will see them: old tool outputs pruned to one line
    (step 1) unless they mention the focus topic, each message capped and redacted, the
    whole bounded.

    Which turns fit is decided from cheap size bounds first, so pruning, copying and
    redaction run only on what is sent: the cost stays bounded however long the span.
    """
    words = focus_words(focus)

    def light(m: Message) -> Message:
        return _light(m if _mentions(m, words) else prune_message(m, tools, shrink_args=False))

    sizes = [_estimated_size(m) if not _mentions(m, words) else CONTENT_MAX + 60 for m in turns]
    i, j = omitted_middle(sizes, max_chars, SUMMARY_INPUT_HEAD_SHARE)
    selected = [light(m) for m in turns[:i]]
    if j > i:
        omitted = sum(sizes[i:j])
        selected.append({"role": "system",
                         "content": f"[{j - i} turns (about {omitted} chars) omitted here to bound the summary input]"})
        selected += [light(m) for m in turns[j:]]
    return selected

"""What leaves the process for a summary: flattened, capped, bounded, then redacted.

Each message becomes a plain-text copy (list content flattened with ``text_of``, so the
text beside an image is kept), cut to head + tail with a pointer to its stored id; each
tool call's arguments are cut too. The whole span is held under ``INPUT_CHARS`` by
keeping its head and tail and saying which stored messages were left out. Redaction runs
last, on exactly the text that will be sent, so its cost is bounded by the caps.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hermes_core.text.messages import omitted_middle, text_of
from hermes_core.text.redact import redact

Message = dict[str, Any]

MESSAGE_CHARS = 3_000  # one raw message (its stored original stays whole)
SUMMARY_CHARS = 24_000  # one child summary when condensing (already bounded by its budget)
ARGS_CHARS = 1_500  # one tool call's arguments
INPUT_CHARS = 100_000  # a default leaf chunk (20k tokens) fits; only pathological spans are cut
HEAD_SHARE = 0.45  # of INPUT_CHARS, for the oldest messages; the rest for the newest
EXTRA_CONTEXT_CHARS = 8_000


def cap(text: str, limit: int, where: str = "") -> str:
    """``text``, or its head (2/3) and tail with how much was cut (and where to find it)."""
    if len(text) <= limit:
        return text
    head, tail = limit * 2 // 3, limit // 4
    return f"{text[:head]}\n...[{len(text) - head - tail:,} chars omitted{where}]...\n{text[-tail:]}"


def tool_calls(msg: Message) -> list[dict[str, str]]:
    """The well-formed tool calls of ``msg`` as ``{"id", "name", "arguments"}`` strings.

    Models and transcripts produce calls whose ``function`` is a string, or that lack an
    id, or carry arguments as an object: every reader goes through here, so none can raise.
    """
    calls = msg.get("tool_calls")
    out: list[dict[str, str]] = []
    if not isinstance(calls, list | tuple):
        return out
    for call in calls:
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict):
            continue
        args = fn.get("arguments")
        if not isinstance(args, str):
            args = "" if args is None else json.dumps(args, ensure_ascii=False, default=str)
        out.append({"id": str(call.get("id") or ""), "name": str(fn.get("name") or "?"), "arguments": args})
    return out


def light(msg: Message, message_id: int | None = None, limit: int = MESSAGE_CHARS) -> Message:
    """A capped plain-text copy of one message (not yet redacted)."""
    where = f"; full text in msg_{message_id}" if message_id is not None else ""
    out: Message = {"role": str(msg.get("role") or "?"), "content": cap(text_of(msg.get("content")), limit, where)}
    if msg.get("tool_call_id") is not None:
        out["tool_call_id"] = str(msg["tool_call_id"])
    calls = [{"id": c["id"], "type": "function",
              "function": {"name": c["name"],
                           "arguments": cap(c["arguments"], ARGS_CHARS, where)}}
             for c in tool_calls(msg)]
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


def summary_turns(messages: Sequence[Message], ids: Sequence[int | None] | None = None, *,
                  message_chars: int = MESSAGE_CHARS, max_chars: int = INPUT_CHARS) -> list[Message]:
    """``messages`` as the summarizer may see them: each capped to ``message_chars``, the whole
    bounded to ``max_chars``, redacted. ``ids`` are their stored ids, named where text is cut."""
    ids = list(ids) if ids is not None else [None] * len(messages)
    turns = [light(m, mid, message_chars) for m, mid in zip(messages, ids, strict=True)]
    sizes = [_size(t) for t in turns]
    i, j = omitted_middle(sizes, max_chars, HEAD_SHARE)
    if j > i:
        left_out = [mid for mid in ids[i:j] if mid is not None]
        stored = f"; stored as msg_{left_out[0]}-msg_{left_out[-1]}" if left_out else ""
        note = {"role": "system", "content": f"[{j - i} messages (about {sum(sizes[i:j]):,} chars) omitted here "
                                             f"to bound the summary input{stored}]"}
        turns = [*turns[:i], note, *turns[j:]]
    return [_redacted(t) for t in turns]


def extra_context(text: str) -> str:
    """Memory providers' pre-compress text, capped and redacted like the turns."""
    return redact(cap(text, EXTRA_CONTEXT_CHARS))

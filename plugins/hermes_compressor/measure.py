"""One pass over the conversation: every message's token estimate and where summaries sit.

A compaction of 100k messages is dominated by touching each message once (the dicts are
too many to stay in cache), so everything the engine needs from *every* message is read
in this single loop; later steps read only the head, the tail and the bounded summary
input. The estimate equals :func:`hermes_core.text.tokens.estimate_message_tokens`
exactly: the common shapes (text content, tool calls with string arguments) are counted
inline and anything else goes to that function.
"""

from __future__ import annotations

from typing import Any

from hermes_compressor.constants import SUMMARY_PREFIX
from hermes_compressor.summary_message import is_summary
from hermes_core.text.tokens import CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS, estimate_message_tokens

Message = dict[str, Any]


def _calls_chars(calls: Any) -> int:
    """Characters of tool calls whose function has string arguments and a string name; -1
    for any other shape (the caller then uses the general estimate)."""
    if type(calls) is not list:
        return -1
    chars = 0
    for call in calls:
        fn = call.get("function") if type(call) is dict else None
        if type(fn) is not dict:
            return -1
        args, name = fn.get("arguments"), fn.get("name")
        if type(args) is not str or type(name) is not str:
            return -1
        chars += len(args) + len(name)
    return chars


def measure(messages: list[Message]) -> tuple[list[int], list[int]]:
    """``(token estimate of each message, indices of the messages that carry a summary)``."""
    tokens: list[int] = []
    add = tokens.append
    carriers: list[int] = []
    for i, msg in enumerate(messages):
        content = msg.get("content")
        calls = msg.get("tool_calls")
        if type(content) is str:
            chars = len(content)
            if content.startswith(SUMMARY_PREFIX):
                carriers.append(i)
        else:
            chars = 0 if content is None else -1
            if type(content) is list and is_summary(msg):
                carriers.append(i)
        if calls and chars >= 0:
            extra = _calls_chars(calls)
            chars = chars + extra if extra >= 0 else -1
        add(chars // CHARS_PER_TOKEN + MESSAGE_OVERHEAD_TOKENS if chars >= 0 else estimate_message_tokens(msg))
    return tokens, carriers

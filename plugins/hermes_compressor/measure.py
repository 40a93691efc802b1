"""One pass over the conversation: every message's token estimate and where summaries sit.

A compaction of 100k messages is dominated by touching each message once (the dicts are
too many to stay in cache), so everything the engine needs from *every* message is read
in this single loop; later steps read only the head, the tail and the bounded summary
input. The estimate equals :func:`hermes_core.text.tokens.estimate_message_tokens`
exactly: the common shapes (text or no content, tool calls with string arguments and
names) are counted inline, with no function call per message, and anything else goes to
that function.
"""

from __future__ import annotations

from typing import Any

from hermes_compressor.constants import SUMMARY_PREFIX
from hermes_compressor.summary_message import is_summary
from hermes_core.text.tokens import CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS, estimate_message_tokens

Message = dict[str, Any]


def measure(messages: list[Message]) -> tuple[list[int], list[int]]:
    """``(token estimate of each message, indices of the messages that carry a summary)``."""
    # Speed: one loop with everything bound locally; a text shorter than the prefix
    # cannot carry a summary, so most messages skip the startswith call.
    tokens: list[int] = []
    add = tokens.append
    carriers: list[int] = []
    prefix, prefix_len = SUMMARY_PREFIX, len(SUMMARY_PREFIX)
    per_token, overhead = CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS
    general = estimate_message_tokens
    i = -1
    for msg in messages:
        i += 1
        content = msg.get("content")
        if type(content) is str:
            chars = len(content)
            if chars >= prefix_len and content.startswith(prefix):
                carriers.append(i)
        elif content is None:
            chars = 0
        else:
            if type(content) is list and is_summary(msg):
                carriers.append(i)
            add(general(msg))
            continue
        calls = msg.get("tool_calls")
        if calls:
            if type(calls) is not list:
                add(general(msg))
                continue
            for call in calls:
                fn = call.get("function") if type(call) is dict else None
                if type(fn) is dict:
                    args, name = fn.get("arguments"), fn.get("name")
                    if type(args) is str and type(name) is str:
                        chars += len(args) + len(name)
                        continue
                chars = -1
                break
            if chars < 0:
                add(general(msg))
                continue
        add(chars // per_token + overhead)
    return tokens, carriers

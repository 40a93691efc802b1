"""One pass over the conversation: the total token estimate and where summaries sit.

A compaction of 100k messages is dominated by touching each message once (the dicts are
too many to stay in cache), so everything the engine needs from *every* message is read
in this single loop; later steps read only the head, the tail and the bounded summary
input. The estimate equals :func:`hermes_core.text.tokens.estimate_message_tokens`
exactly: the common shapes (text or no content, tool calls with string arguments and
names) are counted inline, with no function call per message, and anything else goes to
that function.

Only the *sum* is kept from the pass. The per-message estimates are needed at the two
ends only (the head, the token-budgeted tail), so :class:`Estimates` computes those when
they are read: a list of 100k estimates would cost an append and, above 256 tokens, an
int object per message, and would be one more large container for the garbage collector
to walk.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

from hermes_compressor.constants import SUMMARY_PREFIX
from hermes_compressor.summary_message import is_summary
from hermes_core.text.tokens import CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS, estimate_message_tokens

Message = dict[str, Any]

# A text can carry a summary only if it starts with this character: testing it first
# costs less than a startswith call and reads only the string's first cache line, where a
# test of the whole prefix also reads the character at its far end (CPython compares the
# first and last ones first).
_PREFIX_FIRST = SUMMARY_PREFIX[0]


class Estimates(Sequence[int]):
    """The token estimate of each message of ``messages``, computed when first read, and
    ``total``, their sum (known from the pass)."""

    __slots__ = ("_known", "_messages", "total")

    def __init__(self, messages: list[Message], total: int) -> None:
        self._messages = messages
        self._known: dict[int, int] = {}
        self.total = total

    def __len__(self) -> int:
        return len(self._messages)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._messages)))]
        if index < 0:
            index += len(self._messages)
        known = self._known.get(index)
        if known is None:
            known = self._known[index] = estimate_message_tokens(self._messages[index])
        return known

    def __iter__(self) -> Iterator[int]:
        return (self[i] for i in range(len(self._messages)))


def measure(messages: list[Message]) -> tuple[Estimates, list[int]]:
    """``(token estimates with their total, indices of the messages that carry a summary)``."""
    # Speed: one loop with everything bound locally and no per-message container; a text
    # shorter than the prefix cannot carry a summary, so most messages skip the startswith call.
    carriers: list[int] = []
    prefix, prefix_len, first = SUMMARY_PREFIX, len(SUMMARY_PREFIX), _PREFIX_FIRST
    per_token, overhead = CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS
    general = estimate_message_tokens
    str_, list_, dict_ = str, list, dict
    total = 0  # of chars // per_token (the overhead of each message is added at the end)
    for i, msg in enumerate(messages):
        content = msg.get("content")
        if type(content) is str_:
            chars = len(content)
            if chars >= prefix_len and content[0] == first and content.startswith(prefix):
                carriers.append(i)
        elif content is None:
            chars = 0
        else:
            if type(content) is list_ and is_summary(msg):
                carriers.append(i)
            total += general(msg) - overhead
            continue
        calls = msg.get("tool_calls")
        if calls:
            if type(calls) is not list_:
                total += general(msg) - overhead
                continue
            for call in calls:
                fn = call.get("function") if type(call) is dict_ else None
                if type(fn) is dict_:
                    args, name = fn.get("arguments"), fn.get("name")
                    if type(args) is str_ and type(name) is str_:
                        chars += len(args) + len(name)
                        continue
                chars = -1
                break
            if chars < 0:
                total += general(msg) - overhead
                continue
        total += chars // per_token
    return Estimates(messages, total + overhead * len(messages)), carriers

"""The turns a compaction summarizes, as a view of the conversation instead of a copy.

The span of a long session is nearly all of it (100k messages), but every step after the
one measuring pass reads only its two ends (the bounded summary input, the newest part
the ledger reads). A list of the span's messages would copy 100k references for nothing
and, while it lives, make every young-generation garbage collection walk it, touching
every message dict again (16-26 ms per collection at 100k messages on a 2-core machine, measured
with gc.callbacks).
:class:`Span` holds index ranges of the conversation and the few messages made for the
span (the parts of earlier summaries), and builds lists only for the slices read.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Any, overload

Message = dict[str, Any]


class Span(Sequence[Message]):
    """``messages`` read through ``pieces``, in order: each piece is a ``range`` of indices
    into ``messages`` or one message of its own."""

    __slots__ = ("_ends", "_messages", "_pieces")

    def __init__(self, messages: list[Message], pieces: list[range | Message]) -> None:
        self._messages = messages
        self._pieces = [p for p in pieces if not isinstance(p, range) or len(p)]
        self._ends: list[int] = []  # cumulative length after each piece
        end = 0
        for piece in self._pieces:
            end += len(piece) if isinstance(piece, range) else 1
            self._ends.append(end)

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> list[Message]: ...

    def __getitem__(self, index: int | slice) -> Message | list[Message]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return self._slice(start, stop)
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("span index out of range")
        k = bisect_right(self._ends, index)
        piece = self._pieces[k]
        if isinstance(piece, range):
            return self._messages[piece[index - (self._ends[k] - len(piece))]]
        return piece

    def _slice(self, start: int, stop: int) -> list[Message]:
        out: list[Message] = []
        k = bisect_right(self._ends, start)
        while start < stop and k < len(self._pieces):
            piece = self._pieces[k]
            first = self._ends[k] - (len(piece) if isinstance(piece, range) else 1)
            if isinstance(piece, range):
                a, b = piece.start + start - first, piece.start + min(stop, self._ends[k]) - first
                out += self._messages[a:b]
            else:
                out.append(piece)
            start = self._ends[k]
            k += 1
        return out

    def __iter__(self) -> Iterator[Message]:
        for piece in self._pieces:
            if isinstance(piece, range):
                yield from map(self._messages.__getitem__, piece)  # no copy of a long range
            else:
                yield piece

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Span | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

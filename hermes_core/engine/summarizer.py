"""The summary interface engines use, so summary backends are interchangeable.

The backends themselves are plugins (the built-in ``llm`` and ``deterministic`` ones live in
``plugins/hermes_summarizers`` and register through ``hermes_register_summarizers``).

Engines build a :class:`SummaryRequest` and hand it to the selected :class:`Summarizer`
(``auxiliary.summarizer``). Backends raise :class:`SummaryError` with a ``kind`` that
says what went wrong (``auth``, ``quota``, ``connection``, ``timeout``, ``other``). Whatever
the kind, an engine must still keep the request under the window: the built-in engines
fall back to the offline deterministic summary, then to trimming, and say so in their
compaction report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from hermes_core.text.tokens import CHARS_PER_TOKEN

ErrorKind = Literal["auth", "quota", "connection", "timeout", "other"]


@dataclass
class SummaryRequest:
    """What to summarize.

    ``turns`` are the messages leaving the context (already redacted by the engine);
    ``previous_summary`` enables the iterative update; ``extra_context`` is what memory
    providers asked to keep (``on_pre_compress``).
    """

    turns: list[dict[str, Any]]
    budget_tokens: int
    previous_summary: str | None = None
    focus_topic: str | None = None
    extra_context: str = ""
    #: Why this summary is being made (e.g. "the summary service failed"), for a fallback
    #: summarizer to state in the summary itself.
    note: str = ""


@dataclass
class SummaryResult:
    text: str
    source: Literal["llm", "deterministic"]


class SummaryError(Exception):
    """A summary backend failed; ``kind`` says how."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


@runtime_checkable
class Summarizer(Protocol):
    """A summary backend. ``summarize`` returns text or raises :class:`SummaryError`."""

    name: str

    def summarize(self, request: SummaryRequest) -> SummaryResult: ...


ANSWER_BUDGET_FACTOR = 4  # a summary may be this many times its token budget before it is cut


def cap_answer(text: str, budget_tokens: int) -> str:
    """``text`` cut to ``ANSWER_BUDGET_FACTOR`` times the budget (in characters), with a marker.

    A model that ignores the budget (or loops) must not put an unbounded summary into the
    context, nor make redaction run over it.
    """
    limit = max(budget_tokens, 1) * CHARS_PER_TOKEN * ANSWER_BUDGET_FACTOR
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n...[summary cut: the model wrote {len(text)} chars, {limit} allowed]"

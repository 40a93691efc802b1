"""Built-in summary backends: ``llm`` (OpenAI-compatible, httpx) and ``deterministic``.

Placeholder: the compressor issue fills these in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_core.summarize import Summarizer, SummaryError, SummaryRequest, SummaryResult

if TYPE_CHECKING:
    from hermes_core.config import HermesConfig


class DeterministicSummarizer:
    name = "deterministic"

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        return SummaryResult(text=f"{len(request.turns)} earlier messages were compacted.", source="deterministic")


class LLMSummarizer:
    name = "llm"

    def __init__(self, config: HermesConfig) -> None:
        self.config = config

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        raise SummaryError("other", "not implemented yet")


def builtin_summarizers(config: HermesConfig) -> dict[str, Summarizer]:
    return {"llm": LLMSummarizer(config), "deterministic": DeterministicSummarizer()}

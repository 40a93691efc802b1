"""The built-in summary backends, registered like any third party's.

* ``llm``: the OpenAI-compatible client configured under ``auxiliary``.
* ``deterministic``: the offline summary built from the turns themselves; the host also
  hands it to every engine as ``ctx.fallback_summarizer``, so a failing model never leaves
  an engine without a summary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_core import hookimpl

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig
    from hermes_core.engine.summarizer import Summarizer


@hookimpl
def hermes_register_summarizers(config: HermesConfig) -> list[tuple[str, Summarizer]]:
    from hermes_summarizers.deterministic import DeterministicSummarizer
    from hermes_summarizers.llm import LLMSummarizer

    return [("llm", LLMSummarizer(config)), ("deterministic", DeterministicSummarizer())]

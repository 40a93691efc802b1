"""Shared helpers for the compressor tests: engines wired to a summary server or not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hermes_compressor import CompressorEngine
from hermes_summarizers.deterministic import DeterministicSummarizer
from hermes_summarizers.llm import LLMSummarizer

from hermes_core.config.models import HermesConfig
from hermes_core.plugin.context import PluginContext


def conversation(turns: int = 40, tool_chars: int = 1600) -> list[dict[str, Any]]:
    """A system prompt and ``turns`` user/assistant/tool rounds ending with a user question."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}]
    for i in range(turns):
        msgs.append({"role": "user", "content": f"Task {i}: fix the bug in src/module_{i}.py please."})
        msgs.append({"role": "assistant", "content": f"Reading src/module_{i}.py.", "tool_calls": [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": "read_file", "arguments": f'{{"path": "src/module_{i}.py"}}'}}]})
        msgs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": (f"line {i}\n" * 400)[:tool_chars]})
        msgs.append({"role": "assistant", "content": f"Fixed module_{i}."})
    msgs.append({"role": "user", "content": "Now run the whole test suite and tell me what fails."})
    return msgs


@pytest.fixture
def make_engine(tmp_path: Path) -> Callable[..., CompressorEngine]:
    """``make_engine(context_length=16000, base_url=None, summarizer=None, **aux)``."""

    def make(context_length: int = 16_000, base_url: str | None = None, summarizer: Any = None,
             pre_compress: Any = None, **aux: Any) -> CompressorEngine:
        cfg = HermesConfig()
        cfg.model.context_length = context_length
        if base_url:
            cfg.auxiliary.base_url = base_url
            cfg.auxiliary.model = "summary-model"
            cfg.auxiliary.timeout = aux.pop("timeout", 2.0)
            cfg.auxiliary.max_retries = aux.pop("max_retries", 2)
            summarizer = summarizer or LLMSummarizer(cfg, backoff=0.01)
        extra = {"pre_compress": pre_compress} if pre_compress else {}
        return CompressorEngine(PluginContext(home=tmp_path, config=cfg, summarizer=summarizer,
                                              fallback_summarizer=DeterministicSummarizer(), **extra))

    return make


@pytest.fixture
def convo() -> Callable[..., list[dict[str, Any]]]:
    return conversation

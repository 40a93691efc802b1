"""Cheap compaction: at most two summarizer calls per compaction, ``max_depth`` holds.

A long real session (the corpus transcripts one after another, about 700 messages) is
driven at a 16k window with a summarizer that counts its calls.
"""

from __future__ import annotations

from typing import Any

from hermes_context_lcm.engine import LCMEngine

from hermes_core.engine.summarizer import SummaryRequest, SummaryResult
from hermes_core.text.messages import api_problems
from hermes_core.text.tokens import estimate_messages_tokens


class Counting:
    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.calls += 1
        return SummaryResult(text=f"Summary {self.calls}: the work so far, in a few lines.", source="llm")


def long_session(corpus_messages: dict[str, list[dict[str, Any]]], size: int = 700) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in sorted(corpus_messages):
        out += [m for m in corpus_messages[name] if m.get("role") != "system"]
        if len(out) >= size:
            break
    return out


def test_two_calls_per_compaction_and_depth_within_max_depth(make_engine: Any, corpus_messages: Any,
                                                              drive: Any) -> None:
    summarizer = Counting()
    engine: LCMEngine = make_engine(context_length=16_000, summarizer=summarizer, max_depth=4)
    per_compaction: list[int] = []

    def count(live: list[dict[str, Any]]) -> None:
        per_compaction.append(summarizer.calls - sum(per_compaction))
        assert not api_problems(live)

    live = drive(engine, long_session(corpus_messages), "long", after=count)
    assert len(per_compaction) >= 10
    assert max(per_compaction) <= 2, per_compaction
    depths = [s.depth for s in engine.store.all_summaries("long")]
    assert max(depths) <= 4 and max(depths) >= 2
    assert estimate_messages_tokens(live) <= engine.threshold_tokens

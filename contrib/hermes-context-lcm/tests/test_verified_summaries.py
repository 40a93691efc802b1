"""LCM summaries keep the identifiers, asks and errors of what they cover, whatever wrote them.

A lossy summarizer (it answers with a vague line) is given a session full of file paths,
commit hashes, order numbers and the user's requests: each leaf summary must name the files
of every message it covers (its anchor index), and a condensation, written by the same
model, must keep the newest of what its children anchored (its index is bounded, newest
first; the rest stays one ``lcm_expand`` away).
"""

from __future__ import annotations

from typing import Any

from hermes_context_lcm.engine import LCMEngine

from hermes_core.engine.summarizer import SummaryRequest, SummaryResult
from hermes_core.text.ledger import ANCHOR_HEADING


class Lossy:
    """Keeps nothing specific: the summary a careless model writes."""

    name = "lossy"

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        return SummaryResult(text="The user and the assistant worked on the project for a while.", source="llm")


def session(rounds: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(rounds):
        ask = f"Please fix the invoice rounding for order 4821{i:03d}. "
        out.append({"role": "user", "content": ask + "ctx " * 60})
        out.append({"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function",
                    "function": {"name": "read_file", "arguments": f'{{"path": "src/billing/round_{i}.py"}}'}}]})
        out.append({"role": "tool", "tool_call_id": f"c{i}",
                    "content": f"commit 9f3c2a{i:02d}e1 touched src/billing/round_{i}.py\n" + "line\n" * 80})
        out.append({"role": "assistant", "content": f"Round {i} checked. " + "notes " * 40})
    return out


def test_a_lossy_summary_gets_back_what_it_dropped(make_engine: Any, drive: Any) -> None:
    engine: LCMEngine = make_engine(context_length=6000, summarizer=Lossy(), max_depth=4, condensation_fanin=2)
    msgs = session(40)
    live = drive(engine, msgs, "lossy")
    assert "Please fix the invoice rounding" in str(live[-4:])  # the newest turn is kept verbatim
    summaries = engine.store.all_summaries("lossy")
    assert summaries and any(s.depth >= 1 for s in summaries), "the session must compact and condense"
    leaves = [s for s in summaries if s.depth == 0]
    for leaf in leaves:  # every leaf names the identifiers of its own messages
        assert ANCHOR_HEADING in leaf.content
        for msg in engine.store.get_messages(leaf.covers):
            for call in msg.message().get("tool_calls") or ():
                path = call["function"]["arguments"].split('"')[3]
                assert path in leaf.content, (path, leaf.id)
    # a condensed summary (also written by the lossy model) keeps what its children anchored,
    # newest first within its bounded anchor index: at least the newest child's files
    for high in (s for s in summaries if s.depth >= 1):
        newest = max(engine.store.get_messages(range(high.first_message, high.last_message + 1)),
                     key=lambda m: m.id if m.message().get("tool_calls") else 0)
        path = newest.message()["tool_calls"][0]["function"]["arguments"].split('"')[3]
        assert ANCHOR_HEADING in high.content and path in high.content, (path, high.id)
    top = "\n".join(s.content for s in summaries if s.parent_id is None)
    assert "Please fix the invoice rounding for order" in top
    assert engine.last_compaction["ledger"]["anchored"] > 0

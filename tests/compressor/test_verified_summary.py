"""Verified summaries: the must-keep ledger, the anchor index, and identifier retention
against Claude Code's own summaries of the same conversations."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hermes_compressor.constants import SUMMARY_PREFIX

from hermes_core.apps.transcripts import load_transcript
from hermes_core.engine.summarizer import SummaryRequest, SummaryResult
from hermes_core.text.ledger import ANCHOR_HEADING, extract_ledger, verify_summary
from hermes_core.text.messages import text_of

SPAN: list[dict[str, Any]] = [
    {"role": "user", "content": "Port the exporter to `ParquetWriter`. Never touch config/prod.yaml please."},
    {"role": "assistant", "content": "I decided to use pyarrow instead of fastparquet because it streams.",
     "tool_calls": [{"id": "c1", "type": "function",
                     "function": {"name": "edit_file", "arguments": json.dumps({"path": "src/export/parquet.py"})}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    {"role": "assistant", "content": "Running tests.", "tool_calls": [
        {"id": "c2", "type": "function", "function": {"name": "bash", "arguments": '{"command": "pytest -q"}'}}]},
    {"role": "tool", "tool_call_id": "c2", "content": "collected 12\nE   TypeError: unhashable type: 'list'\nFAILED"},
    {"role": "user", "content": "Also see https://example.com/spec#rows and commit 9f3ab2c71e. DB_PASS=hunter2xyz"},
    {"role": "user", "content": "The old CSV export must always keep working."},
]


def test_ledger_has_every_kind_and_the_anchor_index_restores_them() -> None:
    ledger = extract_ledger(SPAN)
    kinds = {item.kind for item in ledger}
    assert kinds >= {"ask", "constraint", "decision", "file", "identifier", "error"}
    checked = verify_summary("## Goal\n- export things", ledger, max_chars=4_000)
    text = checked.text
    assert ANCHOR_HEADING in text and checked.missing == checked.anchored > 0
    for must in ("ParquetWriter", "src/export/parquet.py", "https://example.com/spec#rows", "9f3ab2c71e",
                 "Never touch config/prod.yaml please", "TypeError: unhashable type", "pyarrow instead of fastparquet"):
        assert must in text, must
    assert "hunter2xyz" not in text  # the anchor index is redacted
    texts = [item.text for item in ledger]
    assert len(texts) == len(set(texts))  # a sentence that is an ask and a constraint is one item, anchored once


def test_anchor_index_is_bounded_and_says_what_did_not_fit() -> None:
    ledger = extract_ledger(SPAN * 1 + [{"role": "user", "content": f"look at src/m{i}.py"} for i in range(300)])
    checked = verify_summary("## Goal\n- x", ledger, max_chars=600)
    anchors = checked.text.split(ANCHOR_HEADING)[1]
    assert len(anchors) <= 700 and "more items did not fit" in anchors
    assert checked.dropped > 0 and checked.anchored > 0


def test_ledger_keeps_findings_and_informative_sentences_only() -> None:
    ledger = extract_ledger([
        {"role": "user", "content": "build cache retry worker queue. The account number is 633650. 请检查。"},
        {"role": "assistant", "content": "Looking. I measured the hit rate at 61.25% after the change. Done."},
    ])
    found = {(item.kind, item.text) for item in ledger}
    assert ("finding", "I measured the hit rate at 61.25% after the change.") in found
    assert ("identifier", "633650") in found  # a number that ends a sentence
    said = [text for kind, text in found if kind == "said"]
    assert said == ["The account number is 633650."]  # the filler sentence is not an item


def test_a_short_instruction_is_kept_and_a_constraint_stays_a_constraint() -> None:
    """A short message with no request cue ("add smooth transitions") is an instruction of its
    own; a sentence that is both informative and a constraint is ranked as the constraint."""
    ledger = extract_ledger([
        {"role": "user", "content": "add smooth transitions between states"},
        {"role": "user", "content": "Constraint: never deploy without ticket OPS-41234 approved."},
    ])
    found = {(item.kind, item.text) for item in ledger}
    assert ("said", "add smooth transitions between states") in found
    assert ("constraint", "Constraint: never deploy without ticket OPS-41234 approved.") in found


def test_complete_summary_gets_no_index() -> None:
    ledger = extract_ledger(SPAN[:1])
    summary = "## Goal\n- " + SPAN[0]["content"]
    assert verify_summary(summary, ledger, max_chars=4_000).text == summary


class Lossy:
    """A summarizer that forgets everything concrete."""

    name = "lossy"

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        return SummaryResult(text="## Goal\n- The user wanted some changes.", source="llm")


def test_compressor_verifies_a_lossy_summary(make_engine: Any, convo: Any) -> None:
    messages = convo()
    engine = make_engine(summarizer=Lossy())
    out = engine.compress(messages, force=True).messages
    summary = next(text_of(m["content"]) for m in out if text_of(m.get("content")).startswith(SUMMARY_PREFIX))
    assert "The user wanted some changes." in summary and ANCHOR_HEADING in summary
    assert "src/module_20.py" in summary and "Task 30: fix the bug in src/module_30.py please." in summary
    assert "added as anchors" in engine.last_compaction_note


_URL = re.compile(r"https?://[^\s<>\"'`)\]]+")
_PATH = re.compile(r"(?:[\w.@~-]+/)+[\w.@-]+\.[A-Za-z0-9]{1,6}\b"
                   r"|\b[\w-]+\.(?:py|ex|exs|md|json|yaml|yml|toml|js|ts|rs|go|sh|heex|eex|txt|css|html|lock)\b")
_TICK = re.compile(r"`([^`\n]{4,80})`")


def issue_identifiers(turns: list[dict[str, Any]]) -> set[str]:
    """The dropped span's identifiers as the issue counts them (file paths with an extension,
    URLs, backticked names of 4+ chars), written apart from the ledger's own extraction."""
    found: set[str] = set()
    for msg in turns:
        texts = [text_of(msg.get("content"))] + [
            str((c.get("function") or {}).get("arguments") or "") for c in msg.get("tool_calls") or ()]
        for text in texts:
            found.update(u.rstrip(".,:;") for u in _URL.findall(text))
            found.update(_PATH.findall(text))
            found.update(t.strip() for t in _TICK.findall(text))
    return found


@pytest.mark.parametrize("context_length", [32_000, 128_000])
def test_offline_summary_keeps_at_least_claude_codes_identifiers(transcripts_dir: Path, context_length: int,
                                                                 make_engine: Any) -> None:
    files = sorted(transcripts_dir.glob("*pre-compact.json"))
    assert len(files) == 3
    for path in files:
        transcript = load_transcript(path)
        reference = transcript.meta["reference_summary"]["content"]
        captured: list[list[dict[str, Any]]] = []
        engine = make_engine(context_length=context_length, pre_compress=lambda t, c=captured: c.append(t) or "")
        out = engine.compress(transcript.messages, force=True).messages
        ours = next(text_of(m["content"]) for m in out if text_of(m.get("content")).startswith(SUMMARY_PREFIX))
        wanted = issue_identifiers(captured[0])
        kept, theirs = sum(i in ours for i in wanted), sum(i in reference for i in wanted)
        assert kept >= theirs, (path.name, context_length, kept, theirs, len(wanted))


def test_identifiers_of_kept_outputs_that_are_pruned_reach_the_anchor_index(make_engine: Any, convo: Any) -> None:
    """A kept tool output outside the tail's raw budget is pruned to one line; an identifier
    only it held must then be in the summary's anchor index, or it is gone."""
    messages = convo(turns=40, tool_chars=1600)
    digests = [f"sha256:{i:02d}" + "ab12cd34" * 3 for i in range(40)]
    for i, msg in enumerate(m for m in messages if m.get("role") == "tool"):
        msg["content"] += f"\nartifact uploaded: {digests[i]}"
    engine = make_engine()
    out = engine.compress(messages).messages
    kept = json.dumps(out)
    pruned_kept = [m for m in out if m.get("role") == "tool" and m["content"].startswith("[Old tool output")]
    assert pruned_kept, "the tail no longer prunes any kept output; this test needs one"
    assert [d for d in digests if d not in kept] == []

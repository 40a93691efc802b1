"""Trimming never destroys the summary: when a list that carries a summary has to be
trimmed (nothing left to summarize), the summary is shrunk by priority, not cut blindly,
and the window still holds. On a real corpus session replayed at 16k, every trimmed
summary keeps its marker, its end, every section heading and the user's asks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hermes_compressor import CompressorEngine
from hermes_compressor.constants import SUMMARY_END, SUMMARY_PREFIX
from hermes_compressor.summary_message import is_summary, split_summary
from hermes_compressor.summary_shrink import shrink_summary
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.apps.replay import replay
from hermes_core.text.ledger import ANCHOR_HEADING
from hermes_core.text.tokens import estimate_messages_tokens

WINDOW = 16_000
SESSION = "claude-code_spotter_fa812bfe_pre-compact.json"


def _headings(body: str) -> list[str]:
    return [line for line in body.splitlines() if line.startswith("## ")]


def _asks(body: str) -> list[str]:
    section = body.partition("## Pending User Asks\n")[2].split("\n## ")[0]
    return [line for line in section.splitlines() if line.startswith("- ") and line != "- None."]


@pytest.fixture
def trims(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]], int]]:
    """(input, output, threshold) of every compaction that trimmed a list carrying a summary."""
    seen: list[tuple[list[dict[str, Any]], list[dict[str, Any]], int]] = []
    compress = CompressorEngine.compress

    def recording(self: CompressorEngine, messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
        result = compress(self, messages, *args, **kwargs)
        if self.last_summary_source == "none" and result.messages is not messages and any(map(is_summary, messages)):
            seen.append((messages, result.messages, self.threshold_tokens))
        return result

    monkeypatch.setattr(CompressorEngine, "compress", recording)
    return seen


def test_a_trimmed_corpus_session_keeps_a_valid_summary(make_host, transcripts_dir: Path, trims) -> None:
    result = replay(transcripts_dir / SESSION, make_host(**{"model.context_length": WINDOW}))
    assert result.ok
    assert max(t for turn in result.turns for t in turn.request_tokens) < WINDOW
    shrunk = 0
    for before, after, threshold in trims:
        assert estimate_messages_tokens(after) < threshold
        (old,) = [split_summary(m)[0] for m in before if is_summary(m)]
        carriers = [m for m in after if is_summary(m)]
        assert len(carriers) == 1, "the summary lost its marker"
        text = carriers[0]["content"]
        assert text.startswith(SUMMARY_PREFIX) and SUMMARY_END in text
        new = split_summary(carriers[0])[0]
        assert _headings(new) == _headings(old)
        for ask in _asks(old):
            assert ask[:120] in new, ask
        if len(new) < len(old):
            shrunk += 1
            assert "[Summary shortened to fit the window" in new
    assert shrunk >= 2, f"the corpus session no longer makes the engine shrink a summary ({len(trims)} trims)"


SUMMARY = "\n\n".join([
    "## Goal\n- Ship the parser.",
    "## Constraints & Preferences\n- Never push to main.",
    "## Progress (Done / In Progress / Blocked)\n" + "\n".join(f"- Done: step {i} ok" for i in range(40)),
    "## Pending User Asks\n- Please also add tests for src/parser.py.",
    "## Tools & Patterns\n" + "\n".join(f"- Ran: make build-{i}" for i in range(40)),
    f"{ANCHOR_HEADING}\n- ask: Can you keep the CLI flags?\n- identifier: "
    + " | ".join(f"id_{i}.py" for i in range(60)),
])


def test_low_priority_lines_go_first_and_asks_stay() -> None:
    small = shrink_summary(SUMMARY, 900)
    assert len(small) <= 900
    assert _headings(small) == _headings(SUMMARY)
    for kept in ("Ship the parser.", "Never push to main.", "Please also add tests for src/parser.py.",
                 "Can you keep the CLI flags?", "id_0.py"):
        assert kept in small
    assert "make build-" not in small and "id_59.py" not in small  # tool patterns, the oldest anchors
    assert "Tools & Patterns 40" in small
    assert shrink_summary(SUMMARY, len(SUMMARY)) == SUMMARY


@settings(max_examples=150, deadline=None)
@given(body=st.text(alphabet=st.sampled_from("ab #-|:\n") | st.characters(codec="utf-8", exclude_categories=("Cs",)),
                    max_size=3000) | st.sampled_from([SUMMARY]),
       limit=st.integers(0, 4000))
def test_never_longer_than_asked(body: str, limit: int) -> None:
    out = shrink_summary(body, limit)
    assert out == body if len(body) <= limit else len(out) <= limit

"""Compaction keeps working turn after turn in long agentic sessions.

After one compaction the last user-role message may be the engine's own summary, which
the next compaction rewrites; the host must judge results by the session's real user
message instead, or every compaction after the first is refused.
"""

from __future__ import annotations

import logging

import pytest

from hermes_core.apps.replay import replay

LONG_AGENTIC = [
    "claude-code_spotter_fa812bfe_pre-compact.json",
    "claude-code_spotter_8463c716_pre-compact.json",
    "mini-swe-agent_deepseek-chat_astroid-1333.json",
]


@pytest.mark.parametrize("name", LONG_AGENTIC)
def test_compaction_keeps_working_after_the_first(make_host, transcripts_dir, name, caplog):
    host = make_host(**{"model.context_length": 16_000})
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        result = replay(transcripts_dir / name, host)
    assert result.ok and result.compactions > 3
    assert "the messages are kept as they were" not in caplog.text


def test_no_request_outgrows_the_window_on_any_transcript(make_host, transcripts_dir):
    """Preflight compaction judges the request about to be sent (tool schemas included),
    not the previous one: with a stale count the engine declined and 30k-token requests
    went out in a 16k window."""
    largest = {}
    for path in sorted(transcripts_dir.glob("*.json")):
        host = make_host(**{"model.context_length": 16_000})
        result = replay(path, host)
        largest[path.name] = max(t for turn in result.turns for t in turn.request_tokens)
    assert {name: n for name, n in largest.items() if n >= 16_000} == {}

"""Compaction keeps working turn after turn in long agentic sessions.

After one compaction the last user-role message may be the engine's own summary, which
the next compaction rewrites; the host must judge results by the session's real user
message instead, or every compaction after the first is refused.
"""

from __future__ import annotations

import logging

import pytest

from hermes_core.replay import replay

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

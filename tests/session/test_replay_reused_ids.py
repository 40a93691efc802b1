"""Replay keeps the transcript's own tool output when the transcript reuses a tool-call id.

The session renames a repeated id (the API rejects duplicates); the replayer must follow
the rename instead of losing the recorded result and routing the call to the host.
"""

from __future__ import annotations

import json
from typing import Any

from hermes_core.apps.replay import Replayer, ReplayResult
from hermes_core.apps.transcripts import parse_transcript


def bash_turn(n: int, call_id: str, output: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": f"turn {n}: list the files"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "ls"}'}}]},
        {"role": "tool", "tool_call_id": call_id, "content": output},
        {"role": "assistant", "content": f"done {n}"},
    ]


def play(messages: list[dict[str, Any]], host: Any) -> tuple[ReplayResult, list[dict[str, Any]]]:
    """Replay ``messages``; the result and the history the session kept."""
    replayer = Replayer(parse_transcript(json.dumps(messages)), host, session_id="reuse")
    for _ in replayer.steps():
        pass
    return replayer.finish(), replayer.session.messages


def tool_outputs(result_messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in result_messages if m.get("role") == "tool"]


def test_a_reused_call_id_keeps_the_recorded_output(make_host: Any) -> None:
    messages = bash_turn(1, "t1", "REAL OUTPUT 1") + bash_turn(2, "t1", "REAL OUTPUT 2")
    result, session_messages = play(messages, make_host())
    assert tool_outputs(session_messages) == ["REAL OUTPUT 1", "REAL OUTPUT 2"]
    assert all(not t.notes for t in result.turns), [t.notes for t in result.turns]
    ids = [c["id"] for m in session_messages if m.get("role") == "assistant" for c in m.get("tool_calls") or ()]
    assert ids[0] == "t1" and len(set(ids)) == 2  # the second was renamed, and its result followed
    assert result.ok


def test_a_repeated_id_within_one_reply_answers_each_call_in_order(make_host: Any) -> None:
    calls = [{"id": "dup", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"n": n})}}
             for n in range(2)]
    messages = [
        {"role": "user", "content": "run two"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "dup", "content": "FIRST"},
        {"role": "tool", "tool_call_id": "dup", "content": "SECOND"},
        {"role": "assistant", "content": "both ran"},
    ]
    result, session_messages = play(messages, make_host())
    assert tool_outputs(session_messages) == ["FIRST", "SECOND"]
    assert result.turns[0].notes == [] and result.ok

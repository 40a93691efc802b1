"""Malformed input does not stop compaction: broken tool calls, orphan tool results."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from hermes_core.text.messages import api_problems
from hermes_core.text.tokens import estimate_messages_tokens

MALFORMED_CALLS: list[list[Any]] = [
    [{"id": "q1", "type": "function", "function": "ls"}],  # function is a string
    [{"type": "function", "function": {"name": "bash", "arguments": '{"cmd": "pwd"}'}}],  # no id
    [{"id": "q3", "type": "function", "function": {"name": "read", "arguments": {"path": "src/app.py"}}}],  # object
    [None, {"id": "q4", "function": None}],
]


def round_of(k: int) -> list[dict[str, Any]]:
    """One user turn with a malformed call (answered when it has an id) and some bulk."""
    calls = MALFORMED_CALLS[k % len(MALFORMED_CALLS)]
    msgs: list[dict[str, Any]] = [{"role": "user", "content": f"round {k} " + "u " * 400},
                                  {"role": "assistant", "content": f"calling {k}", "tool_calls": calls}]
    msgs += [{"role": "tool", "tool_call_id": c["id"], "content": f"result {k} " + "r " * 400}
             for c in calls if isinstance(c, dict) and c.get("id") and isinstance(c.get("function"), dict | str)]
    msgs.append({"role": "assistant", "content": f"done {k} " + "a " * 400})
    return msgs


def test_malformed_tool_calls_over_several_compactions(make_engine: Any) -> None:
    engine = make_engine(context_length=8000)
    engine.on_session_start("s")
    live: list[dict[str, Any]] = []
    compactions = 0
    for k in range(24):
        live = live + round_of(k)
        if engine.should_compress_preflight(live):
            live = engine.compress(live).messages
            assert "compaction failed" not in engine.last_compaction_note, engine.last_compaction_note
            assert engine.last_compaction["changed"]
            compactions += 1
        assert estimate_messages_tokens(live) < 8000  # never grows past the window
    assert compactions >= 3
    covered = {m for s in engine.store.all_summaries("s") if s.covers_kind == "messages" for m in s.covers}
    first_round = [m.id for m in engine.store.session_messages("s", limit=10)[:3]]
    assert set(first_round) <= covered  # the malformed messages were summarized, not left behind


def test_orphan_tool_results_are_dropped_by_the_cli(tmp_path: Path) -> None:
    messages: list[dict[str, Any]] = []
    for _ in range(30):
        messages += [{"role": "user", "content": "u " * 500},
                     {"role": "tool", "tool_call_id": "zz", "content": "t " * 500},
                     {"role": "assistant", "content": "a " * 500}]
    path = tmp_path / "orphan.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    env["HERMES_HOME"] = str(tmp_path / "home")
    exe = shutil.which("hermes-core")
    cmd = [exe] if exe else [sys.executable, "-m", "hermes_core"]
    run = subprocess.run([*cmd, "compact", str(path), "--engine", "lcm", "--context-length", "8000", "--json"],
                         env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["report"]["compacted"]
    assert api_problems(result["messages"]) == []
    assert not any(m["role"] == "tool" for m in result["messages"])


def test_stub_for_an_unanswered_call_survives_a_restart(make_engine: Any, tmp_path: Path) -> None:
    """A stub result the engine wrote is part of the saved layout: a restarted process that is
    handed the same list back recognises every position and stores only what is new."""
    msgs: list[dict[str, Any]] = []
    for k in range(24):
        msgs += [{"role": "user", "content": f"ask {k} " + "u " * 300}, {"role": "assistant", "content": "a " * 300}]
    msgs += [{"role": "user", "content": "last ask"}, {"role": "assistant", "content": "calling", "tool_calls": [
        {"id": "open1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}]
    first = make_engine(context_length=8000, home=tmp_path / "h")
    first.on_session_start("s")
    after = first.compress(msgs).messages
    assert api_problems(after) == [] and after[-1]["role"] == "tool" and after[-1]["tool_call_id"] == "open1"
    stored = first.store.session_size("s")
    first.close()  # the process ends: its store and its hold on the session go
    second = make_engine(context_length=8000, home=tmp_path / "h")
    second.on_session_start("s")
    second.should_compress_preflight([*after, {"role": "user", "content": "and then?"}])
    assert second.store.session_size("s") == stored + 1

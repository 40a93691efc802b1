"""Bad input: not-a-conversation files, failing and hanging providers, Ctrl-C during replay."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hermes_core.apps.replay import Replayer, replay, split_turns
from hermes_core.apps.transcripts import TranscriptError, load_transcript, parse_transcript
from hermes_core.cli import main
from hermes_core.session.session import Session
from hermes_core.text.messages import api_problems

REMEMBER = json.dumps({"action": "add", "target": "user", "content": "Prefers tabs over spaces"})


def conversation(turns: int) -> list[dict[str, Any]]:
    """A transcript whose every turn calls the agent's own tool and then hermes-core's memory tool."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a test agent."}]
    for n in range(turns):
        messages += [
            {"role": "user", "content": f"turn {n}: remember fact {n}"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"b{n}", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "ls"}'}}]},
            {"role": "tool", "tool_call_id": f"b{n}", "content": "file.txt"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"m{n}", "type": "function", "function": {"name": "memory", "arguments": json.dumps(
                    {"action": "add", "target": "memory", "content": f"Fact number {n} is true"})}}]},
            {"role": "tool", "tool_call_id": f"m{n}", "content": '{"success": true}'},
            {"role": "assistant", "content": f"Saved fact {n}."},
        ]
    return messages


def write_transcript(path: Path, messages: Any) -> Path:
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "why"), [
    ('{"foo": 1}', "must have a 'messages' list"),
    ("[]", "no messages"),
    ("42", "expected a list"),
    ('[{"role": "assistant", "content": "hi"}]', "no user message"),
    ('[{"role": "system", "content": "only a prompt"}]', "no user message"),
    ("not json at all", "not valid JSON"),
])
def test_not_a_conversation(text: str, why: str, tmp_path: Path, make_host: Any,
                            capsys: pytest.CaptureFixture[str], hermes_home: Path) -> None:
    with pytest.raises(TranscriptError, match=why):
        split_turns(parse_transcript(text).messages)
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and why in err and "Traceback" not in err


def test_odd_but_readable_transcripts_are_replayed_validly(make_host: Any) -> None:
    messages = [
        {"role": "assistant", "content": "before any user"},
        {"role": "user", "content": "a"}, {"role": "user", "content": "b"},
        {"role": "tool", "tool_call_id": "ghost", "content": "orphan"},
        {"role": "assistant", "content": "one"}, {"role": "assistant", "content": "two"},
        {"role": "system", "content": "mid-conversation system"},
        {"role": "user", "content": "c"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "u1", "type": "function", "function": {"name": "unknown_tool", "arguments": "{}"}}]},
        {"role": "user", "content": "d"},
    ]
    result = replay(parse_transcript(json.dumps(messages)), make_host())
    assert result.invalid_requests == 0 and result.requests == 3
    notes = " ".join(result.notes + [n for t in result.turns for n in t.notes])
    assert "before the first user" in notes and "system message inside" in notes
    assert "without an open call" in notes and "routed to the host" in notes


def test_unknown_tools_and_missing_usage_keep_the_session_consistent(make_host: Any) -> None:
    session = Session(make_host())
    session.start_turn("hi")
    calls = session.add_response({"content": "", "tool_calls": [
        {"id": "1", "function": {"name": "nope", "arguments": {"x": 1}}},
        {"id": "2", "function": {"name": "", "arguments": "[]"}}]})
    for c in calls:
        assert "error" in json.loads(session.run_tool(c))
    assert api_problems(session.request().messages) == []
    assert session.add_response("bye") == []
    session.close()


class Exploding:
    """Raises from every hook; the turn must go on without it."""

    @staticmethod
    def make(base: type) -> type:
        def boom(self: Any, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("provider exploded")

        names = ("initialize", "system_prompt_block", "prefetch", "queue_prefetch", "sync_turn", "on_turn_start",
                 "on_pre_compress", "on_memory_write", "on_session_end", "get_tool_schemas", "handle_tool_call",
                 "shutdown", "on_delegation")
        return type("Exploding", (base,), {n: boom for n in names})


def test_provider_that_raises_everywhere(make_host: Any, recorder: type, hermes_home: Path) -> None:
    host = make_host(providers={"recorder": Exploding.make(recorder)},
                     **{"memory.provider": "recorder", "model.context_length": 2000})
    result = replay(parse_transcript(json.dumps(conversation(3))), host)
    assert result.invalid_requests == 0 and result.requests == 9
    assert [len(t.memory_writes) for t in result.turns] == [1, 1, 1]
    text = (hermes_home / "memories" / "MEMORY.md").read_text()
    assert all(f"Fact number {n} is true" in text for n in range(3))


def test_provider_that_hangs(make_host: Any, recorder: type) -> None:
    release = threading.Event()

    class Hanging(recorder):  # type: ignore[misc, valid-type]
        def prefetch(self, query: str) -> str:
            release.wait(30)
            return "late"

        def sync_turn(self, user_content: str, assistant_content: str) -> None:
            release.wait(30)

    host = make_host(providers={"recorder": Hanging},
                     **{"memory.provider": "recorder", "memory.prefetch_timeout": 0.2})
    host.memory.drain_timeout = 0.3
    session = Session(host)
    started = time.monotonic()
    for n in range(3):
        request = session.start_turn(f"t{n}")
        assert "late" not in request.messages[-1]["content"]
        session.add_response("ok")
    session.close()
    assert time.monotonic() - started < 5
    assert api_problems(session.messages) == [] and session.closed
    release.set()


def press_ctrl_c() -> None:
    """A real Ctrl-C: SIGINT to this process, while the provider's call runs on its own thread.

    (A ``KeyboardInterrupt`` raised by provider code is isolated like any exception; only the
    user's Ctrl-C, which lands in the main thread, stops the turn.)
    """
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.5)


def test_ctrl_c_during_replay_keeps_state(make_host: Any, recorder: type, hermes_home: Path) -> None:
    class CtrlC(recorder):  # type: ignore[misc, valid-type]
        def on_turn_start(self, turn_number: int, message: str) -> None:
            super().on_turn_start(turn_number, message)
            if turn_number == 3:
                press_ctrl_c()

    host = make_host(providers={"recorder": CtrlC}, **{"memory.provider": "recorder"})
    result = replay(parse_transcript(json.dumps(conversation(5))), host)
    assert result.interrupted and [t.turn for t in result.turns] == [1, 2, 3]
    assert result.invalid_requests == 0
    text = (hermes_home / "memories" / "MEMORY.md").read_text()
    assert "Fact number 0" in text and "Fact number 1" in text and "Fact number 2" not in text
    syncs = [e for e in CtrlC.log if e[0] == "sync_turn"]
    assert [s[1] for s in syncs] == ["turn 0: remember fact 0", "turn 1: remember fact 1"]  # drained, in order
    assert CtrlC.log[-2][0] == "on_session_end" and CtrlC.log[-2][2] == 13  # 2 turns x 6 + the 3rd user message
    assert CtrlC.log[-1] == ("shutdown",)


def test_ctrl_c_mid_turn_closes_open_tool_calls(make_host: Any, tmp_path: Path) -> None:
    replayer = Replayer(parse_transcript(json.dumps(conversation(2))), make_host())
    steps = replayer.steps()
    next(steps)  # first request sent, the bash call is open
    assert replayer.session.open_tool_calls() == ["b0"]
    result = replayer.finish(interrupted=True)
    assert result.interrupted and replayer.session.closed
    assert api_problems(replayer.session.messages) == []
    assert "interrupted during this turn" in result.turns[-1].notes


def test_cli_ctrl_c_prints_what_was_done(make_host: Any, monkeypatch: pytest.MonkeyPatch, recorder: type,
                                         tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    class CtrlC(recorder):  # type: ignore[misc, valid-type]
        def on_turn_start(self, turn_number: int, message: str) -> None:
            if turn_number == 2:
                press_ctrl_c()

    import hermes_core.cli.common as common

    monkeypatch.setattr(common, "host_from_args", lambda args, **_kw: make_host(
        providers={"recorder": CtrlC}, **{"memory.provider": "recorder"}))
    path = write_transcript(tmp_path / "t.json", conversation(4))
    assert main(["replay", str(path), "--json"]) == 130
    data = json.loads(capsys.readouterr().out)
    assert data["interrupted"] is True and len(data["turns"]) == 2 and data["invalid_requests"] == 0


def test_replay_example_file_from_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], hermes_home: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "claude-code_ai-sessions_pomodoro.json"
    assert load_transcript(example).meta["source"]["license"] == "MIT"
    svg = tmp_path / "tokens.svg"
    assert main(["replay", str(example), "--context-length", "16000", "--plot", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "41 requests, all API-valid" in out and "TURN" in out
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg.read_text())
    assert root.tag.endswith("svg") and any(el.tag.endswith("polyline") for el in root)
    assert main(["replay", str(example), "--context-length", "0"]) == 2
    assert main(["replay", str(example), "--plot", str(tmp_path / "missing" / "x.svg")]) == 2


def test_replay_uses_a_scratch_home_unless_live(tmp_path: Path, hermes_home: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (hermes_home / "memories").mkdir(mode=0o700)
    (hermes_home / "memories" / "MEMORY.md").write_text("Existing note")
    (hermes_home / "config.yaml").write_text("model:\n  name: from-config\n")
    path = write_transcript(tmp_path / "t.json", conversation(2))
    assert main(["replay", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["home"] == "scratch" and [len(t["memory_writes"]) for t in data["turns"]] == [1, 1]
    assert (hermes_home / "memories" / "MEMORY.md").read_text() == "Existing note"  # untouched
    assert os.environ["HERMES_HOME"] == str(hermes_home)
    assert main(["replay", str(path), "--live"]) == 0
    assert "home: live" in capsys.readouterr().out
    memory = (hermes_home / "memories" / "MEMORY.md").read_text()
    assert "Existing note" in memory and "Fact number 1 is true" in memory


def test_replay_config_error_names_the_users_file(hermes_home: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (hermes_home / "config.yaml").write_text("context:\n  threshold_percent: 7\n")
    path = write_transcript(tmp_path / "t.json", conversation(1))
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{hermes_home / 'config.yaml'}: context.threshold_percent: got 7" in err

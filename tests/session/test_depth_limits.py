"""Deeply nested JSON: tool arguments, transcripts, config, CLI input — a clear error, never a RecursionError."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.apps.transcripts import TranscriptError, load_transcript
from hermes_core.session.session import Session
from hermes_core.text.json_depth import JSONTooDeep, loads_bounded

DEEP = "[" * 100_000 + "]" * 100_000


def deep_dict(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


def cli(home: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hermes_core", *argv], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HERMES_HOME": str(home)}, input=stdin)


@pytest.mark.parametrize("arguments", [json.dumps({"action": "add", "content": DEEP}),
                                       '{"action": "add", "x": ' + DEEP + "}", deep_dict(200)])
def test_run_tool_answers_deeply_nested_arguments(make_host: Any, arguments: Any) -> None:
    with Session(make_host()) as session:
        session.start_turn("hi")
        calls = session.add_response({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "memory", "arguments": arguments}}]})
        result = session.run_tool(calls[0])
        assert session.open_tool_calls() == []  # answered
        data = json.loads(result)
        assert data.get("success") is not True
        if not isinstance(arguments, str) or (DEEP in arguments and '"x"' in arguments):
            assert "nested deeper than 64 levels" in data["error"]
        session.request()  # the history is still valid


def test_run_tool_answers_even_when_the_tool_raises(make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with Session(make_host()) as session:
        session.start_turn("hi")
        calls = session.add_response({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "memory", "arguments": "{}"}}]})

        def boom(name: str, args: Any) -> str:
            raise RecursionError("maximum recursion depth exceeded")

        monkeypatch.setattr(session.host, "handle_tool_call", boom)
        assert "RecursionError" in json.loads(session.run_tool(calls[0]))["error"]
        assert session.open_tool_calls() == []
        session.request()


def test_loads_bounded_is_a_json_decode_error() -> None:
    with pytest.raises(json.JSONDecodeError, match="nested deeper than 64"):
        loads_bounded(DEEP, "input")
    with pytest.raises(JSONTooDeep):
        loads_bounded("[" * 65 + "]" * 65, "input")
    assert loads_bounded("[" * 64 + "]" * 64, "input")


def test_deep_transcript_is_a_transcript_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"messages": [{"role": "user", "content": ' + DEEP + "}]}")
    with pytest.raises(TranscriptError, match="nested deeper than 128"):
        load_transcript(path)


def test_cli_never_prints_a_recursion_error(hermes_home: Path, tmp_path: Path) -> None:
    shallower = "[" * 50_000 + "]" * 50_000  # one argv string is at most 128 KiB
    done = cli(hermes_home, "tools", "call", "memory", '{"action": "read", "x": ' + shallower + "}")
    assert done.returncode == 2 and "nested deeper than 64 levels" in done.stderr
    assert "RecursionError" not in done.stderr and "Traceback" not in done.stderr
    path = tmp_path / "deep.json"
    path.write_text('[{"role": "user", "content": ' + DEEP + "}]")
    done = cli(hermes_home, "replay", str(path))
    assert done.returncode != 0 and "nested deeper than 128" in done.stderr
    assert "Traceback" not in done.stderr
    (hermes_home / "config.yaml").write_text("memory:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(80))
                                             + "  " * 81 + "v: 1\n")
    done = cli(hermes_home, "config", "check")
    assert done.returncode == 2 and "nested deeper than 64 levels" in done.stderr


def test_debug_works_anywhere_and_warnings_print_once(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text("memroy: {}\nmemory: {provider: nope}\n")
    for argv in (["memory", "show"], ["config", "check"], ["prompt"]):
        done = cli(hermes_home, *argv)
        assert (done.stdout + done.stderr).count("unknown key 'memroy'") == 1, argv
        assert (done.stdout + done.stderr).count("unknown memory provider 'nope'") == 1, argv
    (hermes_home / "config.yaml").write_text("context: {threshold_percent: high}\n")
    assert "Traceback" in cli(hermes_home, "config", "show", "--debug").stderr
    assert "Traceback" in cli(hermes_home, "--debug", "config", "show").stderr
    assert "Traceback" not in cli(hermes_home, "config", "show").stderr


def test_a_closed_pipe_exits_quietly(hermes_home: Path) -> None:
    (hermes_home / "memories").mkdir()
    (hermes_home / "config.yaml").write_text("memory: {memory_char_limit: 1000000}\n")
    entries = "\n§\n".join(f"fact number {n} " + "x" * 80 for n in range(4000))  # ~400 KB: more than a pipe holds
    (hermes_home / "memories" / "MEMORY.md").write_text(entries + "\n")
    env = {**os.environ, "HERMES_HOME": str(hermes_home)}
    done = subprocess.run(f"'{sys.executable}' -m hermes_core memory show | head -n 1", shell=True, capture_output=True,
                          text=True, timeout=60, env=env)
    assert done.stdout.count("\n") == 1
    assert done.stderr == "", done.stderr

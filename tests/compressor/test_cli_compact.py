"""``hermes-core compact`` end to end: report, --json, -o, errors, and a configured model."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_core.cli import main
from hermes_core.testing.llm_server import Reply, Script, chat_answer, llm_server

Convo = Callable[..., list[dict[str, Any]]]


@pytest.fixture
def transcript(tmp_path: Path, convo: Convo) -> Path:
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in convo()), encoding="utf-8")
    return path


def test_readable_report(hermes_home: Path, transcript: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compact", str(transcript), "--context-length", "16000", "--focus", "module_20"]) == 0
    out = capsys.readouterr().out
    assert "engine compressor, context 16,000 tokens (threshold 8,000)" in out
    assert "summary   deterministic" in out and "## Pending User Asks" in out
    assert "Focus 'module_20'" in out


def test_json_and_output_file(hermes_home: Path, transcript: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "compacted.json"
    assert main(["compact", str(transcript), "--context-length", "16000", "--json", "-o", str(out_file)]) == 0
    doc = json.loads(capsys.readouterr().out)
    report = doc["report"]
    assert report["messages_after"] == len(doc["messages"]) < report["messages_before"] == 162
    assert report["tokens_after"] < report["threshold_tokens"] < report["tokens_before"]
    assert report["summary_source"] == "deterministic" and report["compacted"] is True
    assert report["messages_removed"] == report["messages_before"] - report["messages_after"] > 100
    assert json.loads(out_file.read_text()) == doc
    again = main(["compact", str(out_file), "--context-length", "16000", "--json"])  # its output is a valid input
    assert again == 0 and json.loads(capsys.readouterr().out)["report"]["messages_before"] == len(doc["messages"])


@pytest.mark.parametrize(("content", "expected"), [
    (None, "no such file"),
    ("{not json", "not valid JSON"),
    ('{"messages": [{"content": "no role"}]}', "message 0 has no 'role'"),
])
def test_unreadable_file_is_one_line(hermes_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     content: str | None, expected: str) -> None:
    path = tmp_path / "in.json"
    if content is not None:
        path.write_text(content)
    assert main(["compact", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and expected in err[0]


def test_bad_flags(hermes_home: Path, transcript: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compact", str(transcript), "--context-length", "0"]) == 2
    assert main(["compact", str(transcript), "--engine", "no-such-engine"]) == 2
    err = capsys.readouterr().err
    assert "positive number" in err and "unknown context engine 'no-such-engine'" in err


def test_uses_configured_auxiliary_model(hermes_home: Path, transcript: Path,
                                         write_config: Callable[[dict[str, Any]], Path]) -> None:
    script = Script(Reply(200, chat_answer("## Goal\n- summarized by the aux model")))
    with llm_server(script) as url:
        write_config({"auxiliary": {"base_url": url, "model": "aux"}, "model": {"context_length": 16000}})
        command = "from hermes_core.cli import main; raise SystemExit(main())"
        proc = subprocess.run([sys.executable, "-c", command, "compact", str(transcript), "--json"],
                              capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)["report"]
    assert report["summary_source"] == "llm" and "summarized by the aux model" in report["summary"]
    assert len(script.requests) == 1


def test_prints_the_summary_and_only_it(hermes_home: Path, transcript: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compact", str(transcript), "--context-length", "16000"]) == 0
    out = capsys.readouterr().out
    printed = out.split("\n\n", 1)[1]
    assert printed.startswith("## Goal") and "Fixed module_39." not in printed  # a kept tail message is not shown
    assert "\n\n\n" not in printed.strip()
    assert "home      scratch" in out


def test_nothing_compacted_exits_1_with_the_reason(hermes_home: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps([{"role": "user", "content": "hello"}]))
    assert main(["compact", str(path)]) == 1
    captured = capsys.readouterr()
    assert "nothing was compacted" in captured.out and "nothing was compacted:" in captured.err
    assert "nothing to summarize" in captured.err


def test_focus_finds_a_topic_only_in_tool_output(hermes_home: Path, tmp_path: Path, convo: Convo,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    messages = convo()
    for i, msg in enumerate(messages):
        if msg["role"] == "tool" and i < 100:
            msg["content"] = "building...\n" + "".join(
                f"ZEBRAFISH_{i}_{k} checksum mismatch in vendor/lib_{i}_{k}.so\n" for k in range(12)) + "log\n" * 200
    path = tmp_path / "focus.json"
    path.write_text(json.dumps(messages))
    assert main(["compact", str(path), "--context-length", "16000", "--focus", "zebrafish", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["report"]["summary"].split("## Anchor Index")[0]  # the summary proper
    focus = [ln for ln in summary.splitlines() if ln.startswith("- Focus: ")]
    assert focus and all("ZEBRAFISH_" in ln for ln in focus)
    share = sum(len(ln) for ln in focus) / len(summary)
    assert 0.55 < share < 0.75, share  # 60-70 % of the budget, not the whole summary


def test_scratch_home_unless_live(hermes_home: Path, transcript: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("hermes_context_lcm")
    assert main(["compact", str(transcript), "--context-length", "16000", "--engine", "lcm"]) == 0
    assert not list(hermes_home.rglob("lcm.db*")), "compact wrote the user's lcm.db"
    assert main(["compact", str(transcript), "--context-length", "16000", "--engine", "lcm", "--live"]) == 0
    assert list(hermes_home.rglob("lcm.db*"))
    assert f"home      {hermes_home}" in capsys.readouterr().out

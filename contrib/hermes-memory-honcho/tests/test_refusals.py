"""What Honcho refuses: the model is never told "saved", refusals are set aside by cause
and can be re-sent or dropped, and no user text reaches a log line or the status."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hermes_memory_honcho.outbox import Outbox

BOTH = pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)
MARKER = "PRIVATE-USER-TEXT-7f3a"


def refuse_conclusions(backend: Any) -> None:
    """The real server (no LLM key) answers 422 "OpenAI API key is required"; the fake is told to."""
    if backend.kind == "fake":
        backend.fake.conclusions_need_llm = True


@BOTH
def test_conclude_never_says_saved_when_honcho_refused(make_provider: Any, backend: Any) -> None:
    """The conclusion is the session's first write: no recall warm-up (``tools`` mode) has
    created the session, so the refusal seen is the server's own, not a 404 for the session."""
    refuse_conclusions(backend)
    provider = make_provider(timeout=5.0, recall_mode="tools")  # the tool waits up to ``timeout`` for the verdict
    provider.initialize("conclude")
    answer = json.loads(provider.handle_tool_call("honcho_conclude", {"conclusion": "Prefers tea to coffee"}))
    assert "result" not in answer and answer["status"] == "refused"
    assert "OpenAI API key is required" in answer["error"] and "not saved" in answer["error"]
    [aside] = provider.manage_outbox("list")["set_aside"]
    assert aside["kind"] == "conclusion" and aside["cause"] == "server"


def old_oversized_entry(provider: Any, session: str) -> None:
    """An entry queued by an earlier version that did not cap message size: the server refuses it
    with a 422 whose body echoes the whole message back."""
    s = provider.settings
    assert provider._start() is not None
    provider.outbox.append("turn", session, {"user_peer": s.user_peer, "assistant_peer": s.assistant_peer,
                                             "messages": [{"peer": s.user_peer, "content": (MARKER + " ") * 2000,
                                                           "metadata": {"hermes_turn": "old", "hermes_part": 0},
                                                           "created_at": "2026-11-30T10:00:00Z"}]}, key="old")


@BOTH
def test_refusals_are_set_aside_by_cause_without_user_text(
    make_provider: Any, backend: Any, stored: Any, eventually: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    refuse_conclusions(backend)
    provider = make_provider()
    provider.initialize("causes")
    old_oversized_entry(provider, "causes")
    provider.on_memory_write("add", "user", f"Lives in Lisbon {MARKER}")
    provider.sync_turn("a later question", "a later answer")
    provider.on_session_end("causes", [])
    assert eventually(lambda: stored(backend, "causes") == ["a later question", "a later answer"])
    listing = provider.manage_outbox("list")
    causes = {a["kind"]: a["cause"] for a in listing["set_aside"]}
    assert causes == {"turn": "payload", "conclusion": "server"}
    payload_reason = next(a["reason"] for a in listing["set_aside"] if a["kind"] == "turn")
    assert "at most 25000 characters" in payload_reason
    status = provider.get_status()
    assert "1 payload" in status["summary"] and "1 server" in status["summary"]
    assert "last error: rejected: HTTP 422" in status["summary"]
    shown = json.dumps([status, listing]) + "\n".join(r.getMessage() for r in caplog.records)
    assert MARKER not in shown, "user text leaked into a log line, the status or the listing"


def write_config(home: Path, backend: Any) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump({
        "memory": {"provider": "honcho"},
        "plugins": {"honcho": {"base_url": backend.url, "workspace": backend.workspace,
                               "session_strategy": "per-session", "timeout": 2.0, "flush_wait": 5.0}}}))


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HERMES_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "hermes_core", "memory", "outbox", *args], env=env,
                          capture_output=True, text=True, timeout=60)


def test_set_aside_entries_are_resent_or_dropped_from_the_cli(
    make_provider: Any, backend: Any, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    write_config(home, backend)
    backend.fake.conclusions_need_llm = True  # the server's setup is wrong...
    provider = make_provider()
    provider.initialize("cli")
    provider.on_memory_write("add", "user", "Has a cat named Miso")
    old_oversized_entry(provider, "cli")
    provider.on_session_end("cli", [])
    provider.shutdown()

    listed = json.loads(cli(home, "list", "--json").stdout)
    assert sorted(a["cause"] for a in listed["set_aside"]) == ["payload", "server"]
    text = cli(home, "list")
    assert text.returncode == 0 and "2 set aside" in text.stdout and MARKER not in text.stdout

    backend.fake.conclusions_need_llm = False  # ...and gets fixed: re-send what it refused
    retried = json.loads(cli(home, "retry", "--cause", "server", "--json").stdout)
    assert retried["changed"] == 1 and [c["content"] for c in backend.fake.conclusions] == ["Has a cat named Miso"]
    payload = [a for a in retried["set_aside"] if a["cause"] == "payload"]
    assert len(payload) == 1
    dropped = cli(home, "drop", str(payload[0]["id"]))
    assert dropped.returncode == 0 and "1 entry dropped" in dropped.stdout
    assert Outbox(home / "honcho" / "outbox.sqlite3").counts()["rejected"] == 0


def test_the_outbox_command_says_when_no_provider_keeps_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("memory: {memory_enabled: true}\n")
    result = cli(home, "list")
    assert result.returncode == 1 and "keeps no outbox" in result.stderr

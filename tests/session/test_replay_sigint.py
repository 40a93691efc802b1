"""A real Ctrl-C (SIGINT) to a running ``hermes-core replay`` process: clean stop, nothing lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SLOW_PROVIDER = '''
import time
from pathlib import Path

from hermes_core import MemoryProvider


class Slow(MemoryProvider):
    """Logs every hook to a file; each turn start takes a while, so a SIGINT lands mid-replay."""

    @property
    def name(self):
        return "slow"

    def is_available(self):
        return True, ""

    def _log(self, *parts):
        with open(Path(self.ctx.home) / "slow.log", "a") as fh:
            fh.write(" ".join(str(p) for p in parts) + "\\n")

    def initialize(self, session_id):
        self._log("initialize", session_id)

    def on_turn_start(self, turn_number, message):
        self._log("turn", turn_number)
        time.sleep(0.4)

    def sync_turn(self, user_content, assistant_content):
        self._log("sync", user_content)

    def on_session_end(self, session_id, messages):
        self._log("session_end", len(messages))

    def shutdown(self):
        self._log("shutdown")
'''


def transcript(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        args = json.dumps({"action": "add", "target": "memory", "content": f"Fact number {n} is true"})
        messages += [
            {"role": "user", "content": f"turn {n}"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"m{n}", "type": "function", "function": {"name": "memory", "arguments": args}}]},
            {"role": "tool", "tool_call_id": f"m{n}", "content": '{"success": true}'},
            {"role": "assistant", "content": f"Saved fact {n}."},
        ]
    return messages


def test_sigint_stops_replay_cleanly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plugin = home / "plugins" / "memory" / "slow"
    plugin.mkdir(parents=True)
    (plugin / "__init__.py").write_text(SLOW_PROVIDER)
    (home / "config.yaml").write_text("memory:\n  provider: slow\n")
    path = tmp_path / "t.json"
    path.write_text(json.dumps(transcript(30)))
    log = home / "slow.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_core", "replay", str(path), "--live"],
        env={**os.environ, "HERMES_HOME": str(home)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "turn 3" not in (log.read_text() if log.exists() else ""):
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted: state saved" in out and "all API-valid" in out
    lines = log.read_text().splitlines()
    done = sum(line.startswith("sync") for line in lines)
    assert done >= 2 and lines[-2].startswith("session_end") and lines[-1] == "shutdown"
    memory = (home / "memories" / "MEMORY.md").read_text()
    for n in range(done):  # every completed turn's memory write is on disk
        assert f"Fact number {n} is true" in memory
    assert "Fact number 29" not in memory

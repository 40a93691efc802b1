"""Every runnable example in examples/ runs, as a user would run it, and does what it says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(("script", "args", "expected"), [
    ("agent_loop.py", ["--demo"], "assistant: Noted — I'll write in British English. It is tea time."),
    ("agent_loop_async.py", ["--demo"], "assistant: Noted — I'll write in British English. It is tea time."),
    ("minimal_engine.py", [], "conformance: passed"),
    ("minimal_provider.py", [], "recalled: True"),
])
def test_example_runs(script: str, args: list[str], expected: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "HERMES_HOME"}
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True,
                          timeout=120, env={**env, "HOME": str(tmp_path)}, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert expected in done.stdout
    if script.startswith("agent_loop"):
        assert "1 memory write(s)" in done.stdout
    assert not (tmp_path / ".hermes").exists()  # the examples never touch the user's home

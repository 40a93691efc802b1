"""``hermes-core compact`` as a process loads only what a compaction uses.

A short compaction's time is mostly the process start: what it imports and compiles. This
guard runs the CLI in a fresh interpreter on a corpus transcript, with no config file and
with README.md's documented config.yaml, and fails if a module that compact does not need
comes back: pydantic and the config models (only for a file that needs validating), the
injection scanner's rule modules (compact scans nothing), or the redaction groups the
transcript holds no anchor of.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOT_LOADED = ("pydantic", "hermes_core.config.models", "hermes_core.text.scanning",
              "hermes_core.text.trust", "hermes_core.text.intent", "hermes_core.text.intent_scan",
              "hermes_core.text.decoding", "hermes_core.text.context")
KEY_WORD_GROUPS = set("pPsStTaAcCdD")  # password, secret, token, api key, credential, dsn (either case)

_PROBE = ("import json, sys; from hermes_core.cli import main; code = main(sys.argv[1:]); "
          "from hermes_core.text import redact; "
          "print(json.dumps({'code': code, 'modules': sorted(sys.modules), 'groups': sorted(redact._compiled)}), "
          "file=sys.stderr)")


def _documented_config() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("## Configuration", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]


@pytest.mark.parametrize("config", [None, "readme"])
def test_compact_imports_and_compiles_only_what_it_uses(tmp_path: Path, transcripts_dir: Path,
                                                        config: str | None) -> None:
    transcript = transcripts_dir / "claude-code_ai-sessions_pomodoro.json"
    home = tmp_path / "home"
    home.mkdir()
    if config:
        (home / "config.yaml").write_text(_documented_config(), encoding="utf-8")
    env = {**os.environ, "HERMES_HOME": str(home)}
    run = subprocess.run([sys.executable, "-c", _PROBE, "compact", str(transcript)], capture_output=True, text=True,
                         env=env, timeout=120, cwd=tmp_path)
    probe = json.loads(run.stderr.strip().splitlines()[-1])
    assert probe["code"] == 0, run.stderr
    loaded = [name for name in NOT_LOADED if name in probe["modules"]]
    assert not loaded, f"compact imported {loaded}"
    assert not KEY_WORD_GROUPS & set(probe["groups"]), f"compiled redaction groups {probe['groups']}"
    assert "hermes_compressor" in probe["modules"]  # the probe did run a compaction

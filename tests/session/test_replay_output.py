"""Replay output a person reads: legend, consistent token counts, empty columns explained,
requests over the window, external providers kept out of a scratch replay, the plot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

RECORDING_PROVIDER = """
import os, pathlib
from hermes_core import MemoryProvider


class Recording(MemoryProvider):
    '''Stands in for Honcho: every turn synced to it lands in a file outside the scratch home.'''

    @property
    def name(self):
        return "recording"

    def is_available(self):
        return True, ""

    def initialize(self, session_id):
        pass

    def sync_turn(self, user_content, assistant_content, session_id=""):
        with open(os.environ["RECORDING_LOG"], "a") as fh:
            fh.write(user_content + "\\n")
"""


def conversation(turns: int, size: int = 200) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a test agent."}]
    for n in range(turns):
        messages += [{"role": "user", "content": f"question {n}: " + "words " * size},
                     {"role": "assistant", "content": f"answer {n}: " + "more " * size}]
    return messages


def cli(home: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hermes_core", *argv], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "HERMES_HOME": str(home), **env})


def test_legend_consistent_counts_and_empty_columns(hermes_home: Path, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(conversation(30)))
    done = cli(hermes_home, "replay", str(path), "--context-length", "8000")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Columns: TURN") == 1 and "'preflight' compaction" in done.stdout
    assert "'API-valid'" in done.stdout
    assert "MEM WRITES is 0 everywhere: the transcript never calls hermes-core's 'memory' tool" in done.stdout
    data = json.loads(cli(hermes_home, "replay", str(path), "--context-length", "8000", "--json").stdout)
    rows = [c for t in data["turns"] for c in t["compactions"]]
    assert rows
    for row in rows:  # counted like PEAK TOKENS: a compaction never appears to fire below the threshold
        assert row["tokens_before"] >= data["threshold_tokens"], row
        assert row["tokens_before"] > row["history_tokens_before"]
    peak = max(t["prompt_tokens"] for t in data["turns"])
    assert peak <= 8000
    quiet = cli(hermes_home, "replay", str(path))
    assert "COMPACTIONS is 0 everywhere: the largest request" in quiet.stdout


def test_a_request_over_the_window_fails_the_replay_naming_it(hermes_home: Path, tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps([{"role": "user", "content": "word " * 20_000}, {"role": "assistant", "content": "ok"}]))
    done = cli(hermes_home, "replay", str(path), "--context-length", "4000")
    assert done.returncode == 1
    assert "request 1:" in done.stdout and "over the 4,000-token window" in done.stdout
    assert "1 OVER THE WINDOW" in done.stdout


def test_scratch_replay_never_reaches_the_external_provider(installed_distribution: Any, hermes_home: Path,
                                                            tmp_path: Path) -> None:
    installed_distribution("hermes-memory-recording",
                           entry_points={"hermes.memory_providers": {"recording": "rec_provider:Recording"}},
                           modules={"rec_provider.py": RECORDING_PROVIDER})
    (hermes_home / "config.yaml").write_text("memory:\n  provider: recording\n")
    log = tmp_path / "provider.log"
    path = tmp_path / "t.json"
    path.write_text(json.dumps(conversation(3, size=5)))
    done = cli(hermes_home, "replay", str(path), RECORDING_LOG=str(log))
    assert done.returncode == 0, done.stderr
    assert not log.exists()  # the user's external memory never saw the replayed transcript
    assert "external memory provider(s) recording turned off for this replay" in done.stdout
    assert json.loads(cli(hermes_home, "replay", str(path), "--json", RECORDING_LOG=str(log)).stdout)[
        "external_providers_off"] == ["recording"]
    live = cli(hermes_home, "replay", str(path), "--live", RECORDING_LOG=str(log))
    assert live.returncode == 0, live.stderr
    assert log.read_text().count("question") == 3  # the provider works: --live uses it


def test_plot_has_a_legend_round_ticks_and_refuses_png(hermes_home: Path, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(conversation(30)))
    svg = tmp_path / "plot.svg"
    assert cli(hermes_home, "replay", str(path), "--context-length", "8000", "--plot", str(svg)).returncode == 0
    text = svg.read_text()
    assert "prompt tokens per request (estimated)" in text and "compaction threshold" in text
    import re

    ticks = [int(v.replace(",", "")) for v in re.findall(r'text-anchor="end">([\d,]+)</text>', text)]
    assert ticks[:2] == [0, 1000] and all(t % 1000 == 0 for t in ticks), ticks
    png = tmp_path / "plot.png"
    done = cli(hermes_home, "replay", str(path), "--plot", str(png))
    assert done.returncode == 2 and "only SVG is drawn" in done.stderr and not png.exists()

"""A user's path: ``pip install ./contrib/hermes-context-lcm``, ``context.engine: lcm`` in
config.yaml, then ``hermes-core replay`` and ``hermes-core tools call lcm_grep`` in real processes."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hermes_core.testing.engine_conformance import corpus_dir

PACKAGE = Path(__file__).resolve().parents[1]
CORPUS = corpus_dir(Path(__file__).resolve()) or Path(__file__).resolve().parents[4] / "shared/corpus/transcripts"
TRANSCRIPT = CORPUS / "codex-cli_ai-sessions_pomodoro.json"


def hermes_core(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("hermes-core")
    cmd = [exe] if exe else [sys.executable, "-m", "hermes_core"]
    return subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The distribution pip-installed (not editable) into its own site directory."""
    site = tmp_path_factory.mktemp("site")
    offline = importlib.util.find_spec("hatchling") is not None  # else pip fetches it to build
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", *(["--no-build-isolation"] if offline else []),
         "--target", str(site), str(PACKAGE)], capture_output=True, text=True, timeout=300)
    if done.returncode and not offline:
        pytest.skip(f"cannot build without hatchling or network: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stderr
    assert (site / "hermes_context_lcm" / "engine.py").is_file()
    return site


def environment(site: Path, home: Path, config: dict[str, object]) -> dict[str, str]:
    home.mkdir(exist_ok=True)
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    env.update(HERMES_HOME=str(home), PYTHONPATH=str(site))
    return env


def test_installed_engine_replays_and_answers_lcm_grep(installed: Path, tmp_path: Path) -> None:
    if not TRANSCRIPT.is_file():
        pytest.skip(f"corpus not found at {CORPUS}")
    env = environment(installed, tmp_path / "home", {
        "context": {"engine": "lcm"}, "model": {"context_length": 8000},
        "plugins": {"lcm": {"db_path": "lcm-test.db", "fresh_tail_tokens": 2000}}})
    where = subprocess.run([sys.executable, "-c", "import hermes_context_lcm; print(hermes_context_lcm.__file__)"],
                           env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)  # not the source dir
    assert where.stdout.strip().startswith(str(installed))
    run = hermes_core("replay", str(TRANSCRIPT), "--live", "--json", env=env)  # --live: keep the engine's store
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["engine"] == "lcm" and result["ok"] and result["compactions"] > 0
    assert (tmp_path / "home" / "lcm-test.db").is_file()  # plugins.lcm.db_path was honoured
    grep = hermes_core("tools", "call", "lcm_grep", '{"pattern": "pomodoro timer", "limit": 3}', env=env)
    assert grep.returncode == 0, grep.stderr
    hits = json.loads(grep.stdout)
    assert hits["count"] >= 1 and hits["results"][0]["id"].startswith(("msg_", "sum_"))
    first_message = next(h for h in hits["results"] if h["type"] == "message")["id"]
    expand = hermes_core("tools", "call", "lcm_expand", json.dumps({"id": first_message}), env=env)
    assert expand.returncode == 0 and json.loads(expand.stdout)["message"]["role"]
    bad = hermes_core("tools", "call", "lcm_expand", '{"id": "sum_424242"}', env=env)
    assert "unknown id 'sum_424242'" in bad.stdout + bad.stderr


def test_bad_plugin_section_is_a_clear_config_error(installed: Path, tmp_path: Path) -> None:
    if not TRANSCRIPT.is_file():
        pytest.skip(f"corpus not found at {CORPUS}")
    env = environment(installed, tmp_path / "home", {
        "context": {"engine": "lcm"}, "plugins": {"lcm": {"fresh_tail_tokens": "lots", "fresh_tail": 3}}})
    run = hermes_core("replay", str(TRANSCRIPT), env=env)
    assert run.returncode != 0
    assert "plugins.lcm.fresh_tail_tokens" in run.stderr and "plugins.lcm.fresh_tail" in run.stderr
    assert "Traceback" not in run.stderr

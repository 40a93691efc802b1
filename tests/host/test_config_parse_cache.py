"""config.yaml's parse is remembered by its bytes, and only where JSON keeps it exactly.

Each case reads the file in fresh interpreters, as two commands would, with a private
cache directory; whether PyYAML was imported says whether the file was parsed again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_READ = ("import json, sys; from pathlib import Path; from hermes_core.config.raw import load_raw_config, ConfigError\n"
         "try:\n    data = load_raw_config(Path(sys.argv[1]))\nexcept ConfigError as exc:\n    data = str(exc)\n"
         "print(json.dumps({'data': repr(data), 'parsed': 'yaml' in sys.modules}))")


def _read(path: Path, cache: Path) -> dict:
    env = {**os.environ, "HERMES_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", _READ, str(path)], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_same_bytes_are_parsed_once_and_an_edit_is_seen(tmp_path: Path) -> None:
    config, cache = tmp_path / "config.yaml", tmp_path / "cache"
    config.write_text("model:\n  context_length: 64000\nplugins:\n  disabled: [a, b]\n", encoding="utf-8")
    first, second = _read(config, cache), _read(config, cache)
    assert first["parsed"] and not second["parsed"]
    expected = {"model": {"context_length": 64000}, "plugins": {"disabled": ["a", "b"]}}
    assert first["data"] == second["data"] == repr(expected)
    elsewhere = tmp_path / "other-home" / "config.yaml"  # another $HERMES_HOME, the same bytes
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(config.read_bytes())
    assert _read(elsewhere, cache) == second
    config.write_text("model:\n  context_length: 32000\n", encoding="utf-8")
    edited = _read(config, cache)
    assert edited == {"data": repr({"model": {"context_length": 32000}}), "parsed": True}


@pytest.mark.parametrize("text", ["when: 2026-12-01\n", "1: one\n", "x: .nan\n", "s: !!set {a: null}\n"])
def test_values_json_would_change_are_parsed_every_time(tmp_path: Path, text: str) -> None:
    config, cache = tmp_path / "config.yaml", tmp_path / "cache"
    config.write_text(text, encoding="utf-8")
    first, second = _read(config, cache), _read(config, cache)
    assert first == second and second["parsed"]


def test_invalid_yaml_keeps_its_message_every_time(tmp_path: Path) -> None:
    config, cache = tmp_path / "config.yaml", tmp_path / "cache"
    config.write_text("model: [unclosed\n", encoding="utf-8")
    first, second = _read(config, cache), _read(config, cache)
    assert first == second and second["parsed"] and "not valid YAML" in second["data"]


def test_a_tampered_cache_entry_is_never_taken_for_another_file(tmp_path: Path) -> None:
    config, cache = tmp_path / "config.yaml", tmp_path / "cache"
    config.write_text("memory:\n  memory_enabled: false\n", encoding="utf-8")
    _read(config, cache)
    entry = cache / "config-parse.json"
    stored = json.loads(entry.read_text(encoding="utf-8"))
    entry.write_text(json.dumps({"sha256": "0" * 64, "data": {"memory": {"memory_enabled": True}}}), encoding="utf-8")
    assert _read(config, cache) == {"data": repr({"memory": {"memory_enabled": False}}), "parsed": True}
    entry.write_text("{corrupt", encoding="utf-8")
    assert _read(config, cache)["parsed"]
    assert json.loads(entry.read_text(encoding="utf-8")) == stored

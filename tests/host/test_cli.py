"""The CLI as a whole process: output, exit codes, errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from .plugin_sources import BROKEN_IMPORT, ENGINE


def cli(*args, check_code=None):
    proc = subprocess.run([sys.executable, "-m", "hermes_core", *args], capture_output=True, text=True, timeout=60)
    if check_code is not None:
        assert proc.returncode == check_code, proc.stderr
    return proc


def test_plugins_lists_status_distribution_and_errors(installed_distribution, hermes_home):
    installed_distribution(
        "hermes-context-keeplast",
        "2.1.0",
        entry_points={"hermes.context_engines": {"keeplast": "cli_keeplast:KeepLastEngine"}},
        modules={"cli_keeplast.py": ENGINE},
    )
    installed_distribution(
        "hermes-broken",
        "0.3",
        entry_points={"hermes.plugins": {"broken": "cli_broken"}},
        modules={"cli_broken.py": BROKEN_IMPORT},
    )
    data = json.loads(cli("plugins", "--json", check_code=0).stdout)
    rows = {p["name"]: p for p in data["plugins"]}
    assert rows["compressor"]["status"] == "active"
    assert rows["builtin"]["status"] == "active"
    assert rows["keeplast"]["status"] == "available"
    assert (rows["keeplast"]["distribution"], rows["keeplast"]["version"]) == ("hermes-context-keeplast", "2.1.0")
    assert rows["broken"]["status"] == "failed" and "libfoo.so" in rows["broken"]["error"]
    assert "prompt" not in rows  # hermes-core's own general plugins only with --all
    table = cli("plugins", check_code=0).stdout
    assert table.splitlines()[0].split() == ["NAME", "KIND", "DISTRIBUTION", "VERSION", "STATUS", "ERROR"]
    assert "failed" in table and "libfoo.so" in table
    assert "prompt" in cli("plugins", "--all", check_code=0).stdout


def test_plugins_follows_config_selection(installed_distribution, write_config):
    installed_distribution(
        "hermes-context-keeplast",
        "2.1.0",
        entry_points={"hermes.context_engines": {"keeplast": "cli_keeplast2:KeepLastEngine"}},
        modules={"cli_keeplast2.py": ENGINE},
    )
    write_config({"context": {"engine": "keeplast"}, "plugins": {"disabled": ["prompt"]}})
    rows = {
        p["name"]: p["status"] for p in json.loads(cli("plugins", "--json", "--all", check_code=0).stdout)["plugins"]
    }
    assert rows == rows | {"keeplast": "active", "compressor": "available", "prompt": "disabled"}


def test_config_check_and_show(write_config):
    assert "valid (not found, defaults apply)" in cli("config", "check", check_code=0).stdout
    write_config({"context": {"threshold_percent": 0.7}, "memroy": {}})
    out = cli("config", "check", check_code=0)
    assert "valid" in out.stdout and "unknown key 'memroy'; did you mean 'memory'?" in out.stderr
    shown = json.loads(cli("config", "show", "--json", check_code=0).stdout)
    assert shown["context"]["threshold_percent"] == 0.7 and shown["memory"]["user_char_limit"] == 1375


def test_config_errors_are_one_clear_line_and_exit_2(write_config):
    path = write_config({"context": {"threshold_percent": "high"}})
    proc = cli("config", "check", check_code=2)
    assert proc.stderr.startswith(f'error: {path}: context.threshold_percent: got "high"')
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    checked = json.loads(cli("config", "check", "--json", check_code=2).stdout)
    assert checked["valid"] is False and "context.threshold_percent" in checked["errors"][0]
    assert "Traceback" in cli("--debug", "config", "show").stderr


def test_usage_errors_exit_2():
    assert cli("no-such-command").returncode == 2
    assert cli().returncode == 2


def test_plugins_listing_agrees_with_the_host_on_bad_signatures(installed_distribution, make_host):
    installed_distribution(
        "hermes-badsig2",
        entry_points={"hermes.plugins": {"badsig2": "cli_badsig"}},
        modules={
            "cli_badsig.py": "from hermes_core import hookimpl\n\n\n@hookimpl\n"
            "def hermes_compaction_finished(report, extra):\n    pass\n"
        },
    )
    rows = {p["name"]: p for p in json.loads(cli("plugins", "--json", check_code=0).stdout)["plugins"]}
    host_infos = {i.name: i for i in make_host(load_entrypoints=True).plugin_infos()}
    assert rows["badsig2"]["status"] == host_infos["badsig2"].status == "failed"
    assert rows["badsig2"]["error"] == host_infos["badsig2"].error


def test_only_config_migrate_saves_migrations(installed_distribution, write_config, hermes_home):
    installed_distribution(
        "hermes-migrator",
        entry_points={"hermes.plugins": {"migrator": "cli_migrator"}},
        modules={
            "cli_migrator.py": (
                "from hermes_core import hookimpl\nfrom hermes_core.records import ConfigMigration\n\n\n"
                "def _apply(raw):\n    raw.setdefault('prompt', {})['platform'] = 'telegram'\n    return True\n\n\n"
                "@hookimpl\ndef hermes_config_migrations():\n"
                "    return [ConfigMigration('test.platform', 'move to telegram', _apply)]\n"
            )
        },
    )
    path = write_config({"model": {"context_length": 64000}})
    path.write_text("# my settings, keep me\n" + path.read_text())
    before = path.read_bytes()
    for argv in (["tools", "list", "--json"], ["config", "check"], ["config", "show"], ["memory", "show"],
                 ["prompt"], ["plugins"], ["config", "migrate", "--dry-run"]):
        proc = cli(*argv, check_code=0)
        assert path.read_bytes() == before, argv  # read-only commands never write
    assert "pending migration(s) test.platform" in proc.stderr or "would apply test.platform" in proc.stdout
    shown = json.loads(cli("config", "show", "--json", check_code=0).stdout)
    assert shown["prompt"]["platform"] == "cli"  # show reads the file as it is
    assert not (hermes_home / "config.yaml.pre-migration").exists()
    migrated = cli("config", "migrate", check_code=0)
    assert "set prompt.platform: 'telegram' (test.platform)" in migrated.stdout
    assert path.read_text().startswith("# my settings, keep me\n")  # comments kept
    assert "platform: \"telegram\"" in path.read_text()
    assert (hermes_home / "config.yaml.pre-migration").read_bytes() == before
    assert "no pending config migrations" in cli("config", "migrate", check_code=0).stdout


CONFIGURED_ENGINE = ENGINE.replace(
    "class KeepLastEngine(ContextEngine):",
    (
        "from pydantic import BaseModel, Field\n\n\nclass Settings(BaseModel):\n"
        "    keep: int = Field(2, ge=1)\n\n\nclass KeepLastEngine(ContextEngine):\n    config_model = Settings\n"
    ),
)


def test_config_check_builds_the_selection_and_validates_plugin_sections(
    installed_distribution, write_config, tmp_path
):
    installed_distribution(
        "hermes-context-keeplast",
        entry_points={"hermes.context_engines": {"keeplast": "cfg_keeplast:KeepLastEngine"}},
        modules={"cfg_keeplast.py": CONFIGURED_ENGINE},
    )
    path = write_config({"context": {"engine": "nope"}})
    proc = cli("config", "check", check_code=2)
    assert "unknown context engine 'nope'" in proc.stderr
    write_config({"context": {"engine": "keeplast"}, "plugins": {"keeplast": {"keep": 0}}})
    proc = cli("config", "check", check_code=2)
    assert proc.stderr.startswith(f"error: {path}: plugins.keeplast.keep: got 0")
    missing = tmp_path / "typo.yaml"
    proc = cli("--config", str(missing), "config", "check", check_code=2)
    assert proc.stderr.strip() == f"error: {missing}: no such config file"


def test_strict_mode_refuses_the_engine_fallback(hermes_home, write_config, monkeypatch):
    broken = hermes_home / "plugins" / "context_engine" / "boom"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise RuntimeError('boom at import')\n")
    write_config({"context": {"engine": "boom"}})
    assert "falling back to the 'compressor' engine" in cli("tools", "list", check_code=0).stderr
    monkeypatch.setenv("HERMES_STRICT_PLUGINS", "1")
    proc = cli("tools", "list", check_code=1)
    assert "boom at import" in proc.stderr and "Traceback" not in proc.stderr


def test_strict_mode_makes_plugins_fail_when_a_plugin_failed(installed_distribution, monkeypatch):
    installed_distribution(
        "hermes-broken3",
        entry_points={"hermes.plugins": {"broken3": "cli_broken3"}},
        modules={"cli_broken3.py": BROKEN_IMPORT},
    )
    cli("plugins", check_code=0)
    monkeypatch.setenv("HERMES_STRICT_PLUGINS", "1")
    assert "failed" in cli("plugins", check_code=1).stdout


def test_a_command_collects_garbage_less_often_and_restores_the_callers_threshold(monkeypatch: Any) -> None:
    import gc

    from hermes_core import cli
    from hermes_core.cli import cmd_plugins

    seen: list[tuple[int, ...]] = []
    saved = gc.get_threshold()
    monkeypatch.setattr(cmd_plugins, "run", lambda args: seen.append(gc.get_threshold()) or 0)
    assert cli.main(["plugins"]) == 0
    assert seen and seen[0][0] >= cli._CLI_GC_THRESHOLD
    assert gc.get_threshold() == saved

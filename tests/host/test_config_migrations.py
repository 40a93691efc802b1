"""Config is the user's: migrations never override explicit values, never run from
read-only commands, keep comments and mode, say what changed and keep the original."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hermes_memory_honcho.migration import MIGRATION_ID

from hermes_core.config.migrations import apply_config_migrations
from hermes_core.config.models import applied_migrations
from hermes_core.config.yaml_edit import add_key
from hermes_core.records import ConfigMigration
from hermes_core.session.session import Session

COMMENTED = """\
# my hermes settings — keep these comments
model:
  name: gpt-4.1   # the main model
  context_length: 64000

plugins:
  honcho:
    base_url: http://127.0.0.1:9   # my server
"""


def cli(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HERMES_HOME": str(home)}
    env.pop("HONCHO_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "hermes_core", *argv], capture_output=True, text=True,
                          timeout=60, env=env)


def test_an_explicit_empty_provider_is_kept_by_every_command(hermes_home: Path) -> None:
    path = hermes_home / "config.yaml"
    text = COMMENTED.replace("model:", 'memory:\n  provider: ""   # no external memory, thanks\nmodel:')
    path.write_text(text)
    os.chmod(path, 0o644)
    for argv in (["memory", "show"], ["config", "check"], ["prompt"], ["doctor"], ["config", "migrate"]):
        cli(hermes_home, *argv)
        assert path.read_text() == text, argv
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
    done = cli(hermes_home, "config", "migrate", "--json")
    assert json.loads(done.stdout)["applied"] == []  # recorded by the first migrate: never offered again
    assert MIGRATION_ID in applied_migrations(hermes_home)


def test_config_migrate_adds_the_missing_key_keeping_comments_mode_and_a_backup(hermes_home: Path) -> None:
    path = hermes_home / "config.yaml"
    path.write_text(COMMENTED)
    os.chmod(path, 0o640)
    assert cli(hermes_home, "memory", "show").returncode in (0, 1)
    assert path.read_text() == COMMENTED  # read-only: nothing written
    done = cli(hermes_home, "config", "migrate")
    assert done.returncode == 0, done.stderr
    assert f"set memory.provider: 'honcho' ({MIGRATION_ID})" in done.stdout
    assert "original kept as" in done.stdout
    new = path.read_text()
    assert new.startswith(COMMENTED)  # every comment and line of the user's file, in order
    assert yaml.safe_load(new)["memory"] == {"provider": "honcho"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert (hermes_home / "config.yaml.pre-migration").read_text() == COMMENTED


def test_first_session_open_saves_and_says_what_changed(hermes_home: Path, caplog: pytest.LogCaptureFixture) -> None:
    calls = []

    class Plugin:
        from hermes_core import hookimpl

        @hookimpl
        def hermes_config_migrations(self):  # type: ignore[no-untyped-def]
            def apply(raw):  # type: ignore[no-untyped-def]
                calls.append(1)
                raw.setdefault("prompt", {})["platform"] = "telegram"
                raw.setdefault("model", {})["context_length"] = 1  # an explicit value: must be kept
                return True

            return [ConfigMigration("test.telegram", "use telegram", apply)]

    path = hermes_home / "config.yaml"
    path.write_text(COMMENTED.split("plugins:")[0])
    with caplog.at_level(logging.WARNING, logger="hermes_core.config"):
        with Session.open(plugins=[Plugin()], load_entrypoints=False) as session:
            assert session.host.config.prompt.platform == "telegram"
            assert session.host.config.model.context_length == 64000
    assert "set prompt.platform: 'telegram' (test.telegram)" in caplog.text
    assert "kept your explicit model.context_length" in caplog.text
    assert path.read_text().startswith(COMMENTED.split("plugins:")[0].rstrip())
    with Session.open(plugins=[Plugin()], load_entrypoints=False):
        pass
    assert len(calls) == 1


def test_a_file_the_editor_does_not_understand_is_rewritten_and_says_so(tmp_path: Path) -> None:
    home = tmp_path
    (home / "config.yaml").write_text("# flow style\nprompt: {platform: cli}\n")
    migration = ConfigMigration("t.x", "x", lambda raw: bool(raw["prompt"].update(identity="Ada") or True))
    raw = yaml.safe_load((home / "config.yaml").read_text())
    report = apply_config_migrations(home, raw, [migration])
    assert report.saved and not report.comments_kept
    assert "without its comments" in " ".join(report.lines())
    assert yaml.safe_load((home / "config.yaml").read_text()) == {"prompt": {"platform": "cli", "identity": "Ada"}}
    assert (home / "config.yaml.pre-migration").read_text().startswith("# flow style")


@pytest.mark.parametrize("path, value", [(("memory", "provider"), "honcho"), (("model", "name"), "x"),
                                         (("plugins", "honcho", "workspace"), "w"), (("new", "a", "b"), [1, 2])])
def test_line_edits_parse_to_the_expected_mapping(path: tuple[str, ...], value: object) -> None:
    base = yaml.safe_load(COMMENTED)
    if path == ("model", "name"):
        base["model"].pop("name")
        text = COMMENTED.replace("  name: gpt-4.1   # the main model\n", "")
    else:
        text = COMMENTED
    edited = add_key(text, path, value)
    assert edited is not None
    node = base
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    assert yaml.safe_load(edited) == base
    assert all(line in edited.splitlines() for line in text.splitlines())


def test_a_migration_that_only_meets_explicit_values_is_not_announced_by_every_command(hermes_home: Path) -> None:
    path = hermes_home / "config.yaml"
    path.write_text(COMMENTED.replace("model:", 'memory:\n  provider: ""\nmodel:'))
    done = cli(hermes_home, "memory", "show")
    assert "pending" not in done.stderr and "migration" not in done.stderr


def test_config_check_lists_every_error(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text(
        "context:\n  engine: nope\n  threshold_percent: high\nmemory:\n  memory_char_limit: -1\n")
    done = cli(hermes_home, "config", "check")
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 3, done.stderr
    assert any("threshold_percent" in e for e in errors) and any("memory_char_limit" in e for e in errors)
    assert any("unknown context engine 'nope'" in e for e in errors)
    assert "3 errors in" in done.stderr
    data = json.loads(cli(hermes_home, "config", "check", "--json").stdout)
    assert data["valid"] is False and len(data["errors"]) == 3

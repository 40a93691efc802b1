"""Config loading: defaults, each error message, unknown keys, plugin sections, migrations."""

from __future__ import annotations

import pytest
import yaml
from hermes_compressor import CompressorEngine
from pydantic import BaseModel, Field

from hermes_core import ConfigError, ContextEngine, hookimpl
from hermes_core.config.models import HermesConfig, load_config
from hermes_core.plugin.host import build_host
from hermes_core.records import ConfigMigration


def test_defaults_follow_the_seed():
    c = HermesConfig()
    assert (c.memory.memory_char_limit, c.memory.user_char_limit) == (2200, 1375)
    assert (c.memory.nudge_interval, c.memory.flush_min_turns, c.memory.provider) == (10, 6, "")
    assert (c.context.engine, c.context.threshold_percent, c.context.protect_first_n) == ("compressor", 0.5, 3)
    assert c.context.summary_target_ratio == 0.2


def test_missing_file_means_defaults(hermes_home):
    loaded = load_config(home=hermes_home)
    assert loaded.config == HermesConfig() and loaded.warnings == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "context:\n  threshold_percent: high\n",
            'context.threshold_percent: got "high"; expected input should be a valid number',
        ),
        (
            "context:\n  threshold_percent: 1.5\n",
            "context.threshold_percent: got 1.5; expected input should be less than or equal to 1",
        ),
        (
            "memory:\n  memory_char_limit: -5\n",
            "memory.memory_char_limit: got -5; expected input should be greater than 0",
        ),
        ("memory: [1, 2]\n", "memory: got [1, 2]; expected a mapping"),
        ("plugins:\n  disabled: lcm\n", 'plugins.disabled: got "lcm"; expected input should be a valid list'),
        ("- just\n- a list\n", "expected a mapping at the top level, got list"),
        ("context:\n  engine: [unclosed\n", "(line 3, column 1): not valid YAML"),
    ],
)
def test_each_config_error_names_file_key_value_and_expectation(hermes_home, text, expected):
    path = hermes_home / "config.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(home=hermes_home)
    assert str(err.value).startswith(str(path))
    assert expected in str(err.value)


def test_non_utf8_config_is_a_clear_error(hermes_home):
    (hermes_home / "config.yaml").write_bytes(b"memory:\n  provider: \xff\xfe\n")
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(home=hermes_home)


def test_unknown_keys_warn_with_did_you_mean(write_config, hermes_home):
    write_config({"memroy": {}, "context": {"threshold_precent": 0.6}, "plugins": {"lcm": {"x": 1}}})
    loaded = load_config(home=hermes_home)
    assert any("unknown key 'memroy'; did you mean 'memory'?" in w for w in loaded.warnings)
    assert any(
        "unknown key 'context.threshold_precent'; did you mean 'context.threshold_percent'?" in w
        for w in loaded.warnings
    )
    assert not any("plugins.lcm" in w for w in loaded.warnings)  # plugin sections are the plugins' business


class Settings(BaseModel):
    db_path: str = "lcm.db"
    fresh_tail: int = Field(8, ge=1)


class ConfiguredEngine(ContextEngine):
    config_model = Settings

    @property
    def name(self):
        return "configured"

    def update_from_response(self, usage):
        pass

    def should_compress(self, prompt_tokens=None):
        return False

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):
        return messages


def test_plugin_sections_are_validated_with_the_same_messages(make_host):
    host = make_host(
        engines={"configured": ConfiguredEngine},
        **{"context.engine": "configured", "plugins.configured": {"fresh_tail": 3}},
    )
    assert host.engine.ctx.settings == Settings(fresh_tail=3)
    with pytest.raises(ConfigError, match=r"plugins\.configured\.fresh_tail: got 0; expected input should be greater"):
        make_host(
            engines={"configured": ConfiguredEngine},
            **{"context.engine": "configured", "plugins.configured": {"fresh_tail": 0}},
        )


ENGINES = {"compressor": CompressorEngine}


class Migrates:
    def __init__(self):
        self.calls = 0

    @hookimpl
    def hermes_config_migrations(self):
        def apply(raw):
            self.calls += 1
            memory = raw.setdefault("memory", {})
            if memory.get("provider"):
                return False
            memory["provider"] = "notes"
            return True

        return [ConfigMigration("test.notes-provider", "select the notes provider once", apply)]


def test_migrations_run_once_and_persist(write_config, hermes_home):
    write_config({"memory": {"memory_char_limit": 999}})
    plugin = Migrates()
    host = build_host(home=hermes_home, load_entrypoints=False, plugins=[plugin], engines=ENGINES)
    raw = yaml.safe_load((hermes_home / "config.yaml").read_text())
    assert raw == {"memory": {"memory_char_limit": 999, "provider": "notes"}}
    assert host.config.memory.provider == "notes"
    # the user changes it back: the migration must not run again
    write_config({"memory": {"memory_char_limit": 999, "provider": ""}})
    build_host(home=hermes_home, load_entrypoints=False, plugins=[plugin], engines=ENGINES)
    assert plugin.calls == 1
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["memory"]["provider"] == ""


def test_a_migration_with_nothing_to_migrate_is_offered_again(write_config, hermes_home):
    write_config({"memory": {"provider": "other"}})
    plugin = Migrates()
    build_host(home=hermes_home, load_entrypoints=False, plugins=[plugin], engines=ENGINES)
    assert plugin.calls == 1 and not (hermes_home / "state" / "migrations.json").exists()
    write_config({"memory": {"memory_char_limit": 999}})  # now there is something to migrate
    host = build_host(home=hermes_home, load_entrypoints=False, plugins=[plugin], engines=ENGINES)
    assert plugin.calls == 2 and host.config.memory.provider == "notes"

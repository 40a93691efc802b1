"""The installed distribution inside a real PluginHost: entry points, config, migration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hermes_memory_honcho import migration
from hermes_memory_honcho.fake_server import FakeHonchoServer

from hermes_core.config.models import applied_migrations
from hermes_core.plugin.host import build_host


def honcho_section(server: FakeHonchoServer, **extra: Any) -> dict[str, Any]:
    return {"base_url": server.url, "session_strategy": "per-session", "timeout": 1.0, "retry_initial": 0.05,
            "retry_max": 0.2, **extra}


def read_config(home: Path) -> dict[str, Any]:
    return yaml.safe_load((home / "config.yaml").read_text())


def test_entry_point_provider_runs_a_session_through_the_host(
    hermes_home: Path, write_config: Any, server: FakeHonchoServer, stored: Any
) -> None:
    write_config({"memory": {"provider": "honcho"}, "plugins": {"honcho": honcho_section(server)}})
    host = build_host(home=hermes_home)
    try:
        provider = host.memory.external
        assert provider is not None and provider.name == "honcho"
        host.memory.initialize_all("host-session")
        assert any("Honcho memory" in block for block in host.memory.system_prompt_blocks())
        for i in range(3):
            host.memory.on_turn_start(i + 1, f"q{i}")
            host.memory.prefetch_all(f"q{i}")
            host.memory.sync_all(f"q{i}", f"a{i}")
            host.memory.queue_prefetch_all(f"q{i}")
        names = [s["name"] for s in host.tool_schemas()]
        assert {"honcho_profile", "honcho_search", "honcho_context", "honcho_conclude"} <= set(names)
        assert json.loads(host.handle_tool_call("honcho_conclude", {"conclusion": "Uses vim"}))["result"] == "saved"
        host.memory.on_session_end("host-session", [])
    finally:
        host.close()
    assert stored(server, "host-session") == ["q0", "a0", "q1", "a1", "q2", "a2"]
    assert [c["content"] for c in server.conclusions] == ["Uses vim"]


def test_invalid_section_is_a_clear_config_error(hermes_home: Path, write_config: Any) -> None:
    from hermes_core.config.models import ConfigError

    write_config({"memory": {"provider": "honcho"},
                  "plugins": {"honcho": {"base_url": "http://x", "session_strategy": "per-galaxy"}}})
    with pytest.raises(ConfigError, match=r"plugins\.honcho\.session_strategy"):
        build_host(home=hermes_home, strict=True)


def test_unconfigured_honcho_is_skipped_with_a_reason(hermes_home: Path, write_config: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HONCHO_API_KEY", raising=False)
    write_config({"memory": {"provider": "honcho"}})
    host = build_host(home=hermes_home)
    try:
        assert host.memory.external is None
        assert any("honcho" in w and "base_url" in w for w in host.warnings)
    finally:
        host.close()


def test_migration_selects_honcho_once(hermes_home: Path, write_config: Any, server: FakeHonchoServer) -> None:
    write_config({"memory": {"memory_enabled": True}, "plugins": {"honcho": honcho_section(server)}})
    host = build_host(home=hermes_home)
    try:
        assert host.memory.external is not None and host.memory.external.name == "honcho"
    finally:
        host.close()
    assert read_config(hermes_home)["memory"] == {"memory_enabled": True, "provider": "honcho"}
    assert migration.MIGRATION_ID in applied_migrations(hermes_home)

    data = read_config(hermes_home)
    data["memory"]["provider"] = ""  # the user turns it off again: the migration must not undo that
    write_config(data)
    build_host(home=hermes_home).close()
    assert read_config(hermes_home)["memory"]["provider"] == ""


@pytest.mark.parametrize(("raw", "env", "changed"), [
    ({"plugins": {"honcho": {"base_url": "http://h"}}}, {}, True),
    ({"plugins": {"honcho": {"api_key_env": "MY_KEY"}}}, {"MY_KEY": "k"}, True),
    ({"plugins": {"honcho": {}}}, {"HONCHO_API_KEY": "k"}, True),
    ({"plugins": {"honcho": {"api_key_env": "MY_KEY"}}}, {}, False),
    ({"plugins": {"honcho": {"base_url": "http://h"}}, "memory": {"provider": "mem0"}}, {}, False),
    ({"memory": {"provider": ""}}, {"HONCHO_API_KEY": "k"}, False),
    ({"plugins": {"honcho": "not a mapping"}}, {}, False),
    ({"plugins": {"honcho": {"base_url": "http://h"}}, "memory": None}, {}, True),
])
def test_migration_rule(raw: dict[str, Any], env: dict[str, str], changed: bool,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HONCHO_API_KEY", "MY_KEY"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    assert migration.enable_honcho(raw) is changed
    if changed:
        assert raw["memory"]["provider"] == "honcho"

"""Tests for the example memory provider, using hermes-core's plugin-author fixtures."""

from __future__ import annotations

import importlib.metadata

import pytest
from hermes_memory_example import ExampleMemory

from hermes_core import ConfigError, PluginContext, Session
from hermes_core.testing.provider_conformance import ConformanceOptions, ProviderConformance


def synced(provider: ExampleMemory) -> list[tuple[str, str]]:
    import sqlite3

    with sqlite3.connect(provider.ctx.home / provider.settings.database) as db:  # read back from the file
        return [tuple(r) for r in db.execute("SELECT user, assistant FROM turns ORDER BY rowid")]


class TestConformance(ProviderConformance):
    @pytest.fixture
    def provider_factory(self, tmp_path):
        return lambda: ExampleMemory(PluginContext.default(home=tmp_path))

    @pytest.fixture
    def conformance_options(self):
        return ConformanceOptions(synced_turns=synced)


def test_a_new_session_recalls_an_earlier_turn(hermes_home):
    options = {"providers": {"example": ExampleMemory}, "load_entrypoints": False,
               "overrides": {"memory.provider": "example"}}
    with Session.open(**options) as session:
        session.start_turn("My favourite editor is Helix")
        session.add_response("Got it.")
    with Session.open(**options) as session:
        request = session.start_turn("Which editor should I configure?")
        assert "Helix" in str(request.messages[-1]["content"])


def test_bad_settings_are_a_clear_config_error(make_host):
    with pytest.raises(ConfigError, match=r"plugins\.example\.recall_limit"):
        make_host(providers={"example": ExampleMemory}, strict=True,
                  **{"memory.provider": "example", "plugins.example": {"recall_limit": 0}})


def test_found_through_its_entry_point(make_host):
    try:
        importlib.metadata.distribution("hermes-memory-example")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("install the template (pip install ./contrib/_template_memory) to test its entry point")
    host = make_host(load_entrypoints=True, **{"memory.provider": "example"})
    assert [p.name for p in host.memory.providers] == ["builtin", "example"]

"""Discovery and selection through real installed distributions."""

from __future__ import annotations

import logging

import pytest

from hermes_core.plugin.discovery import discover
from hermes_core.plugin.host import SelectionError

from .plugin_sources import BROKEN_IMPORT, ENGINE, MARKS_IMPORT, MISSPELLED_HOOK, OBSERVER, PROVIDER, UNAVAILABLE

MESSAGES = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "first"},
    {"role": "assistant", "content": "ok"},
    {"role": "user", "content": "second"},
]


def test_third_party_engine_selected_by_config_and_used(installed_distribution, make_host):
    installed_distribution(
        "hermes-context-keeplast",
        "2.1.0",
        entry_points={"hermes.context_engines": {"keeplast": "keeplast_engine:KeepLastEngine"}},
        modules={"keeplast_engine.py": ENGINE},
    )
    host = make_host(load_entrypoints=True, **{"context.engine": "keeplast"})
    assert host.engine.name == "keeplast"
    out = host.compress(MESSAGES, force=True)
    assert out.messages == [MESSAGES[0], MESSAGES[-1]]
    assert host.engine.compression_count == 1
    info = {(i.kind, i.name): i for i in host.plugin_infos()}[("context_engine", "keeplast")]
    assert (info.status, info.distribution, info.version) == ("active", "hermes-context-keeplast", "2.1.0")


def test_only_selected_plugins_are_imported(installed_distribution, make_host, tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    monkeypatch.setenv("HERMES_TEST_MARKER", str(marker))
    installed_distribution(
        "hermes-context-unused",
        entry_points={"hermes.context_engines": {"unused": "unused_engine:Engine"}},
        modules={"unused_engine.py": MARKS_IMPORT},
    )
    host = make_host(load_entrypoints=True)
    assert host.engine.name == "compressor"
    assert not marker.exists()
    info = {(i.kind, i.name): i for i in host.plugin_infos()}[("context_engine", "unused")]
    assert info.status == "available"


@pytest.mark.parametrize("how", ["config", "env", "distribution"])
def test_blocked_plugins_are_never_imported(installed_distribution, make_host, tmp_path, monkeypatch, how):
    marker = tmp_path / "imported"
    monkeypatch.setenv("HERMES_TEST_MARKER", str(marker))
    installed_distribution(
        "hermes-observer",
        entry_points={"hermes.plugins": {"observer": "marking_plugin"}},
        modules={"marking_plugin.py": MARKS_IMPORT},
    )
    overrides = {}
    if how == "config":
        overrides["plugins.disabled"] = ["observer"]
    elif how == "env":
        monkeypatch.setenv("HERMES_DISABLE_PLUGINS", "other, observer")
    else:
        overrides["plugins.disabled"] = ["hermes-observer"]
    host = make_host(load_entrypoints=True, **overrides)
    assert not marker.exists()
    statuses = {i.name: i.status for i in host.plugin_infos()}
    assert statuses["observer"] == "disabled"
    assert statuses["compressor"] == "active"


def test_general_plugin_is_imported_when_enabled(installed_distribution, make_host, tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    monkeypatch.setenv("HERMES_TEST_MARKER", str(marker))
    installed_distribution(
        "hermes-observer2",
        entry_points={"hermes.plugins": {"observer2": "marking_plugin2"}},
        modules={"marking_plugin2.py": MARKS_IMPORT},
    )
    make_host(load_entrypoints=True)
    assert marker.read_text() == "imported"


def test_broken_plugins_are_failed_and_the_rest_works(installed_distribution, make_host, caplog):
    installed_distribution(
        "hermes-broken",
        "0.3",
        entry_points={
            "hermes.plugins": {"broken": "broken_plugin", "misspelled": "misspelled_plugin"},
            "hermes.context_engines": {"notaclass": "observer_mod:SEEN"},
        },
        modules={
            "broken_plugin.py": BROKEN_IMPORT,
            "misspelled_plugin.py": MISSPELLED_HOOK,
            "observer_mod.py": OBSERVER,
        },
    )
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        host = make_host(load_entrypoints=True)
    infos = {i.name: i for i in host.plugin_infos()}
    assert infos["broken"].status == "failed"
    assert "libfoo.so" in infos["broken"].error
    assert infos["misspelled"].status == "failed"
    assert "hermes_compaction_finishd" in infos["misspelled"].error
    assert infos["compressor"].status == "active"
    assert "plugin 'broken' (hermes-broken 0.3)" in caplog.text
    # the engine named by a bad entry point fails when selected, and the default takes over
    host2 = make_host(load_entrypoints=True, **{"context.engine": "notaclass"})
    assert host2.engine.name == "compressor"
    assert any("not a ContextEngine subclass" in w and "falling back" in w for w in host2.warnings)


def test_strict_mode_makes_load_failures_fatal(installed_distribution, make_host, monkeypatch):
    installed_distribution(
        "hermes-broken2",
        entry_points={"hermes.plugins": {"broken2": "broken_plugin2"}},
        modules={"broken_plugin2.py": BROKEN_IMPORT},
    )
    monkeypatch.setenv("HERMES_STRICT_PLUGINS", "1")
    with pytest.raises(Exception, match=r"broken2.*libfoo\.so"):
        make_host(load_entrypoints=True)


def test_unknown_engine_lists_names_and_distributions(installed_distribution, make_host):
    installed_distribution(
        "hermes-context-keeplast",
        "2.1.0",
        entry_points={"hermes.context_engines": {"keeplast": "keeplast_engine2:KeepLastEngine"}},
        modules={"keeplast_engine2.py": ENGINE},
    )
    with pytest.raises(SelectionError) as err:
        make_host(load_entrypoints=True, **{"context.engine": "lcmm"})
    message = str(err.value)
    assert "unknown context engine 'lcmm'" in message
    assert "compressor (hermes-core" in message and "keeplast (hermes-context-keeplast 2.1.0)" in message


def test_one_external_provider_rule(installed_distribution, make_host, caplog):
    installed_distribution(
        "hermes-memory-two",
        entry_points={
            "hermes.memory_providers": {"alpha": "alpha_mem:NotesProvider", "beta": "beta_mem:NotesProvider"}
        },
        modules={
            "alpha_mem.py": PROVIDER.replace("{name}", "alpha"),
            "beta_mem.py": PROVIDER.replace("{name}", "beta"),
        },
    )
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        host = make_host(load_entrypoints=True, **{"memory.provider": "alpha,beta"})
    assert [p.name for p in host.memory.providers] == ["builtin", "alpha"]
    assert "memory provider 'beta' refused: only one external memory provider may be active" in caplog.text
    assert "and 'alpha' is" in caplog.text
    host.memory.initialize_all("s1")
    assert "alpha recalls: hello" in host.memory.prefetch_all("hello")


def test_unavailable_provider_is_skipped_with_its_reason(installed_distribution, make_host):
    installed_distribution(
        "hermes-memory-offline",
        entry_points={"hermes.memory_providers": {"offline": "offline_mem:Offline"}},
        modules={"offline_mem.py": UNAVAILABLE},
    )
    host = make_host(load_entrypoints=True, **{"memory.provider": "offline"})
    assert [p.name for p in host.memory.providers] == ["builtin"]
    assert any("OFFLINE_API_KEY is not set" in w for w in host.warnings)
    host.memory.initialize_all("s1")  # the skipped provider is never initialized


def test_dropin_engine_directory(hermes_home, make_host):
    directory = hermes_home / "plugins" / "context_engine" / "keeplast"
    directory.mkdir(parents=True)
    (directory / "__init__.py").write_text(ENGINE)
    host = make_host(load_entrypoints=True, **{"context.engine": "keeplast"})
    assert host.engine.name == "keeplast"
    info = {(i.kind, i.name): i for i in host.plugin_infos()}[("context_engine", "keeplast")]
    assert info.source == "drop-in" and info.status == "active"


def test_name_clash_between_sources_is_reported(installed_distribution, hermes_home):
    installed_distribution(
        "hermes-context-keeplast",
        entry_points={"hermes.context_engines": {"keeplast": "keeplast_engine3:KeepLastEngine"}},
        modules={"keeplast_engine3.py": ENGINE},
    )
    directory = hermes_home / "plugins" / "context_engine" / "keeplast"
    directory.mkdir(parents=True)
    (directory / "__init__.py").write_text(ENGINE)
    _cands, warnings = discover(hermes_home)
    assert any("provided by both hermes-context-keeplast" in w for w in warnings)


def test_bad_hook_signatures_and_duplicate_entry_points_fail_alone(installed_distribution, make_host):
    installed_distribution(
        "hermes-badsig",
        entry_points={"hermes.plugins": {"badsig": "badsig_mod", "first": "shared_mod", "second": "shared_mod"}},
        modules={
            "badsig_mod.py": "from hermes_core import hookimpl\n\n\n@hookimpl\n"
            "def hermes_compaction_finished(report, extra):\n    pass\n",
            "shared_mod.py": OBSERVER,
        },
    )
    host = make_host(load_entrypoints=True)
    infos = {i.name: i for i in host.plugin_infos()}
    assert infos["badsig"].status == "failed" and "{'extra'}" in infos["badsig"].error
    assert sorted(infos[n].status for n in ("first", "second")) == ["active", "failed"]
    assert host.pm.get_plugin("plugin:badsig") is None  # not left half-registered
    assert host.compress([{"role": "user", "content": "x"}], force=True)  # the host still works


def test_abstract_engines_are_failed_in_the_listing_too(installed_distribution, hermes_home):
    from hermes_core.plugin.listing import list_plugins

    installed_distribution(
        "hermes-context-half",
        entry_points={"hermes.context_engines": {"half": "half_engine:Half"}},
        modules={
            "half_engine.py": "from hermes_core import ContextEngine\n\n\nclass Half(ContextEngine):\n"
            "    name = 'half'\n"
        },
    )
    infos, _ = list_plugins(hermes_home, {"context": {"engine": "half"}})
    (half,) = [i for i in infos if i.name == "half"]
    assert half.status == "failed" and "compress" in half.error


def test_installed_modules_do_not_leak_between_installs(installed_distribution):
    import importlib

    installed_distribution("hermes-v1", entry_points={}, modules={"leaky_mod.py": "VERSION = 1\n"})
    assert importlib.import_module("leaky_mod").VERSION == 1
    installed_distribution("hermes-v2", entry_points={}, modules={"leaky_mod.py": "VERSION = 2\n"})
    assert importlib.import_module("leaky_mod").VERSION == 2

"""The plugin contract with real installed general plugins: pluggy's order and wrappers on
host, memory and engine hooks; general plugins observe lifecycle hooks and never become memory."""

from __future__ import annotations

import importlib
import json
import logging
from typing import Any

import pytest

from hermes_core.plugin.listing import list_plugins
from hermes_core.session.session import Session

from .contract_sources import CALLS, HOOKS, SNEAKY, SNEAKY_WRAPPER, ordered_plugin, wrapping_plugin
from .plugin_sources import PROVIDER

PLUGINS = "hermes.plugins"


def install_ordered(installed_distribution: Any, *, wrappers: bool = True) -> None:
    installed_distribution("hermes-order-calls", modules={"hermes_calls.py": CALLS})
    for label, opts in (("first", "tryfirst=True"), ("plain", ""), ("last", "trylast=True")):
        installed_distribution(
            f"hermes-order-{label}",
            entry_points={PLUGINS: {f"order-{label}": f"order_{label}"}},
            modules={f"order_{label}.py": ordered_plugin(label, opts)},
        )
    if wrappers:
        for style in ("new", "old"):
            installed_distribution(
                f"hermes-wrap-{style}",
                entry_points={PLUGINS: {f"wrap-{style}": f"wrap_{style}"}},
                modules={f"wrap_{style}.py": wrapping_plugin(style)},
            )


def calls_of(hook: str) -> list[str]:
    return [label for name, label in importlib.import_module("hermes_calls").CALLS if name == hook]


@pytest.mark.parametrize("group", sorted(HOOKS))
def test_tryfirst_first_trylast_last_and_wrappers_around_the_call(installed_distribution, make_host, group):
    install_ordered(installed_distribution)
    host = make_host(load_entrypoints=True)
    session = Session(host, close_host=False)
    session.start_turn("hello")  # prompt sections (at start), on_turn_start
    session.add_response("hi", {"prompt_tokens": 5})  # update_from_response
    order = calls_of(HOOKS[group][0])
    inner = [label for label in order if label in ("first", "plain", "last")]
    assert inner[:3] == ["first", "plain", "last"], order
    first_call = order[: order.index("last") + 3]
    # both wrappers run around every plain implementation (they wrap each other in LIFO order)
    assert set(first_call[:2]) == {"new-before", "old-before"}, order
    assert set(first_call[-2:]) == {"new-after", "old-after"}, order
    session.close()


def test_the_engine_and_provider_bridges_answer_inside_the_wrappers(installed_distribution, make_host):
    install_ordered(installed_distribution, wrappers=False)
    installed_distribution(
        "hermes-wrap-new",
        entry_points={PLUGINS: {"wrap-new": "wrap_new"}},
        modules={"wrap_new.py": wrapping_plugin("new")},
    )
    host = make_host(load_entrypoints=True)
    impls = [i.plugin_name for i in host.pm.hook.hermes_memory_on_turn_start.get_hookimpls()]
    # pluggy's list is in reverse call order: trylast first, wrappers at the end
    assert impls[0] == "plugin:order-last" and impls[-1] == "plugin:wrap-new"
    assert impls.index("memory:builtin") > impls.index("plugin:order-plain")  # registered later: called earlier
    engine_impls = [i.plugin_name for i in host.pm.hook.hermes_engine_should_compress.get_hookimpls()]
    assert engine_impls == ["engine:compressor"]  # observers only implement what they ask for


def test_on_a_firstresult_hook_the_engine_answer_stops_the_call(installed_distribution, make_host):
    """pluggy's firstresult: a tryfirst observer runs before the engine; the engine's answer ends the call."""
    install_ordered(installed_distribution)
    host = make_host(load_entrypoints=True)
    assert host.should_compress_preflight([{"role": "user", "content": "x"}]) is False
    impls = [i.plugin_name for i in host.pm.hook.hermes_engine_update_from_response.get_hookimpls()]
    assert impls.index("engine:compressor") > impls.index("plugin:order-plain")


def test_a_general_plugin_cannot_become_memory(installed_distribution, make_host, write_config, caplog):
    installed_distribution(
        "hermes-memory-notes",
        entry_points={"hermes.memory_providers": {"notes": "notes_mem:NotesProvider"}},
        modules={"notes_mem.py": PROVIDER.replace("{name}", "notes")},
    )
    installed_distribution("hermes-sneaky", entry_points={PLUGINS: {"sneaky": "sneaky"}}, modules={"sneaky.py": SNEAKY})
    installed_distribution(
        "hermes-sneaky-wrapper",
        entry_points={PLUGINS: {"sneaky-wrapper": "sneaky_wrapper"}},
        modules={"sneaky_wrapper.py": SNEAKY_WRAPPER},
    )
    write_config({"memory": {"provider": "notes,sneaky"}})
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        host = make_host(load_entrypoints=True)
    assert [p.name for p in host.memory.providers] == ["builtin", "notes"]
    assert "memory provider 'sneaky' refused: only one external memory provider may be active" in caplog.text
    session = Session(host, close_host=False)
    request = session.start_turn("where is the config?")
    sent = json.dumps(request.messages)
    assert "notes recalls: where is the config?" in sent  # the one external provider works
    assert "SNEAKY" not in sent and "SNEAKY" not in session.system_prompt
    assert "sneaky_tool" not in json.dumps(request.tools)
    assert "sneaky" not in session.call_tool("sneaky_tool", {}).replace("'sneaky_tool'", "")
    assert host.should_compress(1) is False  # an observer's answer is no engine decision
    assert "may not replace the result" in caplog.text
    session.close()


def test_plugins_listing_marks_the_second_external_provider_refused(installed_distribution, hermes_home):
    installed_distribution(
        "hermes-memory-two",
        entry_points={
            "hermes.memory_providers": {"alpha": "alpha_mem2:NotesProvider", "beta": "beta_mem2:NotesProvider"}
        },
        modules={
            "alpha_mem2.py": PROVIDER.replace("{name}", "alpha"),
            "beta_mem2.py": PROVIDER.replace("{name}", "beta"),
        },
    )
    infos, _warnings = list_plugins(hermes_home, {"memory": {"provider": "alpha, beta"}})
    status = {i.name: (i.status, i.error) for i in infos if i.kind == "memory_provider"}
    assert status["alpha"] == ("active", "")
    assert status["beta"][0] == "available" and status["beta"][1].startswith("refused:")
    assert "'alpha' is" in status["beta"][1]


def test_registering_the_same_plugin_twice_is_an_error_naming_both(installed_distribution, make_host, caplog):
    installed_distribution("hermes-twice-a", entry_points={PLUGINS: {"twice-a": "twice_mod"}},
                           modules={"twice_mod.py": "from hermes_core import hookimpl\n"})
    installed_distribution("hermes-twice-b", "2.0", entry_points={PLUGINS: {"twice-b": "twice_mod"}})
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        host = make_host(load_entrypoints=True)
    failed = [i for i in host.plugin_infos() if i.status == "failed"]
    assert len(failed) == 1, host.plugin_infos()
    message = " ".join(host.warnings)
    assert "twice-a" in message and "hermes-twice-a 1.0" in message
    assert "twice-b" in message and "hermes-twice-b 2.0" in message
    assert "already registered" in message


def test_make_host_has_the_built_in_prompt_sections(make_host):
    host = make_host()
    assert "plugin:prompt" in dict(host.pm.list_name_plugin())
    session = Session(host, close_host=False)
    assert session.system_prompt.strip()  # identity, guidance, memory snapshot: not empty
    session.close()


def test_the_public_api_names_the_contract_types():
    import hermes_core

    for name in ("CompactionResult", "TurnReport", "ContextEngine", "MemoryProvider", "PluginContext", "hookimpl"):
        assert name in hermes_core.__all__ and getattr(hermes_core, name) is not None

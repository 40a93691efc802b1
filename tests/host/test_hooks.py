"""Hookspecs, adapters, isolation and tracing."""

from __future__ import annotations

import inspect
import logging

import pytest

from hermes_core import ContextEngine, MemoryProvider, hookimpl, hookspecs
from hermes_core.plugin.bridge import EngineBridge as EngineHooks
from hermes_core.plugin.bridge import ProviderBridge as ProviderHooks
from hermes_core.records import PromptContext, PromptSection

SPEC_NAMES = sorted(n for n in vars(hookspecs) if n.startswith("hermes_"))


@pytest.mark.parametrize("name", SPEC_NAMES)
def test_every_hook_is_documented(name):
    doc = inspect.getdoc(getattr(hookspecs, name)) or ""
    assert len(doc) > 30, f"{name} needs a docstring saying when it fires and what it returns"


@pytest.mark.parametrize(
    ("prefix", "base", "adapter"),
    [("hermes_engine_", ContextEngine, EngineHooks), ("hermes_memory_", MemoryProvider, ProviderHooks)],
)
def test_lifecycle_hooks_mirror_the_base_classes(prefix, base, adapter):
    hooks = {n[len(prefix) :] for n in SPEC_NAMES if n.startswith(prefix)}
    helpers = {"name", "config_model", "threshold_percent", "result"}  # attributes and the result() helper
    members = {n for n in dir(base) if not n.startswith("_")} - helpers
    assert hooks == members
    assert {n for n in dir(adapter) if n.startswith(prefix)} == {prefix + h for h in hooks}
    for hook in hooks:
        spec_params = list(inspect.signature(getattr(hookspecs, prefix + hook)).parameters)
        method_params = [p for p in inspect.signature(getattr(base, hook)).parameters if p != "self"]
        assert method_params[: len(spec_params)] == spec_params, hook


class Exploding:
    @hookimpl
    def hermes_compaction_finished(self, report):
        raise RuntimeError("observer bug")

    @hookimpl
    def hermes_system_prompt_sections(self, ctx):
        raise ValueError("section bug")

    @hookimpl
    def hermes_memory_prefetch(self, query):
        raise RuntimeError("prefetch bug")


class Recording:
    def __init__(self):
        self.reports = []

    @hookimpl
    def hermes_compaction_finished(self, report):
        self.reports.append(report)

    @hookimpl
    def hermes_system_prompt_sections(self, ctx):
        return [PromptSection("extra", "Extra guidance.", order=650, source="test")]

    @hookimpl
    def hermes_memory_prefetch(self, query):
        return f"recalled {query}"


class HalvingEngine(ContextEngine):
    @property
    def name(self):
        return "halving"

    def update_from_response(self, usage):
        self.last_prompt_tokens = usage.get("prompt_tokens", 0)

    def should_compress(self, prompt_tokens=None):
        raise RuntimeError("engine bug")

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):
        self.last_summary_source = "deterministic"
        return messages[len(messages) // 2 :]


def test_a_raising_plugin_never_stops_the_others(make_host, caplog):
    recording = Recording()
    host = make_host(
        plugins=[Exploding(), recording], engines={"halving": HalvingEngine}, **{"context.engine": "halving"}
    )
    messages = [{"role": "user", "content": str(i)} for i in range(6)]
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        out = host.compress(messages, force=True, session_id="s")
        sections = host.prompt_sections(PromptContext(home=host.home, cwd=host.home))
        recalled = host.memory.prefetch_all("q")
        assert host.should_compress(10) is False  # the engine raised: treated as "no"
    assert len(out.messages) == 3
    (report,) = recording.reports
    assert (report.messages_before, report.messages_after, report.summary_source) == (6, 3, "deterministic")
    assert report.tokens_after < report.tokens_before
    assert any(s.name == "extra" for s in sections)
    assert "recalled q" not in recalled  # a general plugin observes memory hooks; it contributes no recall
    for text in ("observer bug", "section bug", "prefetch bug", "engine bug"):
        assert text in caplog.text


def test_engine_failure_in_compress_returns_messages_unchanged(make_host):
    class Broken(HalvingEngine):
        def compress(self, messages, current_tokens=None, focus_topic=None, force=False):
            raise MemoryError("boom")

    host = make_host(engines={"broken": Broken}, **{"context.engine": "broken"})
    messages = [{"role": "user", "content": "x"}]
    result = host.compress(messages, force=True)
    assert result.messages is messages and not result.changed and "the engine failed" in result.note


@pytest.mark.parametrize(
    ("returns", "why"),
    [
        (lambda m: "garbage", "returned a str, expected list or CompactionResult"),
        (lambda m: [1, 2], "returned a list instead of a list of messages"),
        (lambda m: [], "returned an empty list"),
        (lambda m: m[:1], "returned a list without the current user message's content"),
        (lambda m: m.clear(), None),  # mutates its argument and returns None
    ],
)
def test_unusable_engine_results_never_replace_the_conversation(make_host, caplog, returns, why):
    class Careless(HalvingEngine):
        def compress(self, messages, current_tokens=None, focus_topic=None, force=False):
            return returns(messages)

    host = make_host(engines={"careless": Careless}, **{"context.engine": "careless"})
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "again"},
    ]
    snapshot = [dict(m) for m in messages]
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        out = host.compress(messages, force=True)
    assert out.messages is messages and not out.changed and messages == snapshot
    if why:
        assert why in caplog.text and "careless" in caplog.text


def test_tracing_logs_every_hook_call(make_host, monkeypatch, caplog):
    monkeypatch.setenv("HERMES_TRACE_PLUGINS", "1")
    host = make_host(plugins=[Recording()])
    with caplog.at_level(logging.INFO, logger="hermes_core.trace"):
        host.should_compress(5)
        host.memory.prefetch_all("hello")
    trace = caplog.text
    assert "hermes_engine_should_compress" in trace and "prompt_tokens" in trace and " ms]" in trace
    assert "hermes_memory_prefetch" in trace and "'query': 'hello'" in trace


def test_in_process_registration_hook(make_host):
    class Registers:
        @hookimpl
        def hermes_register_context_engines(self):
            return [("halving", HalvingEngine)]

    host = make_host(plugins=[Registers()], **{"context.engine": "halving"})
    assert host.engine.name == "halving"


def test_a_subclass_without_decorators_is_a_complete_plugin(make_host):
    host = make_host(engines={"halving": HalvingEngine}, **{"context.engine": "halving", "model.context_length": 1000})
    assert host.engine.threshold_tokens == 500
    host.update_model("other", 2000)
    assert host.engine_status()["threshold_tokens"] == 1000
    host.update_from_response({"prompt_tokens": 7})
    assert host.engine.last_prompt_tokens == 7
    messages = [{"role": "user", "content": "x" * 3200}]  # 810 estimated tokens, threshold 1000
    assert host.should_compress_preflight(messages) is False
    host.set_request_overhead(200)  # tool schemas travel with every request
    assert host.should_compress_preflight(messages) is True


def test_the_base_class_follows_context_threshold_percent(make_host):
    host = make_host(
        engines={"halving": HalvingEngine},
        **{"context.engine": "halving", "context.threshold_percent": 0.8, "model.context_length": 10000},
    )
    assert host.engine.threshold_tokens == 8000


def test_an_engine_that_edits_its_input_cannot_touch_the_callers_messages(make_host):
    class Editor(HalvingEngine):
        def compress(self, messages, current_tokens=None, focus_topic=None, force=False):
            messages[-1]["content"] = "MUTATED"
            return messages[len(messages) // 2 :]

    host = make_host(engines={"editor": Editor}, **{"context.engine": "editor"})
    messages = [{"role": "user", "content": str(i)} for i in range(4)]
    host.compress(messages, force=True)
    assert [m["content"] for m in messages] == ["0", "1", "2", "3"]


def test_make_host_reads_what_write_config_wrote(write_config, make_host):
    write_config({"model": {"context_length": 12_000}})
    assert make_host().config.model.context_length == 12_000

"""The provider conformance kit: it passes good providers and names what breaks in bad ones."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from hermes_core import MemoryProvider
from hermes_core.plugin.context import PluginContext
from hermes_core.testing.provider_conformance import (
    CHECKS,
    ConformanceFailure,
    ConformanceOptions,
    ProviderConformance,
    assert_conformance,
    run_checks,
)


class GoodProvider(MemoryProvider):
    """Records turns in memory; one JSON tool."""

    def __init__(self, ctx: PluginContext | None = None) -> None:
        super().__init__(ctx)
        self.turns: list[tuple[str, str]] = []

    @property
    def name(self) -> str:
        return "good"

    def is_available(self) -> tuple[bool, str]:
        return True, ""

    def initialize(self, session_id: str) -> None:
        self.session_id = session_id

    def sync_turn(self, user_content: str, assistant_content: str) -> None:
        self.turns.append((user_content, assistant_content))

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [{"name": "good_echo", "description": "Echo text.",
                 "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        if name != "good_echo":
            return None
        text = args.get("text")
        if not isinstance(text, str):
            return json.dumps({"error": "text must be a string"})
        return json.dumps({"result": text})


class BadProvider(GoodProvider):
    """Breaks several rules at once."""

    def prefetch(self, query: str) -> str:
        if query == "prefetch query 1":
            time.sleep(0.3)
        return None  # type: ignore[return-value]

    def on_memory_write(self, action: str, target: str, content: str) -> None:
        raise RuntimeError("boom")

    def sync_turn(self, user_content: str, assistant_content: str) -> None:
        self.turns.insert(0, (user_content, assistant_content))

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [{"name": "bad tool!", "description": "", "parameters": {"type": "object", "required": ["x"]}},
                {"name": "memory", "description": "mine now", "parameters": {"type": "object", "properties": {}}}]

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        return "plain text"

    def shutdown(self) -> None:
        if getattr(self, "closed", False):
            raise RuntimeError("already closed")
        self.closed = True


def opts() -> ConformanceOptions:
    return ConformanceOptions(prefetch_budget_s=0.2, turns=4, synced_turns=lambda p: p.turns)  # type: ignore[attr-defined]


def test_good_provider_passes_every_check(tmp_path: Path) -> None:
    assert_conformance(lambda: GoodProvider(PluginContext.default(home=tmp_path)), opts())


def test_bad_provider_fails_with_named_problems(tmp_path: Path) -> None:
    results = {r.name: r for r in run_checks(lambda: BadProvider(PluginContext.default(home=tmp_path)), opts())}
    assert results["identity"].ok
    assert "on_memory_write" in results["hooks_never_raise"].detail and "RuntimeError: boom" in results[
        "hooks_never_raise"].detail
    assert "returned NoneType, expected str" in results["hooks_never_raise"].detail
    assert "budget" in results["prefetch_bounded"].detail
    assert "out of order" in results["sync_ordered"].detail
    assert "name must match" in results["tool_schemas"].detail
    assert "description" in results["tool_schemas"].detail
    assert "'memory' shadows a core tool" in results["tool_schemas"].detail
    assert "not a JSON string" in results["tool_calls_return_json"].detail
    assert "already closed" in results["shutdown_idempotent"].detail
    with pytest.raises(ConformanceFailure, match=r"\[sync_ordered\]"):
        assert_conformance(lambda: BadProvider(PluginContext.default(home=tmp_path)), opts())


class DoublingProvider(GoodProvider):
    """Persists one turn twice, as a retry without an idempotency check would."""

    def sync_turn(self, user_content: str, assistant_content: str) -> None:
        super().sync_turn(user_content, assistant_content)
        if user_content == "user turn 002":
            super().sync_turn(user_content, assistant_content)


def test_a_turn_persisted_twice_is_reported(tmp_path: Path) -> None:
    results = run_checks(lambda: DoublingProvider(PluginContext.default(home=tmp_path)), opts(),
                         only=["sync_ordered"])
    assert [r.ok for r in results] == [False]
    assert "0 missing, 1 duplicated (('user turn 002', 'assistant turn 002'))" in results[0].detail


def test_builtin_provider_conforms(tmp_path: Path) -> None:
    from hermes_memory_builtin import BuiltinMemoryProvider

    assert_conformance(lambda: BuiltinMemoryProvider(PluginContext.default(home=tmp_path)))


def test_a_crashing_factory_is_reported() -> None:
    def factory() -> MemoryProvider:
        raise ValueError("cannot build")

    results = run_checks(factory, only=["identity"])
    assert [r.ok for r in results] == [False] and "cannot build" in results[0].detail


class TestGoodProviderThroughTheMixin(ProviderConformance):
    @pytest.fixture
    def provider_factory(self, tmp_path: Path) -> Any:
        return lambda: GoodProvider(PluginContext.default(home=tmp_path))

    @pytest.fixture
    def conformance_options(self) -> ConformanceOptions:
        return opts()


def test_every_check_is_registered() -> None:
    assert set(CHECKS) >= {"hooks_never_raise", "prefetch_bounded", "sync_ordered", "tool_schemas",
                           "tool_calls_return_json", "shutdown_idempotent"}

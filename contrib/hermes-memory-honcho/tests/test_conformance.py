"""hermes_core.testing.provider_conformance against the Honcho provider: up, down and hanging."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hermes_memory_honcho import HonchoMemoryProvider, HonchoSettings
from hermes_memory_honcho.fake_server import FakeHonchoServer, Fault

from hermes_core.plugin_context import PluginContext
from hermes_core.testing.provider_conformance import ConformanceOptions, ProviderConformance

FAST = {"session_strategy": "per-session", "timeout": 0.5, "retry_initial": 0.05, "retry_max": 0.2,
        "flush_wait": 3.0, "first_turn_wait": 0.3}


def factory(home: Path, url: str) -> Callable[[], HonchoMemoryProvider]:
    settings = HonchoSettings(base_url=url, **FAST)
    return lambda: HonchoMemoryProvider(PluginContext.default(home=home, settings=settings))


class TestHonchoUp(ProviderConformance):
    @pytest.fixture
    def provider_factory(self, tmp_path: Path, server: FakeHonchoServer) -> Any:
        return factory(tmp_path, server.url)

    @pytest.fixture
    def conformance_options(self, server: FakeHonchoServer) -> ConformanceOptions:
        def synced(provider: Any) -> list[tuple[str, str]]:
            rows = server.messages("conformance-session")
            by_turn: dict[str, dict[str, str]] = {}
            for row in rows:
                by_turn.setdefault(row["metadata"]["hermes_turn"], {})[row["peer_id"]] = row["content"]
            return [(t.get("user", ""), t.get("hermes", "")) for t in by_turn.values()]

        return ConformanceOptions(synced_turns=synced)


class TestHonchoDown(ProviderConformance):
    """Nothing listens on the port: every hook still answers, quickly."""

    @pytest.fixture
    def provider_factory(self, tmp_path: Path, server: FakeHonchoServer) -> Any:
        server.stop()
        return factory(tmp_path, server.url)


class TestHonchoHanging(ProviderConformance):
    """The server accepts connections and never answers in time."""

    @pytest.fixture
    def provider_factory(self, tmp_path: Path, server: FakeHonchoServer) -> Any:
        server.faults.append(Fault(delay=1.0))
        return factory(tmp_path, server.url)

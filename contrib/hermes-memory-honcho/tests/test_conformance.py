"""hermes_core.testing.provider_conformance against the Honcho provider: up, down and hanging;
and proof that its ordering check sees a turn Honcho stored twice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hermes_memory_honcho import HonchoMemoryProvider, HonchoSettings
from hermes_memory_honcho.fake_server import FakeHonchoServer, Fault

from hermes_core.plugin.context import PluginContext
from hermes_core.testing.provider_conformance import ConformanceOptions, ProviderConformance, run_checks

FAST = {"session_strategy": "per-session", "timeout": 0.5, "retry_initial": 0.05, "retry_max": 0.2,
        "flush_wait": 3.0, "first_turn_wait": 0.3}


def factory(home: Path, url: str) -> Callable[[], HonchoMemoryProvider]:
    settings = HonchoSettings(base_url=url, **FAST)
    return lambda: HonchoMemoryProvider(PluginContext.default(home=home, settings=settings))


def stored_turns(server: FakeHonchoServer, session: str = "conformance-session") -> list[tuple[str, str]]:
    """``(user, assistant)`` per stored copy of a turn, in server order; nothing de-duplicated.

    A new copy starts where the turn key changes or the chunk index does not grow, so a
    turn delivered twice comes back twice.
    """
    turns: list[dict[str, str]] = []
    last: tuple[str, int] | None = None
    for row in server.messages(session):
        key, part = row["metadata"]["hermes_turn"], row["metadata"]["hermes_part"]
        if last is None or key != last[0] or part <= last[1]:
            turns.append({})
        turns[-1][row["peer_id"]] = turns[-1].get(row["peer_id"], "") + row["content"]
        last = (key, part)
    return [(t.get("user", ""), t.get("hermes", "")) for t in turns]


class TestHonchoUp(ProviderConformance):
    @pytest.fixture
    def provider_factory(self, tmp_path: Path, server: FakeHonchoServer) -> Any:
        return factory(tmp_path, server.url)

    @pytest.fixture
    def conformance_options(self, server: FakeHonchoServer) -> ConformanceOptions:
        return ConformanceOptions(synced_turns=lambda provider: stored_turns(server))


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


def test_the_ordering_check_reports_a_turn_stored_twice(tmp_path: Path, server: FakeHonchoServer) -> None:
    def deliver_one_turn_again(provider: Any) -> list[tuple[str, str]]:
        rows = server.messages("conformance-session")
        again = [{"content": r["content"], "peer_id": r["peer_id"], "metadata": r["metadata"]}
                 for r in rows if r["metadata"]["hermes_turn"] == rows[10]["metadata"]["hermes_turn"]]
        status, _ = server.handle("POST", "/v3/workspaces/hermes/sessions/conformance-session/messages", {},
                                  {"messages": again})
        assert status == 200
        return stored_turns(server)

    [result] = run_checks(factory(tmp_path, server.url), ConformanceOptions(synced_turns=deliver_one_turn_again),
                          only=["sync_ordered"])
    assert not result.ok and "0 missing, 1 duplicated (('user turn 005', 'assistant turn 005'))" in result.detail

"""Fixtures: a fake Honcho server on 127.0.0.1 and providers wired to it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hermes_memory_honcho import HonchoMemoryProvider, HonchoSettings
from hermes_memory_honcho.fake_server import FakeHonchoServer

from hermes_core.plugin.context import PluginContext


@pytest.fixture
def server() -> Iterator[FakeHonchoServer]:
    fake = FakeHonchoServer().start()
    yield fake
    fake.stop()


@pytest.fixture
def make_provider(tmp_path: Path, server: FakeHonchoServer) -> Iterator[Callable[..., HonchoMemoryProvider]]:
    """``make_provider(home=None, **settings)``: a provider pointed at the fake server.

    Fast retries and short timeouts keep outage tests quick. Providers are shut down at
    teardown (shutdown is idempotent, so tests may shut down themselves).
    """
    made: list[HonchoMemoryProvider] = []

    def make(home: Path | None = None, **overrides: Any) -> HonchoMemoryProvider:
        settings: dict[str, Any] = {"base_url": server.url, "session_strategy": "per-session", "timeout": 1.0,
                                    "retry_initial": 0.05, "retry_max": 0.2, "flush_wait": 5.0,
                                    "first_turn_wait": 1.0}
        settings.update(overrides)
        ctx = PluginContext.default(home=home or tmp_path / "home", settings=HonchoSettings(**settings))
        provider = HonchoMemoryProvider(ctx)
        made.append(provider)
        return provider

    yield make
    for provider in made:
        provider.shutdown()


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


@pytest.fixture
def eventually() -> Callable[..., bool]:
    return wait_for


def contents(server: FakeHonchoServer, session: str | None = None) -> list[str]:
    return [m["content"] for m in server.messages(session)]


@pytest.fixture
def stored() -> Callable[..., list[str]]:
    """``stored(server, session=None)``: message contents the server holds, in order."""
    return contents

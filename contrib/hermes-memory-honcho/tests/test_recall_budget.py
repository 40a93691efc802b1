"""Recall within our own budget: a long summary is clipped, not dropped; a slow or failing
dialectic answer never costs the context fetched beside it."""

from __future__ import annotations

from typing import Any

import pytest
from hermes_memory_honcho.fake_server import FakeHonchoServer, Fault


def test_a_long_summary_is_clipped_to_our_budget_not_dropped(make_provider: Any, server: FakeHonchoServer) -> None:
    """The server keeps a summary in /context only if it fits 40 % of ``tokens``; a
    3,000-char summary (~750 tokens) would vanish at the default budget."""
    server.summaries["long"] = "We agreed to move billing to Postgres. " * 80
    server.representations["user"] = "Ana, a backend engineer."
    provider = make_provider(first_turn_wait=5.0)  # context_chars 4000
    provider.initialize("long")
    text = provider.prefetch("where were we?")
    assert "## Session summary\nWe agreed to move billing to Postgres." in text
    assert "Ana, a backend engineer." in text and len(text) <= 4000
    assert not any(path.endswith("/context") and "sessions" in path for _, path in server.requests), \
        "recall fetched session messages it throws away"


@pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)
def test_recall_without_a_summary_is_empty_and_ok(make_provider: Any, backend: Any, eventually: Any) -> None:
    """No summary exists until the deriver made one; recall says nothing rather than inventing."""
    provider = make_provider()
    provider.initialize("fresh")
    provider.sync_turn("hello", "hi")
    provider.on_session_end("fresh", [])
    assert provider.prefetch("hello") == ""
    assert eventually(lambda: provider.get_status()["state"] == "ok")


def test_a_slow_dialectic_keeps_the_context_and_the_health(make_provider: Any, server: FakeHonchoServer,
                                                           eventually: Any) -> None:
    server.summaries["slow"] = "Decided to ship on Monday."
    server.faults.append(Fault(delay=1.5, path="/chat"))  # slower than ``timeout``, within dialectic_timeout
    provider = make_provider(dialectic=True, timeout=0.5, first_turn_wait=3.0)  # dialectic_timeout: 30 s
    provider.initialize("slow")
    first = provider.prefetch("when do we ship?")
    assert "ship on Monday" in first and "Honcho's answer" not in first  # the context does not wait for it
    assert eventually(lambda: server.chat_answer in provider.prefetch("when do we ship?"), 15)
    assert "ship on Monday" in provider.prefetch("x")
    status = provider.get_status()
    assert status["state"] == "ok" and status["dialectic_error"] == ""


def test_a_failing_dialectic_is_reported_not_held_against_honcho(make_provider: Any, server: FakeHonchoServer,
                                                                 eventually: Any) -> None:
    server.summaries["fails"] = "Decided to ship on Monday."
    server.faults.append(Fault(status=500, path="/chat"))  # as the real server without an LLM
    provider = make_provider(dialectic=True)
    provider.initialize("fails")
    assert eventually(lambda: "ship on Monday" in provider.prefetch("when do we ship?"))
    server.summaries["fails"] = "Now we ship on Tuesday."
    provider.queue_prefetch("and then?")
    assert eventually(lambda: "Tuesday" in provider.prefetch("and then?"), 15)  # fetched beside the failing chat
    assert eventually(lambda: "HTTP 500" in provider.get_status().get("dialectic_error", ""), 15)
    assert provider.get_status()["state"] == "ok"


@pytest.mark.parametrize("backend", ["real"], indirect=True)
def test_real_dialectic_takes_seconds_and_costs_nothing(make_provider: Any, backend: Any, eventually: Any) -> None:
    """Without an LLM the real server answers chat with a 500 after ~8 s: long past ``timeout``.
    The context (fetched beside it) is served meanwhile and the provider stays ok."""
    provider = make_provider(dialectic=True, timeout=1.0, first_turn_wait=5.0)
    provider.initialize("dialectic")
    provider.sync_turn("We ship on Monday.", "Noted.")
    provider.on_session_end("dialectic", [])
    provider.queue_prefetch("when do we ship?")  # context and dialectic, each on its own thread
    assert eventually(lambda: provider.link.stalled_for() > 2.0, 10)  # the chat is still waiting, past timeout
    status = provider.get_status()
    assert status["state"] == "ok" and provider.recall.fetched_at is not None
    assert provider.prefetch("again") == "" and provider.get_status()["state"] == "ok"  # no summary yet: empty

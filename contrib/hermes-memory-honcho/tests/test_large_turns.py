"""A turn longer than one request: its chunks go out in several add_messages calls, exactly once."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hermes_memory_honcho.fake_server import FakeHonchoServer, Fault
from hermes_memory_honcho.mapping import CONTINUED

LIMIT = 100  # the server's messages per add_messages call


def long_text(chars: int) -> str:
    words, size = [], 0
    while size < chars:
        words.append(f"word{len(words)}")
        size += len(words[-1]) + 1
    return " ".join(words)


def user_rows(server: Any, session: str) -> list[dict[str, Any]]:
    return [m for m in server.messages(session) if m["peer_id"] == "user"]


def reassembled(rows: list[dict[str, Any]]) -> str:
    return rows[0]["content"] + "".join(m["content"].removeprefix(CONTINUED) for m in rows[1:])


def message_posts(server: FakeHonchoServer, session: str) -> int:
    return server.requests.count(("POST", f"/v3/workspaces/hermes/sessions/{session}/messages"))


@pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)
def test_a_turn_of_more_than_100_chunks_is_delivered_whole(
    make_provider: Any, backend: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="hermes_memory_honcho")
    provider = make_provider(message_max_chars=100)
    provider.initialize("big")
    text = long_text(13_000)
    provider.sync_turn(text, "done")
    provider.on_session_end("big", [])
    rows = user_rows(backend, "big")
    assert len(rows) > LIMIT and reassembled(rows) == text
    parts = [m["metadata"]["hermes_part"] for m in backend.messages("big")]
    assert parts == list(range(len(rows) + 1))  # every chunk once, in order, then the answer
    if backend.kind == "fake":
        assert message_posts(backend.fake, "big") == -(-len(parts) // LIMIT)
    status = provider.get_status()
    assert status["outbox"] == {**status["outbox"], "pending": 0, "rejected": 0}
    assert "rejected" not in status["summary"]
    assert not [r for r in caplog.records if "refused" in r.getMessage()]


@pytest.mark.parametrize("fault", [
    Fault(status=500, after_commit=True, path="/messages", method="POST", skip=1, times=1),
    Fault(status=0, after_commit=True, path="/messages", method="POST", skip=1, times=1),
    Fault(status=429, path="/messages", method="POST", skip=1, times=1),
    Fault(status=500, after_commit=True, path="/messages", method="POST", times=1),
], ids=["2nd-request-500-after-commit", "2nd-request-dropped-after-commit", "2nd-request-refused",
        "1st-request-500-after-commit"])
def test_a_failure_between_requests_resends_only_the_missing_chunks(
    make_provider: Any, server: FakeHonchoServer, eventually: Any, fault: Fault
) -> None:
    server.faults.append(fault)
    provider = make_provider(message_max_chars=100)
    provider.initialize("partial")
    text = long_text(20_000)  # three requests
    provider.sync_turn(text, "done")
    provider.sync_turn("next question", "next answer")
    assert eventually(lambda: provider.get_status()["outbox"]["pending"] == 0)
    provider.on_session_end("partial", [])
    rows = server.messages("partial")
    first = [m for m in rows if m["metadata"]["hermes_turn"] == rows[0]["metadata"]["hermes_turn"]]
    assert len(first) > 2 * LIMIT
    assert [m["metadata"]["hermes_part"] for m in first] == list(range(len(first)))
    assert reassembled(first[:-1]) == text and first[-1]["content"] == "done"
    assert [m["content"] for m in rows[len(first):]] == ["next question", "next answer"]
    assert provider.get_status()["outbox"]["rejected"] == 0

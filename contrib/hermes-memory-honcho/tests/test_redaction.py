"""Secrets are redacted before anything is queued for Honcho (``redact_secrets``, on by default)."""

from __future__ import annotations

from typing import Any

import pytest

BOTH = pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)
KEY = "sk-ant-api03-" + "Zq7" * 12
PASSWORD = "password=hunter2hunter2"


@BOTH
def test_secrets_never_reach_honcho(make_provider: Any, backend: Any, tmp_path: Any) -> None:
    provider = make_provider()
    provider.initialize("secrets")
    provider.sync_turn(f"my key is {KEY} and {PASSWORD}", f"stored {KEY}")
    provider.on_delegation(f"use {KEY}", "done")
    provider.on_session_end("secrets", [])
    stored = "\n".join(m["content"] for m in backend.messages("secrets"))
    assert KEY not in stored and "hunter2" not in stored and stored.count("[REDACTED]") >= 4
    outbox = (tmp_path / "home" / "honcho" / "outbox.sqlite3").read_bytes()
    assert KEY.encode() not in outbox  # nor in the local queue


def test_redaction_can_be_turned_off(make_provider: Any, backend: Any) -> None:
    provider = make_provider(redact_secrets=False)
    provider.initialize("raw")
    provider.sync_turn(f"my key is {KEY}", "ok")
    provider.on_session_end("raw", [])
    assert backend.messages("raw")[0]["content"] == f"my key is {KEY}"


def test_conclusions_are_redacted(make_provider: Any, backend: Any) -> None:
    provider = make_provider()
    provider.initialize("concl")
    provider.on_memory_write("add", "user", f"Their deploy token: {KEY}")
    provider.on_session_end("concl", [])
    [conclusion] = backend.fake.conclusions
    assert KEY not in conclusion["content"] and "[REDACTED]" in conclusion["content"]

"""The SQLite store: exact round trips, ids by position, scoped search, concurrency, bad files."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hermes_context_lcm.query import parse_query
from hermes_context_lcm.store import SQLiteStore, StoreError

ODD_MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "same"},
    {"role": "user", "content": "same"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls -la"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "total 0\n\u00e9\U0001f600 \x00 bytes"},
    {"role": "user", "content": [{"type": "text", "text": "parts"}, {"type": "image_url", "image_url": {"url": "x"}}]},
    {"content": "key order differs", "role": "assistant", "name": "bot"},
    {"role": "assistant", "content": ""},
]


def test_round_trip_is_exact_and_ids_follow_position(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "lcm.db")
    ids = store.append("s", ODD_MESSAGES)
    assert ids == list(range(1, len(ODD_MESSAGES) + 1))
    back = [m.message() for m in store.get_messages(ids)]
    assert back == ODD_MESSAGES
    assert [list(m) for m in back] == [list(m) for m in ODD_MESSAGES]  # key order too
    assert [m.seq for m in store.get_messages(ids)] == list(range(len(ODD_MESSAGES)))
    # duplicates stay distinct rows
    assert ids[0] != ids[1] and back[0] == back[1]
    assert store.get_messages([999]) == []


def test_search_is_scoped_by_session_and_role_and_newest_first(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "lcm.db", index_batch=1000)  # nothing indexed until a search
    store.append("a", [{"role": "user", "content": "alpha needle"}, {"role": "assistant", "content": "needle two"}])
    store.append("b", [{"role": "user", "content": "needle in b"}])
    needle = parse_query("needle")
    assert store.search_messages(needle, limit=10) == [3, 2, 1]  # equal relevance: newest first
    assert store.search_messages(needle, session_id="a", limit=10) == [2, 1]
    assert store.search_messages(needle, session_id="a", role="user", limit=10) == [1]
    assert store.search_messages(needle, limit=1, offset=1) == [2]
    # tool-call arguments are searchable too
    store.append("a", [ODD_MESSAGES[2]])
    assert store.search_messages(parse_query("ls"), limit=10) == [4]


def test_reopen_keeps_everything_and_does_not_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "lcm.db"
    store = SQLiteStore(path, index_batch=2)
    store.append("s", ODD_MESSAGES)
    store.close()
    again = SQLiteStore(path)
    assert [m.message() for m in again.get_messages(range(1, 8))] == ODD_MESSAGES
    assert again.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    again.append("s", [{"role": "user", "content": "after reopen"}])
    assert again.get_messages([8])[0].seq == 7


def test_a_file_that_is_not_a_database_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "lcm.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    store = SQLiteStore(path)
    aside = list(tmp_path.glob("lcm.db.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == b"this is not sqlite at all" * 100
    health = store.health()
    assert health["state"] == "degraded" and str(aside[0]) in health["summary"]
    assert store.generation == 1 and store.append("s", [{"role": "user", "content": "x"}]) == [1]


def test_locked_database_is_a_busy_error_not_a_hang(tmp_path: Path) -> None:
    path = tmp_path / "lcm.db"
    store = SQLiteStore(path, busy_timeout_ms=50)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError) as info:
            store.append("s", [{"role": "user", "content": "x"}])
        assert info.value.kind == "busy"
    finally:
        other.execute("ROLLBACK")
    assert store.append("s", [{"role": "user", "content": "x"}]) == [1]


def test_disk_full_is_reported_and_nothing_half_written(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "lcm.db", index_batch=1)
    store.append("s", [{"role": "user", "content": "small"}])
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count={pages + 2}")
    with pytest.raises(StoreError) as info:
        store.append("s", [{"role": "tool", "tool_call_id": "x", "content": "y" * 200_000}])
    assert info.value.kind == "full"
    assert store.session_size("s") == 1  # the failed turn left no partial rows


def _writer(path: str, session: str, turns: int) -> None:
    store = SQLiteStore(path, busy_timeout_ms=20_000, index_batch=7)
    for i in range(turns):
        store.append(session, [{"role": "user", "content": f"{session} turn {i}"},
                               {"role": "assistant", "content": f"reply {i} common"}])
    store.close()


def test_concurrent_processes_share_one_store(tmp_path: Path) -> None:
    path = str(tmp_path / "lcm.db")
    SQLiteStore(path).close()
    ctx = multiprocessing.get_context("fork")  # the target lives in a test module spawn could not import
    procs = [ctx.Process(target=_writer, args=(path, f"p{n}", 60)) for n in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    store = SQLiteStore(path)
    for n in range(4):
        rows = store.session_messages(f"p{n}", limit=1000)
        assert [r.seq for r in rows] == list(range(120))
        assert [r.message()["content"] for r in rows[::2]] == [f"p{n} turn {i}" for i in range(60)]
    assert len(store.search_messages(parse_query("common"), limit=1000)) == 240
    assert store.stats(None)["messages_total"] == 480

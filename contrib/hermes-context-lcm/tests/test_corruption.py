"""A damaged, deleted or foreign database is detected, moved aside or reported, and survived.

The damage test runs real processes: one fills a store, the test overwrites pages in the
middle of the file, and a new process opens it as a later session would.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest
from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.store import SQLiteStore, StoreError

from hermes_core.text.messages import api_problems


def damage_pages(path: Path, share: float = 0.5) -> None:
    """Overwrite the middle ``share`` of the file's pages (not the header page) with junk."""
    size = path.stat().st_size
    page = 4096
    pages = size // page
    first, last = max(2, int(pages * (0.5 - share / 2))), min(pages - 1, int(pages * (0.5 + share / 2)))
    with path.open("r+b") as fh:
        for n in range(first, last):
            fh.seek(n * page)
            fh.write(bytes([(n * 37 + k) % 251 for k in range(page)]))


def test_damaged_pages_are_moved_aside_and_a_later_session_works(tmp_path: Path, run_session: Any) -> None:
    first = run_session(tmp_path, "before", 120)
    assert first["stored"] > 200 and first["grep"]["count"] > 0
    db = tmp_path / "lcm.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damage_pages(db)
    later = run_session(tmp_path, "after", 30)
    aside = [p for p in tmp_path.glob("lcm.db.corrupt-*") if p.name[-1].isdigit()]
    assert len(aside) == 1, later  # the damaged file is kept, never deleted
    assert later["store_error"] == "" and later["stored"] >= 60, later
    assert later["grep"].get("count", 0) > 0 and "error" not in later["grep"], later
    assert later["compactions"] >= 1
    # a third process (doctor, the next session) still sees that something was moved aside
    again = run_session(tmp_path, "third", 2)
    assert again["state"] == "degraded" and str(aside[0]) in again["summary"], again


def test_damaged_index_found_by_a_search_is_recovered(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "lcm.db")
    store.append("s", [{"role": "user", "content": f"needle number {i} " + "pad " * 200} for i in range(800)])
    store.flush_index()
    store.close()
    with sqlite3.connect(tmp_path / "lcm.db") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'messages_fts_data'")]
    with (tmp_path / "lcm.db").open("r+b") as fh:
        for n in pages[1:]:
            fh.seek((n - 1) * 4096)
            fh.write(b"\x0d" + b"\xff" * 4095)
    from hermes_context_lcm.query import parse_query

    reopened = SQLiteStore(tmp_path / "lcm.db")  # the cheap check at open may already see it ...
    if reopened.generation == 0:
        with pytest.raises(StoreError) as info:  # ... else the search that finds the damage fails clearly
            reopened.search_messages(parse_query('"needle number 3"'), limit=10)
        assert info.value.kind == "corrupt"
    assert "moved the damaged database" in reopened.health()["summary"]
    assert reopened.generation == 1  # ... and the file was moved aside: the next write works
    assert reopened.append("s", [{"role": "user", "content": "after"}]) == [1]


def test_database_deleted_mid_session_is_noticed_at_the_next_write(make_engine: Any) -> None:
    engine = make_engine(context_length=8000)
    engine.on_session_start("del")
    live = [{"role": "user", "content": f"message {i}"} for i in range(10)]
    engine.should_compress_preflight(live)
    db = engine.db_path
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    live.append({"role": "assistant", "content": "after the deletion"})
    engine.should_compress_preflight(live)
    assert db.exists()
    status = engine.get_status()
    assert any("deleted" in e for e in status["store_events"]) and status["state"] == "degraded"
    fresh = sqlite3.connect(db)
    stored = [json.loads(m)["role"] for (m,) in fresh.execute("SELECT meta FROM messages ORDER BY id")]
    assert len(stored) == 11  # the whole live context was stored again into the new file
    assert engine.store_error == ""


def test_files_are_private(make_engine: Any, tmp_path: Path) -> None:
    home = tmp_path / "new" / "home"
    engine = make_engine(home=home)
    engine.on_session_start("p")
    engine.should_compress_preflight([{"role": "user", "content": "secret transcript"}])
    for path in (home / "lcm.db", home / "lcm.db-wal", home / "lcm.db-shm"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    for directory in (home, tmp_path / "new", home / "lcm.db.locks"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    # an existing file from an older version is tightened
    engine.close()
    (home / "lcm.db").chmod(0o644)
    SQLiteStore(home / "lcm.db").close()
    assert stat.S_IMODE((home / "lcm.db").stat().st_mode) == 0o600


def test_database_from_a_newer_version_is_a_clear_message_and_the_turn_goes_on(make_engine: Any,
                                                                            tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "lcm.db").close()
    with sqlite3.connect(tmp_path / "lcm.db") as conn:
        conn.execute("PRAGMA user_version=99")
    engine = make_engine(context_length=4000)
    engine.on_session_start("newer")
    live = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "w " * 200} for i in range(40)]
    assert engine.should_compress_preflight(live)  # no exception, and the window is still watched
    status = engine.get_status()
    assert status["state"] == "unavailable" and "newer" in status["store_error"] and "schema 99" in status["summary"]
    after = engine.compress(live).messages
    assert after is not live and not api_problems(after)
    assert sum(len(str(m["content"])) for m in after) < sum(len(str(m["content"])) for m in live) / 2
    assert not list(tmp_path.glob("lcm.db.corrupt-*"))  # a newer file is not damaged: left alone


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere; a read-only directory cannot be shown")
def test_read_only_directory_is_a_clear_message(make_engine: Any, tmp_path: Path) -> None:
    home = tmp_path / "ro"
    home.mkdir()
    home.chmod(0o500)
    try:
        engine = make_engine(home=home)
        engine.on_session_start("ro")
        engine.should_compress_preflight([{"role": "user", "content": "x"}])
        assert engine.get_status()["state"] == "unavailable"
    finally:
        home.chmod(0o700)


def test_an_engine_status_never_creates_the_file(make_engine: Any, tmp_path: Path) -> None:
    engine = make_engine()
    assert engine.get_status()["state"] == "ok"
    assert not (tmp_path / "lcm.db").exists()


def test_scratch_engine_never_writes_the_home(make_engine: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("HERMES_LCM_SCRATCH", "1")
    engine: LCMEngine = make_engine(context_length=4000)
    engine.on_session_start("scratch")
    live = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "w " * 200} for i in range(40)]
    after = engine.compress(live).messages
    assert after is not live and engine.get_status()["scratch"] is True
    grep = json.loads(engine.handle_tool_call("lcm_grep", {"pattern": "turn"}) or "{}")
    assert grep["count"] > 0  # the scratch store works for the rest of the process
    assert list(tmp_path.iterdir()) == []


def test_doctor_shows_the_store_state(make_engine: Any, tmp_path: Path) -> None:
    from types import SimpleNamespace

    from hermes_core.apps.doctor import check_engine

    engine = make_engine()
    engine.on_session_start("doc")
    engine.should_compress_preflight([{"role": "user", "content": "hello"}])
    [ok] = list(check_engine(SimpleNamespace(engine=engine, engine_status=engine.get_status)))  # type: ignore[arg-type]
    assert ok.level == "ok" and ok.check == "context engine"
    engine.close()
    (tmp_path / "lcm.db").write_bytes(b"garbage" * 1000)
    damaged = make_engine()
    [found] = list(check_engine(SimpleNamespace(engine=damaged, engine_status=damaged.get_status)))  # type: ignore[arg-type]
    assert found.level == "warn" and "moved" in found.message and found.fix

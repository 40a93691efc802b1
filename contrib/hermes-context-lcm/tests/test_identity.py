"""Message identity: re-ingesting a transcript never stores a message twice.

A replay run twice, a process resumed after a crash, a host that re-sends the whole
history: each hands the engine messages it has stored before. The store's content
identity (session, predecessor, exact content) under a UNIQUE constraint returns the
existing row; the same text said twice in one conversation is still two rows.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from hermes_context_lcm.store import SQLiteStore


def rows(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])


def test_replaying_a_session_twice_in_real_processes_stores_nothing_twice(tmp_path: Path, run_session: Any) -> None:
    first = run_session(tmp_path, "replayed", 60)
    once = rows(tmp_path / "lcm.db")
    assert first["compactions"] >= 1 and once == 121  # a system prompt and 120 turns
    second = run_session(tmp_path, "replayed", 60)
    assert second["store_error"] == "" and rows(tmp_path / "lcm.db") == once


def test_a_host_that_resends_the_history_or_a_prefix_adds_only_what_is_new(make_engine: Any, drive: Any,
                                                                         corpus_messages: Any) -> None:
    msgs = corpus_messages["claude-code_ai-sessions_pomodoro"]
    first = make_engine(context_length=16_000)
    drive(first, msgs, "resent")
    first.close()
    store = SQLiteStore(first.db_path)
    total = store.session_size("resent")
    store.close()
    for history in (msgs, msgs[:50], [*msgs[:50], {"role": "user", "content": "a new question"}]):
        engine = make_engine(context_length=10_000_000)
        engine.on_session_start("resent")
        engine.should_compress_preflight(list(history))
        engine.close()
    store = SQLiteStore(first.db_path)
    assert store.session_size("resent") == total + 1  # only "a new question"
    store.close()


def test_identical_text_at_different_points_stays_distinct(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "lcm.db")
    ok = {"role": "user", "content": "ok"}
    ids = store.append("s", [ok, {"role": "assistant", "content": "sure"}, ok, ok])
    assert len(set(ids)) == 4
    # the same list again from the start of the conversation is the same rows
    assert store.append("s", [ok, {"role": "assistant", "content": "sure"}, ok, ok], [0, None, None, None]) == ids
    # an edited message is a new row, and so is everything after it
    edited = store.append("s", [ok, {"role": "assistant", "content": "sure!"}, ok], [0, None, None])
    assert edited[0] == ids[0] and not set(edited[1:]) & set(ids)
    # another session with the same text is its own conversation
    assert not set(store.append("t", [ok], [0])) & set(ids)


def test_identity_survives_reopen_and_other_processes(tmp_path: Path) -> None:
    path = tmp_path / "lcm.db"
    messages = [{"role": "user", "content": f"m{i}", "extra": {"n": i}} for i in range(20)]
    first = SQLiteStore(path)
    ids = first.append("s", messages, [0] + [None] * 19)
    first.close()
    again = SQLiteStore(path)
    assert again.append("s", messages, [0] + [None] * 19) == ids
    assert again.session_size("s") == 20


def test_expand_shows_msg_pointers_even_when_a_message_has_its_own_id(make_engine: Any) -> None:
    import json

    engine = make_engine(context_length=2000)
    engine.on_session_start("own-ids")
    live = [{"id": f"host-{i}", "role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "w " * 150}
            for i in range(30)]
    engine.compress(live, force=True)
    leaf = next(s for s in engine.store.all_summaries("own-ids") if s.covers_kind == "messages")
    page = json.loads(engine.handle_tool_call("lcm_expand", {"id": f"sum_{leaf.id}"}) or "{}")
    first = page["items"][0]
    assert first["id"] == f"msg_{leaf.covers[0]}" and first["message_id"] == "host-0"


def test_bench_script_runs_without_pytest(tmp_path: Path) -> None:
    """bench_lcm.py imports and builds a small store in a process where pytest cannot be imported."""
    import subprocess
    import sys

    bench = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_lcm.py"
    code = (
        "import sys, runpy, pathlib; sys.modules['pytest'] = None\n"
        f"ns = runpy.run_path({str(bench)!r}, run_name='bench')\n"
        "transcripts = ns['corpus']()[:2]\n"
        f"home = pathlib.Path({str(tmp_path)!r})\n"
        "total, _ = ns['build_store'](transcripts, home, 300, big_session=100)\n"
        "print(total, ns['bench_rare_in_big_session'](home, ['zzz'], 2)['session_messages'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    total, big = map(int, done.stdout.split())
    assert total == 300 and 100 <= big <= 300

"""A schema-2 store (as an older release wrote it) opened by today's code: every message comes
back exactly, the new index finds what the old one could not, and nothing is stored twice.

``make_v2_store`` writes the file as that release did: its schema (from the release's
``store.py``), no ``ident`` column, two-column full-text indexes whose ``body`` is the text as
written (no CJK spacing, no identifier parts).
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from hermes_context_lcm.query import parse_query
from hermes_context_lcm.store import SCHEMA_VERSION, SQLiteStore, role_token, search_text, session_token

SCHEMA_V2 = """
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT,
    meta TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE VIRTUAL TABLE messages_fts USING fts5(meta, body, content='', columnsize=0);
CREATE TABLE summaries (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    depth INTEGER NOT NULL,
    content TEXT NOT NULL,
    hint TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    source TEXT NOT NULL,
    covers_kind TEXT NOT NULL,
    covers TEXT NOT NULL,
    first_message INTEGER NOT NULL,
    last_message INTEGER NOT NULL,
    message_count INTEGER NOT NULL,
    parent_id INTEGER,
    created_at REAL NOT NULL
);
CREATE INDEX summaries_roots ON summaries (session_id, parent_id, id);
CREATE VIRTUAL TABLE summaries_fts USING fts5(meta, body, content='', columnsize=0);
CREATE TABLE state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE layouts (session_id TEXT PRIMARY KEY, layout TEXT NOT NULL, upto INTEGER NOT NULL);
INSERT INTO state (key, value) VALUES ('fts_upto', 0);
"""


def _split_v2(msg: dict[str, Any]) -> tuple[str | None, str]:
    """Schema 2's row form: a string content apart, the other keys as JSON with a placeholder."""
    content = msg.get("content")
    if isinstance(content, str):
        return content, json.dumps({**msg, "content": None}, ensure_ascii=False)
    return None, json.dumps(msg, ensure_ascii=False, default=str)


def make_v2_store(path: Path, sessions: dict[str, list[dict[str, Any]]], summary: str) -> dict[str, list[int]]:
    """Write ``sessions`` (and one summary of the first session) as schema 2 did; ids per session."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA_V2)
    ids: dict[str, list[int]] = {}
    next_id = 1
    conn.execute("BEGIN")
    for session, messages in sessions.items():
        for seq, msg in enumerate(messages):
            content, meta = _split_v2(msg)
            conn.execute("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (next_id, session, seq, msg["role"], content, meta, 10, time.time()))
            conn.execute("INSERT INTO messages_fts (rowid, meta, body) VALUES (?, ?, ?)",
                         (next_id, f"{session_token(session)} {role_token(msg['role'])}", search_text(msg)))
            ids.setdefault(session, []).append(next_id)
            next_id += 1
    first = next(iter(sessions))
    conn.execute("INSERT INTO summaries VALUES (1, ?, 0, ?, '', 20, 'llm', 'messages', ?, ?, ?, ?, NULL, ?)",
                 (first, summary, json.dumps(ids[first]), ids[first][0], ids[first][-1], len(ids[first]), time.time()))
    conn.execute("INSERT INTO summaries_fts (rowid, meta, body) VALUES (1, ?, ?)",
                 (f"{session_token(first)} d0", summary))
    conn.execute("INSERT INTO layouts VALUES (?, ?, ?)", (first, json.dumps({"now": ids[first]}), ids[first][-1]))
    conn.execute("UPDATE state SET value = ? WHERE key = 'fts_upto'", (next_id - 1,))
    conn.execute("COMMIT")
    conn.execute("PRAGMA user_version=2")
    conn.close()
    return ids


SESSIONS: dict[str, list[dict[str, Any]]] = {
    "old": [
        {"role": "user", "content": "请把番茄钟的计时器改成二十五分钟"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "read_file", "arguments": '{"path": "conf.yaml", "key": "retryBackoffMillis"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "retryBackoffMillis: 250 \x00 é \U0001f680"},
        {"content": "upgrade to v1.2.3 done", "role": "assistant", "name": "bot"},
        {"role": "user", "content": [{"type": "text", "text": "parts"},
                                     {"type": "image_url", "image_url": {"url": "x"}}]},
        {"role": "user", "content": "same"},
        {"role": "user", "content": "same"},
    ],
    "other": [{"role": "user", "content": "call getUserNameFromDb() please"}, {"role": "assistant", "content": ""}],
}


def test_a_v2_store_opens_round_trips_and_searches_with_the_new_index(tmp_path: Path) -> None:
    path = tmp_path / "lcm.db"
    ids = make_v2_store(path, SESSIONS, summary="The timer work: getUserNameFromDb and 计时器.")
    store = SQLiteStore(path)
    try:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        for session, messages in SESSIONS.items():
            back = [m.message() for m in store.get_messages(ids[session])]
            assert back == messages and [list(m) for m in back] == [list(m) for m in messages]
            assert [m.seq for m in store.get_messages(ids[session])] == list(range(len(messages)))
        # found by the new index (re-built from the stored rows), in their session
        for word, session, where in (("计时器", "old", {0}), ("Backoff", "old", {1, 2}), ("1.2.3", "old", {3}),
                                     ("\U0001f680", "old", {2}), ("UserName", "other", {0})):
            found = store.search_messages(parse_query(word), session_id=session)
            assert sorted(found) == [ids[session][i] for i in sorted(where)], word
        assert store.search_summaries(parse_query("计时器")) == [1]
        assert store.search_summaries(parse_query("UserName"), session_id="old") == [1]
        assert store.load_layout("old") == ({"now": ids["old"]}, ids["old"][-1])
        # appending continues the ids and seqs; re-sending the newest message stores nothing
        new = store.append("old", [{"role": "assistant", "content": "after the upgrade"}])
        assert new == [ids["other"][-1] + 1] and store.session_size("old") == len(SESSIONS["old"]) + 1
        assert store.append("old", [{"role": "assistant", "content": "after the upgrade"}], parents=[ids["old"][-1]]) \
            == new
        assert store.session_size("old") == len(SESSIONS["old"]) + 1
    finally:
        store.close()
    # and the upgraded file opens again as schema 3 without another migration
    again = SQLiteStore(path)
    try:
        assert again.search_messages(parse_query("计时器")) == [ids["old"][0]]
        with sqlite3.connect(path) as conn:
            assert {r[1] for r in conn.execute("PRAGMA table_info(messages)")} >= {"ident"}
            plan = conn.execute("EXPLAIN QUERY PLAN SELECT id FROM messages WHERE ident = ?", (b"x",)).fetchall()
            assert "messages_ident" in str(plan)  # identity lookups use the new unique index
    finally:
        again.close()

"""Search within one session returns exactly the session's matches, whatever the layout.

The session search takes different roads (the store's newest matches, a walk of the
session's id range, the session's index token where other sessions crowd that range, BM25
for a word rare in the whole store) and checks a match's session two ways (the session's id
runs, or the message row: with a role filter or past ``MAX_RUNS`` runs); each road must give
the same answer as reading every match and keeping the session's.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from hermes_context_lcm.query import parse_query
from hermes_context_lcm.store import MAX_RUNS, RANK_LIMIT, SQLiteStore, fts_match
from hypothesis import given, settings
from hypothesis import strategies as st


@functools.cache
def _store(layout: tuple[str, ...], rare_every: int) -> SQLiteStore:
    """One message per entry of ``layout`` (its session), each holding ``common``; every
    ``rare_every``-th also ``rareword``; roles alternate."""
    store = SQLiteStore(":memory:", index_batch=64)
    for i, session in enumerate(layout):
        text = f"common text {i}" + (" rareword" if i % rare_every == 0 else "")
        store.append(session, [{"role": "user" if i % 2 else "assistant", "content": text}])
    return store


def _reference(store: SQLiteStore, word: str, session: str, role: str | None) -> list[int]:
    store.flush_index()
    match = fts_match(parse_query(word))
    every = [r[0] for r in store.conn.execute(
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC", (match,))]
    rows: dict[int, Any] = {m.id: m for m in store.get_messages(every)}
    return [i for i in every if rows[i].session_id == session and (role is None or rows[i].role == role)]


LAYOUTS = {
    # the session first, then the rest of the store after it (the probe sees none of it)
    "old-contiguous": ("s",) * 150 + ("o",) * 200,
    # the session last (its newest matches are the store's newest)
    "new-contiguous": ("o",) * 200 + ("s",) * 150,
    # one message in ten: other sessions crowd the session's id range
    "interleaved": tuple("s" if i % 10 == 0 else f"o{i % 3}" for i in range(1200)),
    "both-ends": ("s",) * 40 + ("o",) * 300 + ("s",) * 40,
    # more runs than MAX_RUNS: checked through the messages table
    "scattered": tuple("s" if i % 3 == 0 else "o" for i in range(3 * MAX_RUNS + 30)),
}


def _runs_from_rows(store: SQLiteStore) -> list[tuple[str, int, int]]:
    """Every session's runs, recomputed from the messages (what ``session_runs`` must hold)."""
    runs: list[list[object]] = []
    for mid, session in store.conn.execute("SELECT id, session_id FROM messages ORDER BY id"):
        if runs and runs[-1][0] == session:
            runs[-1][2] = mid
        else:
            runs.append([session, mid, mid])
    return sorted((str(a), int(b), int(c)) for a, b, c in runs)  # type: ignore[call-overload]


def _stored_runs(store: SQLiteStore) -> list[tuple[str, int, int]]:
    return sorted(store.conn.execute("SELECT session_id, first_id, last_id FROM session_runs"))


@settings(max_examples=40, deadline=None)
@given(layout=st.sampled_from(sorted(LAYOUTS)), limit=st.integers(1, 30), offset=st.integers(0, 140),
       role=st.sampled_from([None, "user"]))
def test_session_search_equals_every_match_of_the_session(layout: str, limit: int, offset: int,
                                                          role: str | None) -> None:
    store = _store(LAYOUTS[layout], rare_every=1000)  # built once per layout; the searches only read
    expected = _reference(store, "common", "s", role)
    got = store.search_messages(parse_query("common"), session_id="s", role=role, limit=limit, offset=offset)
    assert got == expected[offset : offset + limit]
    assert _stored_runs(store) == _runs_from_rows(store)


def test_runs_are_rebuilt_for_a_file_older_code_indexed(tmp_path: Path) -> None:
    """A schema-3 file from before ``session_runs`` (or one older code kept indexing) gets its
    runs at the next search, and the session search stays exact."""
    path = tmp_path / "lcm.db"
    store = SQLiteStore(path, index_batch=16)
    layout = LAYOUTS["interleaved"][:300]
    for i, session in enumerate(layout):
        store.append(session, [{"role": "user", "content": f"common text {i}"}])
    store.flush_index()
    store.conn.execute("DROP TABLE session_runs")
    store.conn.execute("DELETE FROM state WHERE key = 'runs_upto'")
    store.close()
    again = SQLiteStore(path)
    got = again.search_messages(parse_query("common"), session_id="s", limit=100)
    assert got == _reference(again, "common", "s", None)[:100] and len(got) == 30
    assert _stored_runs(again) == _runs_from_rows(again)
    again.close()


def test_a_word_rare_in_the_store_is_ranked_and_complete_in_its_session() -> None:
    layout = LAYOUTS["interleaved"]
    store = _store(layout, rare_every=30)  # 40 matches in the store, 4 of them in "s"
    expected = _reference(store, "rareword", "s", None)
    everywhere = store.search_messages(parse_query("rareword"), limit=RANK_LIMIT + 1)
    assert 2 <= len(expected) and len(everywhere) <= RANK_LIMIT
    got = store.search_messages(parse_query("rareword"), session_id="s", limit=50)
    assert got == sorted(expected, reverse=True)  # all of them; equal BM25 scores: newest first

"""Session ids and roles SQLite cannot bind (lone surrogates) are stored, found and read back exactly.

A host may derive a session id from a file name (``os.fsdecode`` gives lone surrogates for
bytes that are not UTF-8); a tool may name a role oddly. The store escapes such keys (see
``codec.escape_key``), so none is refused, none is taken for another, and a file written
before (NUL ids stored as they are) keeps its ids.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hermes_context_lcm import codec
from hermes_context_lcm.dag import NewSummary
from hermes_context_lcm.query import parse_query
from hermes_context_lcm.store import SQLiteStore, file_key
from hypothesis import given
from hypothesis import strategies as st

ODD = ["lone \ud800 id", "nul\x00id", "\udcff", codec.KEY_ESCAPE, file_key("\udcff"), "plain"]


def test_odd_session_ids_and_roles_round_trip_and_stay_apart(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "lcm.db")
    ids: dict[str, list[int]] = {}
    for n, sid in enumerate(ODD):
        role = f"to\udc80ol{n}"
        batch = [{"role": role, "content": f"needle{n} here"}, {"role": "user", "content": "hi"}]
        ids[sid] = store.append(sid, batch)
        assert store.append(sid, batch, [0, None]) == ids[sid]  # the same identity: stored once
        stored = store.session_messages(sid, limit=10)
        assert [m.message() for m in stored] == batch
        assert [(m.session_id, m.role) for m in stored] == [(sid, role), (sid, "user")]
        assert store.session_size(sid) == 2 and store.stats(sid)["messages_session"] == 2
        assert store.search_messages(parse_query(f"needle{n}"), session_id=sid, role=role) == [ids[sid][0]]
        assert [m.id for m in store.scan_messages(sid, None, 10)] == ids[sid][::-1]
        store.save_layout(sid, {"n": n}, ids[sid][-1])
        store.add_summary(NewSummary(session_id=sid, depth=0, content=f"sum{n}", hint="", tokens=1, source="t",
                                     covers_kind="messages", covers=ids[sid], first_message=ids[sid][0],
                                     last_message=ids[sid][-1], message_count=2))
    store.close()
    again = SQLiteStore(tmp_path / "lcm.db")  # a new process's view: everything read from the file
    for n, sid in enumerate(ODD):
        assert [m.session_id for m in again.get_messages(ids[sid])] == [sid, sid]
        assert again.load_layout(sid) == ({"n": n}, ids[sid][-1])
        assert [s.session_id for s in again.roots(sid)] == [sid]
        assert len(again.search_summaries(parse_query(f"sum{n}"), session_id=sid)) == 1
    assert len({m for sid in ODD for m in ids[sid]}) == 2 * len(ODD)
    again.close()
    raw = sqlite3.connect(tmp_path / "lcm.db")
    assert ("nul\x00id",) in raw.execute("SELECT session_id FROM messages").fetchall()  # NUL kept as it was
    raw.close()


KEYS = st.text(st.characters(categories=("Cs", "Cc", "Ll", "Lo", "Po"))) | st.sampled_from(ODD)


@given(KEYS, KEYS, st.booleans())
def test_escape_key_is_reversible_injective_and_column_safe(value: str, other: str, nul: bool) -> None:
    stored = codec.escape_key(value, nul=nul)
    stored.encode("utf-8")  # what a TEXT column is given is valid UTF-8
    assert not (nul and "\x00" in stored)
    assert codec.unescape_key(stored) == value
    assert (codec.escape_key(other, nul=nul) == stored) == (other == value)

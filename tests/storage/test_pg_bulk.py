"""The bulk load of ``storage migrate --to postgres`` stores what turn-by-turn appends store.

In a database of its own (so ``lcm_messages`` starts empty and the load takes the path that
drops and rebuilds the search indexes): one namespace loaded by appends of 8, one by the bulk
copy through worker processes, one by the bulk copy once the table holds rows (indexes kept).
Every stored column but the id and the time, the BM25 counts, the indexes, and every
``lcm_grep`` result must be the same in all three.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hermes_context_lcm import pg_bulk, pg_transfer
from hermes_context_lcm.pg_store import PgStore
from hermes_context_lcm.store import SQLiteStore
from hermes_context_lcm.tools import run_tool

from hermes_core.apps.transcripts import load_transcript
from hermes_core.config.models import StorageConfig
from hermes_core.testing.engine_conformance import corpus_dir
from hermes_core.testing.postgres import require

from .test_pg_lcm import QUERIES, _comparable, _Engine

CORPUS = corpus_dir(Path(__file__).resolve())
BULK_DSN_ENV = "HERMES_TEST_BULK_DSN"
ODD = {"nul\x00session": [{"role": "to\x00ol", "content": "a NUL\x00inside"},
                          {"role": "user", "content": "我们明天讨论数据库迁移 getUserName v1.2.3 🚀"}]}


@contextmanager
def own_database() -> Iterator[str]:
    """A database of its own, named by ``$HERMES_TEST_BULK_DSN``; only its pool is closed after
    (other tests' stores keep theirs)."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    server = require("HERMES_TEST_PG_DSN")
    name = f"hermes_bulk_{uuid.uuid4().hex[:10]}"
    dsn = make_conninfo(server, dbname=name)
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    mp = pytest.MonkeyPatch()
    mp.setenv(BULK_DSN_ENV, dsn)
    try:
        yield dsn
    finally:
        from hermes_core.storage import pool

        for key, db in list(pool._shared.items()):
            if key[0] == dsn:
                db.close()
        mp.undo()
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _store(namespace: str) -> PgStore:
    return PgStore(StorageConfig(backend="postgres", dsn_env=BULK_DSN_ENV, namespace=namespace))


ROW = ("session_id, seq, role, content, content_kind, meta, tokens, ident, stoken, rtoken, coarse::text, "
       "parts::text, body")


def _rows(pg: PgStore) -> list[tuple[Any, ...]]:
    return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in pg._rows(
        f"SELECT {ROW} FROM lcm_messages WHERE namespace = %s ORDER BY session_id, seq", (pg.namespace,))]


def _indexes(pg: PgStore) -> list[str]:
    return sorted(str(r[0]) for r in pg._rows(
        "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'lcm_messages'::regclass", ()))


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    if CORPUS is None:
        pytest.skip("transcript corpus not found")
    sessions = {p.stem: load_transcript(p).messages for p in sorted(CORPUS.glob("*.json"))[:6]} | ODD
    source = tmp_path_factory.mktemp("bulk") / "lcm.db"
    sqlite = SQLiteStore(source)
    for name, messages in sessions.items():
        for start in range(0, len(messages), 8):
            sqlite.append(name, messages[start:start + 8])
    sqlite.close()
    rebuilt: list[list[str]] = []
    real = pg_bulk.bulk_load

    def spy(*args: Any, **kw: Any) -> Any:
        out = real(*args, **kw)
        rebuilt.append(out["rebuilt_indexes"])
        return out

    with own_database(), pytest.MonkeyPatch.context() as mp:
        mp.setattr(pg_transfer, "bulk_load", spy)
        mp.setattr(pg_transfer, "BULK_BATCH", 500)  # several blocks through the workers
        bulk = _store("bulk")
        indexes = _indexes(bulk)  # as the schema makes them
        assert pg_transfer.to_postgres(source, bulk, workers=2).verified  # into an empty table
        kept = _store("bulk-kept")
        assert pg_transfer.to_postgres(source, kept, workers=1).verified  # into a table holding rows
        turns = _store("turns")
        for name, messages in sessions.items():
            for start in range(0, len(messages), 8):
                turns.append(name, messages[start:start + 8])
        lite = SQLiteStore(source)
        yield {"turns": turns, "bulk": bulk, "kept": kept, "sqlite": lite, "indexes": indexes,
               "rebuilt": rebuilt, "sessions": sessions}
        lite.close()


def test_bulk_load_stores_the_rows_appends_store(loaded: dict[str, Any]) -> None:
    assert len(loaded["rebuilt"][0]) == 4 and loaded["rebuilt"][1] == []  # rebuilt when empty, kept after
    expected = _rows(loaded["turns"])
    assert len(expected) == sum(map(len, loaded["sessions"].values()))
    assert _rows(loaded["bulk"]) == expected
    assert _rows(loaded["kept"]) == expected
    counts = {ns: loaded["turns"]._rows("SELECT kind, rows, tokens FROM lcm_counts WHERE namespace = %s", (ns,))
              for ns in ("turns", "bulk", "bulk-kept")}
    assert counts["bulk"] == counts["turns"] == counts["bulk-kept"] != []
    assert _indexes(loaded["bulk"]) == loaded["indexes"]  # every index is back, as the schema defines it


@pytest.mark.parametrize("scope", ["all", "session"])
def test_bulk_loaded_store_gives_the_same_search_results(loaded: dict[str, Any], scope: str) -> None:
    session = sorted(loaded["sessions"])[2]
    hits = 0
    for pattern in [*QUERIES, "数据库", "UserName", "1.2.3", "inside"]:
        args = {"pattern": pattern, "scope": scope, "limit": 7}
        results = [json.loads(run_tool(_Engine(loaded[k], session), "lcm_grep", dict(args)) or "{}")
                   for k in ("turns", "bulk", "kept", "sqlite")]
        comparable = [_comparable(r, loaded[k]) for r, k in zip(results, ("turns", "bulk", "kept", "sqlite"),
                                                                  strict=True)]
        assert comparable[1] == comparable[0] == comparable[2] == comparable[3], pattern
        hits += results[0].get("count", 0)
    assert hits > 50
    for store in ("turns", "bulk"):
        found = loaded[store].search_substring("数据库", None, 5)
        assert [m.session_id for m in loaded[store].get_messages(found)] == ["nul\x00session"]


def test_a_bulk_load_cut_off_leaves_nothing() -> None:
    """One transaction: the rows of the first block and the dropped indexes come back as they were."""

    def blocks() -> Iterator[list[tuple[Any, ...]]]:
        yield [(1, "s", 0, "user", "hello", '{"role": "user", "content": null}', 1, 0.0, b"x" * 32)]
        raise OSError("the source file went away")

    with own_database():
        pg = _store("cut-off")
        before = _indexes(pg)
        with pytest.raises(OSError, match="went away"):
            pg_bulk.bulk_load(pg, blocks)
        assert pg._rows("SELECT count(*) FROM lcm_messages", ()) == [(0,)]
        assert _indexes(pg) == before
        assert pg._rows("SELECT count(*) FROM lcm_counts", ()) == [(0,)]


UNGUARDED_SCRIPT = '''
import json, logging, sqlite3, sys
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
from hermes_context_lcm.pg_bulk import encoded_blocks
from hermes_context_lcm.pg_transfer import MSG_COLS, _sqlite_rows
# no `if __name__ == "__main__":` guard: every spawned worker re-runs this file and fails
blocks = list(_sqlite_rows(sqlite3.connect(sys.argv[1]), "messages", MSG_COLS, 10))
here = [(d.hex(), n, c) for d, n, c in encoded_blocks("ns", blocks, 1)]
spread = [(d.hex(), n, c) for d, n, c in encoded_blocks("ns", blocks, 2)]
print(json.dumps({"equal": here == spread, "blocks": len(here)}))
'''


def test_workers_that_cannot_start_fall_back_to_encoding_in_process(tmp_path: Path) -> None:
    """A library caller whose script lacks a main guard gets a slower load with a warning, not a
    broken process pool: every block is still encoded, in order, byte for byte."""
    import subprocess
    import sys

    if CORPUS is None:
        pytest.skip("transcript corpus not found")
    store = SQLiteStore(tmp_path / "lcm.db")
    store.append("s", load_transcript(sorted(CORPUS.glob("*.json"))[0]).messages)
    store.close()
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED_SCRIPT)
    run = subprocess.run([sys.executable, str(script), str(tmp_path / "lcm.db")], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["equal"] and result["blocks"] > 4, result  # more blocks than the workers hold ahead
    assert "encoding worker processes failed" in run.stderr

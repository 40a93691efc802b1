"""LCM on PostgreSQL: byte-exact round trip, the same tool results as SQLite, the conformance
suite, and one live engine per session across hosts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from hermes_context_lcm.codec import encode_message
from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.pg_store import PgStore, match_sql, tokens
from hermes_context_lcm.query import parse_query
from hermes_context_lcm.settings import LCMSettings
from hermes_context_lcm.store import SQLiteStore
from hermes_context_lcm.tools import run_tool

from hermes_core.apps.transcripts import load_transcript
from hermes_core.config.models import HermesConfig, StorageConfig
from hermes_core.testing.engine_conformance import check_engine, corpus_dir, engine_factory

CORPUS = corpus_dir(Path(__file__).resolve())
QUERIES = ["error", "test", "def", "import os", '"file not found"', "pars*", "the AND file", "python OR rust",
           "test NOT pytest", "Traceback", "README", "docker*", "config yaml", "überprüfen", "日本", "git commit",
           "0x", "TODO", "assert", "json"]


@pytest.fixture(scope="module")
def transcripts() -> dict[str, list[dict[str, Any]]]:
    if CORPUS is None:
        pytest.skip("transcript corpus not found")
    return {p.stem: load_transcript(p).messages for p in sorted(CORPUS.glob("*.json"))}


@pytest.fixture(scope="module")
def both(transcripts: dict[str, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory,
         pg_dsn: str) -> tuple[SQLiteStore, PgStore]:
    from hermes_core.testing.postgres import DSN_ENV

    sqlite = SQLiteStore(tmp_path_factory.mktemp("lcm") / "lcm.db")
    pg = PgStore(StorageConfig(backend="postgres", dsn_env=DSN_ENV, namespace="lcm-same-results"))
    for name, messages in transcripts.items():
        for start in range(0, len(messages), 40):  # turn-sized appends, as an engine makes them
            sqlite.append(name, messages[start:start + 40])
            pg.append(name, messages[start:start + 40])
    return sqlite, pg


def test_every_corpus_message_round_trips_byte_exact(both: tuple[SQLiteStore, PgStore],
                                                     transcripts: dict[str, list[dict[str, Any]]]) -> None:
    _, pg = both
    count = 0
    for name, messages in transcripts.items():
        stored = pg.session_messages(name, limit=1 << 30)
        assert [m.seq for m in stored] == list(range(len(messages)))
        for original, row in zip(messages, stored, strict=True):
            again = row.message()
            assert again == original and json.dumps(again) == json.dumps(original)  # same keys, same order
            count += 1
    assert count > 1000


class _Engine:
    """What the tools need of an engine: a store and a session id."""

    def __init__(self, store: Any, session_id: str) -> None:
        self.store, self.session_id = store, session_id
        self.settings = LCMSettings()


def _comparable(result: dict[str, Any], store: Any) -> Any:
    """Tool results with ids replaced by what they point at (ids differ between two stores)."""
    out = []
    for hit in result.get("results", []):
        kind, num = hit["id"].split("_")
        if kind == "msg":
            m = store.get_messages([int(num)])[0]
            out.append(("msg", m.session_id, m.seq, hit["snippet"]))
        else:
            out.append(("sum", hit["session_id"], hit["snippet"]))
    return result.get("count"), out, result.get("next_cursor") is None


@pytest.mark.parametrize("scope", ["all", "session"])
def test_lcm_grep_gives_the_same_results_on_both(both: tuple[SQLiteStore, PgStore], scope: str,
                                                 transcripts: dict[str, list[dict[str, Any]]]) -> None:
    sqlite, pg = both
    session = sorted(transcripts)[3]
    hits = 0
    for pattern in QUERIES:
        for role in (None, "tool"):
            args: dict[str, Any] = {"pattern": pattern, "scope": scope, "limit": 7}
            if role:
                args["role"] = role
            for page in range(2):
                a = json.loads(run_tool(_Engine(sqlite, session), "lcm_grep", args) or "{}")
                b = json.loads(run_tool(_Engine(pg, session), "lcm_grep", args) or "{}")
                assert ("error" in a) == ("error" in b), (pattern, a, b)
                if "error" in a:
                    break
                assert _comparable(b, pg) == _comparable(a, sqlite), (pattern, role, page)
                hits += a["count"]
                if a["next_cursor"] is None:
                    break
                args["cursor"] = a["next_cursor"]
    assert hits > 100


def test_tokens_and_queries_follow_fts5() -> None:
    """The store's FTS5 expression, term for term: phrases over ``body`` (coarse) and ``parts``."""
    assert tokens("Über-Prüfung of v1.2.3, snake_case; 日本語") == ["uber", "prufung", "of", "v1", "2", "3", "snake",
                                                                   "case", "日本語"]
    sql, params, phrases = match_sql(parse_query('"a b" c* NOT d OR getUserName'))
    assert sql == ("((((coarse @@ %s::tsquery OR parts @@ %s::tsquery)) AND ((coarse @@ %s::tsquery OR parts @@ "
                   "%s::tsquery)) AND NOT (((coarse @@ %s::tsquery OR parts @@ %s::tsquery)))) OR "
                   "(((coarse @@ %s::tsquery) OR (parts @@ %s::tsquery))))")
    assert params == ["'a' <-> 'b'"] * 2 + ["'c':*"] * 2 + ["'d'"] * 2 + ["'getusername'", "'get\u01c2user' <-> "
                                                                          "'user\u01c2name'"]
    assert [p.columns for p in phrases][-2:] == [("coarse",), ("parts",)]


def test_trigram_search_finds_text_a_word_index_cannot(storage: StorageConfig) -> None:
    pg = PgStore(storage)
    pg.append("s", [{"role": "user", "content": "我们明天讨论数据库迁移"},
                    {"role": "user", "content": "getUserName()"}])
    ids = pg.search_substring("数据库", None, 10)
    assert [m.message()["content"] for m in pg.get_messages(ids)] == ["我们明天讨论数据库迁移"]
    assert len(pg.search_substring("UserNam", "s", 10)) == 1
    assert pg.search_substring("100%_", None, 10) == []  # LIKE wildcards in the text are literal


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.json"))[:4] if CORPUS else [], ids=lambda p: p.stem)
def test_engine_conformance_on_postgres(path: Path, tmp_path: Path, storage: StorageConfig) -> None:
    factory = engine_factory(LCMEngine, tmp_path, settings=LCMSettings(), config=HermesConfig(storage=storage))
    problems = check_engine(factory, load_transcript(path).messages, 16_000)
    assert not problems, "\n".join(problems)


HOLDER = textwrap.dedent("""
    import sys, time
    from hermes_context_lcm.engine import LCMEngine
    from hermes_context_lcm.settings import LCMSettings
    from hermes_core.config.models import HermesConfig, StorageConfig
    from hermes_core.plugin.context import PluginContext
    storage = StorageConfig(backend="postgres", dsn_env=sys.argv[1], namespace=sys.argv[2])
    ctx = PluginContext(home=__import__("pathlib").Path(sys.argv[3]), config=HermesConfig(storage=storage),
                        settings=LCMSettings())
    engine = LCMEngine(ctx)
    engine.on_session_start("shared-session")
    engine.compress([{"role": "user", "content": "hello from another host"}])
    print(engine.session_id, flush=True)
    sys.stdin.read()
""")


def _engine(tmp_path: Path, storage: StorageConfig) -> LCMEngine:
    from hermes_core.plugin.context import PluginContext

    return LCMEngine(PluginContext(home=tmp_path, config=HermesConfig(storage=storage), settings=LCMSettings()))


def test_one_live_engine_per_session_across_hosts(tmp_path: Path, storage: StorageConfig) -> None:
    from hermes_core.testing.postgres import DSN_ENV

    other = subprocess.Popen([sys.executable, "-c", HOLDER, DSN_ENV, storage.namespace, str(tmp_path / "h1")],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "shared-session"
        here = _engine(tmp_path / "h2", storage)  # another host: its own home, so no shared lock files
        here.on_session_start("shared-session")
        here.compress([{"role": "user", "content": "hello from this host"}])
        assert here.session_id == "shared-session#concurrent-2"
        here.close()
    finally:
        other.kill()
        other.wait(timeout=10)
    # The holder died: its lock goes with its connection, as soon as the server sees the socket close.
    deadline = time.monotonic() + 20
    while True:
        again = _engine(tmp_path / "h3", storage)
        again.on_session_start("shared-session")
        again.compress([{"role": "user", "content": "and again"}])
        taken, name = again.session_id == "shared-session", again.session_id
        again.close()
        if taken or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert taken, name


def test_structured_queries_scope_by_session_and_role(storage: StorageConfig) -> None:
    """The structured query form (groups of must / must_not terms) with session and role scope."""
    from hermes_context_lcm.query import Group, Term
    from hermes_context_lcm.query import TextQuery as Query

    pg = PgStore(storage)
    a = pg.append("a", [{"role": "user", "content": "the migration failed"},
                        {"role": "tool", "content": "migration failed: disk full"}])
    b = pg.append("b", [{"role": "user", "content": "migration worked"}])
    query = Query((Group((Term("migration"),), (Term("full"),)),))
    assert pg.search_messages(query, limit=10) == [b[0], a[0]]
    assert pg.search_messages(query, limit=10, session_id="a") == [a[0]]
    prefix = Query((Group((Term("migr", prefix=True),)),))
    assert pg.search_messages(prefix, limit=10, session_id="a", role="tool") == [a[1]]
    assert pg.search_messages(Query((Group((Term("failed migration"),)), Group((Term("worked"),)))), limit=10) == [b[0]]


def test_text_postgresql_cannot_hold_still_round_trips(storage: StorageConfig, tmp_path: Path) -> None:
    """NUL bytes, lone surrogates, a word longer than a tsvector takes, a text larger than one."""
    from hermes_context_lcm.dag import NewSummary

    odd = [{"role": "tool", "tool_call_id": "c1", "content": "nul\x00byte"},
           {"role": "user", "content": "lone \ud800 surrogate", "name": "x\ud83d"},
           {"role": "tool", "content": "key " + "Q" * 5000 + " tail"},
           {"role": "tool", "content": " ".join(f"w{i}" for i in range(300_000))},
           {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "type": "function", "function": {
               "name": "run", "arguments": "{\"cmd\": \"echo \\u0000\"}"}}]}]
    pg = PgStore(storage)
    ids = pg.append("odd", odd)
    assert [m.message() for m in pg.get_messages(ids)] == odd
    # exactly the codec's two values, as SQLite holds them (surrogate content as bytes, NUL text as text)
    assert [(m.content, m.meta) for m in pg.get_messages(ids)] == [encode_message(m) for m in odd]
    assert pg.search_messages(parse_query("tail"), limit=5) == [ids[2]]
    assert pg.search_messages(parse_query("w299999"), limit=5) == []
    assert pg.search_messages(parse_query("surrogate"), limit=5) == [ids[1]]
    sid = pg.add_summary(NewSummary(session_id="odd", depth=0, content="sum \x00 \udc80", hint="h", tokens=1,
                                    source="deterministic", covers_kind="messages", covers=ids, first_message=ids[0],
                                    last_message=ids[-1], message_count=len(ids)))
    assert pg.get_summaries([sid])[0].content == "sum \x00 \ufffd"  # as SQLite keeps a summary: storable text


def test_content_identity_is_the_sqlite_stores(storage: StorageConfig, tmp_path: Path,
                                               transcripts: dict[str, list[dict[str, Any]]]) -> None:
    """Re-ingest stores nothing twice; the same text at another point is a new row; parents as in SQLite."""
    sqlite, pg = SQLiteStore(tmp_path / "lcm.db"), PgStore(storage)
    ok, sure = {"role": "user", "content": "ok"}, {"role": "assistant", "content": "sure"}
    calls: list[tuple[str, list[dict[str, Any]], list[int | None] | None]] = [
        ("s", [ok, sure, ok, ok], None), ("s", [ok, sure, ok, ok], [0, None, None, None]),
        ("s", [ok, {"role": "assistant", "content": "sure!"}, ok], [0, None, None]), ("t", [ok, ok], None)]
    name, messages = next(iter(transcripts.items()))
    calls += [(name, messages, None), (name, messages, [0] + [None] * (len(messages) - 1)),
              (name, messages[:30], [0] + [None] * 29)]
    for session, batch, parents in calls:
        here = [(m.session_id, m.seq) for m in sqlite.get_messages(sqlite.append(session, batch, parents))]
        there = [(m.session_id, m.seq) for m in pg.get_messages(pg.append(session, batch, parents))]
        assert there == here, session
    assert pg.session_size(name) == sqlite.session_size(name) == len(messages)
    assert pg.stats(None)["messages_total"] == sqlite.stats(None)["messages_total"]
    sqlite.close()


def test_session_ids_and_roles_postgresql_text_refuses_round_trip(storage: StorageConfig, tmp_path: Path) -> None:
    """NUL, a lone surrogate, and a value that looks like the store's own encoding of one: each
    is stored, found by session and role, and read back exactly; none is taken for another."""
    from hermes_context_lcm.dag import NewSummary
    from hermes_context_lcm.pg_store import KEY_ESCAPE, key_to_pg
    from hermes_context_lcm.pg_transfer import to_postgres, to_sqlite

    pg = PgStore(storage)
    odd = ["nul\x00id", "lone \ud800 id", key_to_pg("nul\x00id"), KEY_ESCAPE, "plain"]
    ids: dict[str, list[int]] = {}
    for n, sid in enumerate(odd):
        batch = [{"role": "to\x00ol", "content": f"needle{n} here"}, {"role": "user", "content": "hi"}]
        ids[sid] = pg.append(sid, batch)
        assert pg.append(sid, batch, [0, None]) == ids[sid]  # its identity is found again
        stored = pg.session_messages(sid, limit=10)
        assert [m.message() for m in stored] == batch
        assert [(m.session_id, m.role) for m in stored] == [(sid, "to\x00ol"), (sid, "user")]
        assert pg.session_size(sid) == 2 and pg.stats(sid)["messages_session"] == 2
        assert pg.search_messages(parse_query(f"needle{n}"), session_id=sid, role="to\x00ol", limit=5) == [ids[sid][0]]
        assert pg.search_substring(f"needle{n}", sid, 5) == [ids[sid][0]]
        pg.save_layout(sid, {"n": n}, ids[sid][-1])
        assert pg.load_layout(sid) == ({"n": n}, ids[sid][-1])
        pg.add_summary(NewSummary(session_id=sid, depth=0, content=f"sum {n}", hint="", tokens=1, source="t",
                                  covers_kind="messages", covers=ids[sid], first_message=ids[sid][0],
                                  last_message=ids[sid][-1], message_count=2))
        assert [s.session_id for s in pg.roots(sid)] == [sid]
    assert len({m for sid in odd for m in ids[sid]}) == 2 * len(odd)
    # files -> postgres -> files keeps them, a lone surrogate in a session id or a role included
    roles = ["to\x00ol", "lone \udfff role"]
    sqlite = SQLiteStore(tmp_path / "src.db")
    for sid in odd:
        sqlite.append(sid, [{"role": role, "content": "x"} for role in roles])
    sqlite.close()
    back = PgStore(storage.model_copy(update={"namespace": storage.namespace + "-copy"}))
    assert to_postgres(tmp_path / "src.db", back).verified
    assert [(m.session_id, m.role) for m in back.session_messages("lone \ud800 id")] == [
        ("lone \ud800 id", role) for role in roles]
    assert to_sqlite(back, tmp_path / "back.db").verified
    again = SQLiteStore(tmp_path / "back.db")
    assert [(m.session_id, m.role) for sid in odd for m in again.session_messages(sid)] == [
        (sid, role) for sid in odd for role in roles]
    assert again.search_messages(parse_query("x"), session_id="lone \ud800 id", role="lone \udfff role")
    again.close()
    # and straight from PostgreSQL to a new file: the session PostgreSQL alone can name
    assert to_sqlite(pg, tmp_path / "direct.db").verified
    direct = SQLiteStore(tmp_path / "direct.db")
    assert [m.message() for m in direct.session_messages("lone \ud800 id")] == [
        {"role": "to\x00ol", "content": "needle1 here"}, {"role": "user", "content": "hi"}]
    assert [s.session_id for s in direct.roots("lone \ud800 id")] == ["lone \ud800 id"]
    assert direct.load_layout("lone \ud800 id") == ({"n": 1}, ids["lone \ud800 id"][-1])
    direct.close()


def test_ranking_reads_word_positions_only_where_they_are_complete(storage: StorageConfig, tmp_path: Path) -> None:
    """BM25 counts a word's instances from the search vector's positions, which PostgreSQL caps
    (256 per word, position 16383): texts past a cap are re-tokenized, so the order stays SQLite's."""
    texts = ["alpha " * 300, "alpha " * 270 + "beta", "alpha " * 260 + "beta " * 2, "alpha beta " * 5,
             "filler " * 17000 + "beta " * 3 + "alpha", "filler " * 17000 + "beta alpha beta", "beta " * 4]
    sqlite, pg = SQLiteStore(tmp_path / "rank.db"), PgStore(storage)
    for n, text in enumerate(texts):
        sqlite.append(f"r{n}", [{"role": "user", "content": text}])
        pg.append(f"r{n}", [{"role": "user", "content": text}])
    for query in ("alpha", "beta", "alp*", "alpha beta"):  # (a phrase past position 16383 is not found)
        orders = [[s.get_messages([i])[0].session_id for i in s.search_messages(parse_query(query), limit=10)]
                  for s in (sqlite, pg)]
        assert orders[1] == orders[0], query
    sqlite.close()


def test_a_rare_word_never_walks_the_whole_table(both: tuple[SQLiteStore, PgStore], monkeypatch: Any,
                                                 transcripts: dict[str, list[dict[str, Any]]]) -> None:
    """PostgreSQL plans ``ORDER BY id DESC LIMIT n`` as a filtered walk down the primary key once a
    table is large; for a word in one message that reads every row (0.6 s at 100k, measured in
    BENCHMARKS.md; this small store is planned differently, so the statements are checked): a
    search walks the key only over the newest ``DENSE_WINDOW`` rows, and its results are unchanged."""
    from hermes_context_lcm import pg_store

    sqlite, pg = both
    seen: dict[str, int] = {}
    for messages in transcripts.values():
        for word in {w for m in messages for w in re.findall(r"\b[a-z]{9,}\b", str(m.get("content") or ""))}:
            seen[word] = seen.get(word, 0) + 1
    rare = next(w for w in sorted(seen) if seen[w] == 1 and len(sqlite.search_messages(parse_query(w), limit=9)) == 1)
    issued: list[str] = []
    real = pg._rows
    monkeypatch.setattr(pg, "_rows", lambda sql, params: issued.append(sql) or real(sql, params))
    holder = sqlite.get_messages(sqlite.search_messages(parse_query(rare), limit=1))[0].session_id
    for session in (None, holder, "elsewhere"):
        issued.clear()
        found = [(m.session_id, m.seq) for m in pg.get_messages(
            pg.search_messages(parse_query(rare), session_id=session, limit=10))]
        assert found == [(m.session_id, m.seq) for m in sqlite.get_messages(
            sqlite.search_messages(parse_query(rare), session_id=session, limit=10))]
        assert bool(found) == (session != "elsewhere")
        for sql in issued:
            assert "ORDER BY id DESC" not in sql or f"LIMIT {pg_store.DENSE_WINDOW}) AS recent" in sql, sql

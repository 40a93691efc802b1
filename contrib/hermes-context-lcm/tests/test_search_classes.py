"""Full-text search finds what is there: one row per class of text a plain word index misses."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hermes_context_lcm import textindex
from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.query import parse_query
from hypothesis import given, settings
from hypothesis import strategies as st

CALL_ARGS = json.dumps({"path": "src/app/配置.yaml", "pattern": "retryBackoffMillis"})  # \\u-escaped CJK
#: (class, stored text or message, query): each query must find its message.
TABLE: list[tuple[str, Any, str]] = [
    ("chinese", "请把番茄钟的计时器改成二十五分钟", "计时器"),
    ("chinese, two characters", "请把番茄钟的计时器改成二十五分钟", "番茄"),
    ("japanese", "データベースの接続に失敗しました", "接続"),
    ("japanese katakana", "データベースの接続に失敗しました", "データベース"),
    ("korean", "데이터베이스를 다시 시작했습니다", "데이터베이스"),
    ("camelCase part", "then call getUserNameFromDb() before saving", "UserName"),
    ("camelCase single part", "then call getUserNameFromDb() before saving", "Db"),
    ("camelCase prefix", "then call getUserNameFromDb() before saving", "getUser*"),
    ("snake_case part", "set max_retry_count to 3 in the config", "retry"),
    ("snake_case whole", "set max_retry_count to 3 in the config", "max_retry_count"),
    ("dotted version inside v", "upgraded the parser to v1.2.3 yesterday", "1.2.3"),
    ("dotted version whole", "upgraded the parser to v1.2.3 yesterday", "v1.2.3"),
    ("version after a name", "needs python3.11 or later", "3.11"),
    ("emoji", "deploy done \u2705 \U0001f680 ship it", "\U0001f680"),
    ("emoji with text", "deploy done \u2705 \U0001f680 ship it", "done \u2705"),
    ("tool-call arguments", {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": CALL_ARGS}}]}, "配置"),
    ("tool-call argument part", {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": CALL_ARGS}}]}, "Backoff"),
    ("tool-call object arguments", {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c2", "type": "function", "function": {"name": "grep", "arguments": {"q": "zebraFish"}}}]}, "fish"),
    ("plain word", "the migration failed on the staging database", "migration"),
    ("phrase", "the migration failed on the staging database", '"migration failed"'),
]
FILLER = ["the parser works now", "version 2 of the tool", "user name checks", "retrying later", "ok"]


@pytest.fixture
def engine(make_engine: Any) -> LCMEngine:
    eng: LCMEngine = make_engine()
    eng.on_session_start("classes")
    return eng


@pytest.mark.parametrize(("label", "stored", "query"), TABLE, ids=[row[0] for row in TABLE])
def test_grep_finds_each_class(engine: LCMEngine, label: str, stored: Any, query: str) -> None:
    message = stored if isinstance(stored, dict) else {"role": "user", "content": stored}
    filler = [{"role": "user", "content": text} for text in FILLER]
    [*_, target_id] = engine.store.append("classes", [*filler, message])
    result = json.loads(engine.handle_tool_call("lcm_grep", {"pattern": query}) or "{}")
    assert "error" not in result, result
    found = [r["id"] for r in result["results"] if r["type"] == "message"]
    assert f"msg_{target_id}" in found, (label, result)
    assert len(found) <= 2, (label, result)  # and not everything else


def test_ranking_is_bm25_then_newest_first(engine: LCMEngine) -> None:
    ids = engine.store.append("classes", [
        {"role": "user", "content": "zebra " * 5 + "in a short note"},
        {"role": "user", "content": "one zebra among many other words " + "filler " * 80},
        {"role": "user", "content": "zebra " * 5 + "in a short note"},
    ])
    ranked = engine.store.search_messages(parse_query("zebra"), limit=10)
    assert ranked == [ids[2], ids[0], ids[1]]  # dense short ones first; the two equal ones newest first


@pytest.mark.parametrize("pattern", ["a AND AND b", "NOT a", "a OR", '"unclosed', "a NOT NOT b", "OR b"])
def test_malformed_queries_get_a_clear_error_without_internals(engine: LCMEngine, pattern: str) -> None:
    engine.store.append("classes", [{"role": "user", "content": "a b"}])
    result = json.loads(engine.handle_tool_call("lcm_grep", {"pattern": pattern}) or "{}")
    error = result["error"]
    assert error.startswith(f"malformed query {pattern!r}") and "AND / OR / NOT" in error
    assert not re.search(r"\bs[0-9a-f]{16}\b|body :|meta :|fts5|sqlite|syntax error", error), error


def test_operators_work(engine: LCMEngine) -> None:
    a, b, c = engine.store.append("classes", [{"role": "user", "content": "alpha beta"},
                                              {"role": "user", "content": "alpha gamma"},
                                              {"role": "user", "content": "delta"}])
    def ids(pattern: str) -> set[int]:
        return set(engine.store.search_messages(parse_query(pattern), limit=10))
    assert ids("alpha NOT beta") == {b}
    assert ids("alpha AND gamma") == ids("alpha gamma") == {b}
    assert ids("beta OR delta") == {a, c}


def test_regex_pages_through_the_whole_store_with_a_cursor(engine: LCMEngine) -> None:
    rows = [{"role": "user", "content": f"row {i}" + (" RARE-TOKEN" if i % 3000 == 7 else "")} for i in range(12_000)]
    engine.store.append("classes", rows)
    found: list[str] = []
    cursor = 0
    for _ in range(50):
        page = json.loads(engine.handle_tool_call("lcm_grep", {"pattern": "RARE-TOKEN", "mode": "regex",
                                                               "target": "messages", "cursor": cursor}) or "{}")
        found += [r["id"] for r in page["results"]]
        if page["next_cursor"] is None:
            assert page["complete"] is True
            break
        cursor = page["next_cursor"]
    assert len(found) == 4 and len(set(found)) == 4  # every one, none twice
    first = json.loads(engine.handle_tool_call("lcm_grep", {"pattern": "RARE-TOKEN", "mode": "regex",
                                                            "target": "messages"}) or "{}")
    assert first["count"] == 4 and first["complete"] and first["scanned"] == 12_000  # no 5,000-row cap per call


def _parts_by_every_run(text: str) -> str:
    """The parts column with no prefilter: every distinct run through ``_run_parts``."""
    return "\n".join(filter(None, map(textindex._run_parts, dict.fromkeys(textindex._ASCII_RUN.findall(text)))))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aZbY09_.-:/@+ xHTTPServer2v1.2.3getUserName\n", max_size=80))
def test_the_parts_prefilter_skips_only_runs_of_one_part(text: str) -> None:
    assert textindex.parts_text(text) == _parts_by_every_run(text)


def test_the_parts_prefilter_on_the_corpus(corpus_messages: Any) -> None:
    texts = [json.dumps(m, ensure_ascii=False) for msgs in corpus_messages.values() for m in msgs]
    assert [textindex.parts_text(t) for t in texts] == [_parts_by_every_run(t) for t in texts]

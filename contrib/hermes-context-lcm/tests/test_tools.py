"""lcm_grep / lcm_describe / lcm_expand: JSON results, paging, and clear errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.query import parse_query
from hermes_context_lcm.store import fts_match
from hermes_context_lcm.tools import TOOL_SCHEMAS, first_place
from hermes_summarizers.deterministic import DeterministicSummarizer
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.config.models import HermesConfig
from hermes_core.plugin.context import PluginContext


def call(engine: LCMEngine, name: str, **args: Any) -> dict[str, Any]:
    result = engine.handle_tool_call(name, args)
    assert isinstance(result, str)
    return json.loads(result)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, corpus_messages: Any) -> Iterator[LCMEngine]:
    """One store with two replayed sessions, shared by this module's read-only tests."""
    config = HermesConfig.model_validate({"model": {"context_length": 8000}})
    eng = LCMEngine(PluginContext(home=tmp_path_factory.mktemp("tools"), config=config,
                                  summarizer=DeterministicSummarizer()))
    for session, name in (("django", "mini-swe-agent_deepseek-chat_django-13964"),
                          ("pomodoro", "gemini-cli_ai-sessions_pomodoro")):
        eng.on_session_start(session)
        live: list[dict[str, Any]] = []
        for msg in corpus_messages[name]:
            live.append(msg)
            if msg["role"] != "tool" and not msg.get("tool_calls") and eng.should_compress_preflight(live):
                live = eng.compress(live).messages
        eng.on_session_end(session, live)
    yield eng  # the active session is "pomodoro"
    eng.store.close()


def test_schemas_are_bare_function_objects() -> None:
    assert [s["name"] for s in TOOL_SCHEMAS] == ["lcm_grep", "lcm_describe", "lcm_expand"]
    for schema in TOOL_SCHEMAS:
        assert set(schema) == {"name", "description", "parameters"}
        assert schema["parameters"]["type"] == "object"
    assert TOOL_SCHEMAS[0]["parameters"]["required"] == ["pattern"]


def test_grep_scopes_and_pages(engine: LCMEngine) -> None:
    here = call(engine, "lcm_grep", pattern="timer", target="messages")
    assert here["scope"] == "session" and here["count"] == 10 and here["next_cursor"] == 10
    assert all(r["session_id"] == "pomodoro" for r in here["results"])
    ids = [int(r["id"].removeprefix("msg_")) for r in here["results"]]
    assert len(set(ids)) == 10  # best matches first (BM25); equal ones newest first (see test_store)
    page2 = call(engine, "lcm_grep", pattern="timer", target="messages", cursor=10)
    assert not {r["id"] for r in page2["results"]} & {r["id"] for r in here["results"]}
    everywhere = call(engine, "lcm_grep", pattern="django", scope="all", limit=50)
    assert {r["session_id"] for r in everywhere["results"]} == {"django"}
    assert call(engine, "lcm_grep", pattern="django")["count"] == 0  # not in this session
    tools_only = call(engine, "lcm_grep", pattern="timer", role="tool", limit=50)
    assert tools_only["results"] and all(r["role"] == "tool" for r in tools_only["results"])
    for hit in here["results"]:
        assert "timer" in hit["snippet"].lower()


def test_grep_finds_summaries_and_rare_words(engine: LCMEngine) -> None:
    result = call(engine, "lcm_grep", pattern="pomodoro", target="summaries")
    assert result["results"] and all(r["type"] == "summary" for r in result["results"])
    rare = call(engine, "lcm_grep", pattern="QuerySet", scope="all", target="messages", limit=3)
    assert rare["results"]
    full = call(engine, "lcm_expand", id=rare["results"][0]["id"], max_tokens=50_000)
    assert "queryset" in json.dumps(full["message"]).lower()
    phrase = call(engine, "lcm_grep", pattern='"start button"', scope="all", target="messages")
    assert phrase["results"] and all("start" in r["snippet"].lower() for r in phrase["results"])


def test_grep_regex_mode_pages_with_a_cursor(engine: LCMEngine) -> None:
    result = call(engine, "lcm_grep", pattern=r"def \w+\(", mode="regex", scope="all", target="messages", limit=3)
    assert result["count"] == 3 and result["next_cursor"] and result["scanned"] >= 3
    nxt = call(engine, "lcm_grep", pattern=r"def \w+\(", mode="regex", scope="all", target="messages", limit=3,
               cursor=result["next_cursor"])
    assert nxt["results"] and min(int(r["id"][4:]) for r in result["results"]) > max(int(r["id"][4:])
                                                                                   for r in nxt["results"])


def test_describe_and_expand_walk_the_dag(engine: LCMEngine) -> None:
    overview = call(engine, "lcm_describe")
    assert overview["session_id"] == "pomodoro" and overview["messages_session"] > 0
    root = overview["uncondensed"][0]["id"]
    info = call(engine, "lcm_describe", id=root)
    assert info["hint"].startswith("Expand for details about:") and info["covers"]
    # walk down to raw messages through the tools only
    seen: list[str] = []
    stack = [root]
    while stack:
        current = stack.pop()
        page = 1
        while page:
            out = call(engine, "lcm_expand", id=current, page=page, max_tokens=500)
            for item in out["items"]:
                (stack if item["id"].startswith("sum_") else seen).append(item["id"])
            page = out["next_page"]
    expected = json.loads(json.dumps(info))["message_count"]
    assert len(seen) == expected
    msg = call(engine, "lcm_describe", id=seen[0])
    assert msg["type"] == "message" and "chars" in msg["description"]


@pytest.mark.parametrize(("name", "args", "needle"), [
    ("lcm_expand", {"id": "sum_9999"}, "unknown id 'sum_9999'"),
    ("lcm_expand", {"id": "msg_9999999"}, "unknown id 'msg_9999999'"),
    ("lcm_describe", {"id": "node-3"}, "malformed id 'node-3'"),
    ("lcm_expand", {}, "id: Field required"),
    ("lcm_expand", {"id": "msg_1", "page": 0}, "page: Input should be greater than or equal to 1"),
    ("lcm_expand", {"id": "msg_1", "page": 99}, "page 99 is past the end"),
    ("lcm_grep", {"pattern": ""}, "pattern: String should have at least 1 character"),
    ("lcm_grep", {"pattern": "x", "limit": "many"}, "limit: Input should be a valid integer"),
    ("lcm_grep", {"pattern": "x", "bogus": 1}, "bogus: Extra inputs are not permitted"),
    ("lcm_grep", {"pattern": "(unclosed", "mode": "regex"}, "bad regex"),
    ("lcm_grep", {"pattern": "--- ..."}, "has no searchable words"),
    ("lcm_grep", {"pattern": "x", "scope": "galaxy"}, "scope: Input should be 'session' or 'all'"),
    # ids and cursors past SQLite's INTEGER are unknown, not an OverflowError
    ("lcm_expand", {"id": "msg_99999999999999999999999"}, "unknown id 'msg_99999999999999999999999'"),
    ("lcm_expand", {"id": "sum_9223372036854775808"}, "unknown id 'sum_9223372036854775808'"),
    ("lcm_describe", {"id": "msg_99999999999999999999999"}, "unknown id 'msg_99999999999999999999999'"),
    ("lcm_describe", {"id": "sum_" + "9" * 5000}, "no such summary"),
    ("lcm_grep", {"pattern": "x", "cursor": 2**64}, "cursor: Input should be less than or equal to"),
    ("lcm_grep", {"pattern": "x", "mode": "regex", "cursor": 2**64}, "cursor: Input should be less than or equal to"),
    ("lcm_grep", {"pattern": "a" * 501, "mode": "regex"}, "at most 500 are allowed"),
])
def test_bad_calls_give_clear_json_errors(engine: LCMEngine, name: str, args: dict[str, Any], needle: str) -> None:
    result = call(engine, name, **args)
    assert set(result) == {"error"} and needle in result["error"], result


def test_arguments_that_are_not_an_object(engine: LCMEngine) -> None:
    result = json.loads(engine.handle_tool_call("lcm_grep", "pattern=x") or "{}")  # type: ignore[arg-type]
    assert result == {"error": "invalid arguments for lcm_grep: expected a JSON object, got str"}


def test_not_my_tool_returns_none(engine: LCMEngine) -> None:
    assert engine.handle_tool_call("memory", {}) is None


def test_fts_match_quotes_everything() -> None:
    query = parse_query('foo.bar "exact phrase" pre*')
    assert query.terms == ["foo.bar", "exact phrase", "pre"]
    assert fts_match(query) == ('(parts : "foo\u01c2bar" AND {body parts} : "exact phrase" AND '
                                '{body parts} : "pre"*)')
    assert fts_match(parse_query("getUser*")) == '((body : "getUser"* OR parts : "get\u01c2User"*))'
    assert '"a b"' in fts_match(parse_query('a"b)'))  # a stray quote is a word boundary, never syntax


def test_regex_finds_text_inside_words(engine: LCMEngine) -> None:
    engine.store.append("cjk", [{"role": "user", "content": "请把番茄钟的计时器改成二十五分钟"}])
    words = call(engine, "lcm_grep", pattern="计时器", scope="all", target="messages")
    regex = call(engine, "lcm_grep", pattern="计时器", mode="regex", scope="all", target="messages")
    assert [r["session_id"] for r in words["results"]] == ["cjk"]  # each CJK character is a token
    assert [r["session_id"] for r in regex["results"]] == ["cjk"]


def tools_call(home: Path, name: str, args: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """``hermes-core tools call`` in a real process, bounded so a hang fails instead of blocking."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    env["HERMES_HOME"] = str(home)
    exe = shutil.which("hermes-core")
    cmd = [exe] if exe else [sys.executable, "-m", "hermes_core"]
    return subprocess.run([*cmd, "tools", "call", name, json.dumps(args), "--engine", "lcm"], env=env,
                          capture_output=True, text=True, timeout=30, cwd=home)


def test_catastrophic_regex_is_bounded(tmp_path: Path) -> None:
    engine = LCMEngine(PluginContext(home=tmp_path, config=HermesConfig(), summarizer=DeterministicSummarizer()))
    engine.on_session_start("redos")
    engine.on_session_end("redos", [{"role": "user", "content": "a" * 34 + "!"},
                                    {"role": "assistant", "content": "a" * 40 + "!"}])
    engine.store.close()
    started = time.perf_counter()
    exact = tools_call(tmp_path, "lcm_grep", {"pattern": "(a+)+$", "mode": "regex", "scope": "all"})
    assert exact.returncode == 0, exact.stdout + exact.stderr  # it hung at 100% CPU with the stdlib re
    assert json.loads(exact.stdout)["count"] == 0
    worse = tools_call(tmp_path, "lcm_grep", {"pattern": "(a|aa)+$", "mode": "regex", "scope": "all"})
    assert json.loads(worse.stdout) == {
        "error": "regex timed out after 500 ms; simplify the pattern or use full-text mode"}
    assert time.perf_counter() - started < 20


def test_regex_reads_a_bounded_head_of_each_message(tmp_path: Path) -> None:
    engine = LCMEngine(PluginContext(home=tmp_path, config=HermesConfig(), summarizer=DeterministicSummarizer()))
    engine.on_session_start("big")
    engine.on_session_end("big", [{"role": "tool", "tool_call_id": "t", "content": "x " * 100_000 + "NEEDLE"},
                                  {"role": "user", "content": "NEEDLE early"}])
    regex = call(engine, "lcm_grep", pattern="NEED+LE", mode="regex", target="messages")
    words = call(engine, "lcm_grep", pattern="NEEDLE", target="messages")
    engine.store.close()
    assert [r["role"] for r in regex["results"]] == ["user"]  # the 200 kB output is read up to REGEX_ROW_CHARS
    assert sorted(r["role"] for r in words["results"]) == ["tool", "user"]  # full text still sees all of it


def test_regex_call_budget_hands_back_a_cursor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_context_lcm import tools

    engine = LCMEngine(PluginContext(home=tmp_path, config=HermesConfig(), summarizer=DeterministicSummarizer()))
    engine.on_session_start("many")
    engine.on_session_end("many", [{"role": "user", "content": f"row {i} " + "z " * 2000} for i in range(2000)])
    monkeypatch.setattr(tools, "REGEX_CALL_MS", 1)
    first = call(engine, "lcm_grep", pattern="nowhere", mode="regex", target="messages")
    assert 0 < first["scanned"] < 2000 and first["next_cursor"] is not None
    second = call(engine, "lcm_grep", pattern="nowhere", mode="regex", target="messages", cursor=first["next_cursor"])
    assert second["scanned"] > 0 and (second["next_cursor"] or 0) < first["next_cursor"]
    monkeypatch.setattr(tools, "REGEX_CALL_MS", 60_000)
    whole = call(engine, "lcm_grep", pattern=r"row 1999\b", mode="regex", target="messages", limit=1)
    engine.store.close()
    assert whole["count"] == 1 and whole["scanned"] == 1  # newest first


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="abSsTtKkXxé Ǆǅǆſ\u212a.\n_", max_size=120),
       terms=st.lists(st.text(alphabet="abSsTtKkXxé Ǆǅǆſ\u212a._", min_size=1, max_size=6), min_size=1, max_size=3))
def test_snippet_place_is_the_first_case_insensitive_hit(text: str, terms: list[str]) -> None:
    words = sorted({*terms, *(w for t in terms for w in re.findall(r"\w+", t))}, key=len, reverse=True)
    for text_now in (text, text.encode("ascii", "ignore").decode()):  # the ASCII road too
        found = re.search("|".join(map(re.escape, words)), text_now, re.IGNORECASE)
        assert first_place(text_now, tuple(terms)) == (found.start() if found else 0)
        ascii_terms = tuple(t.encode("ascii", "ignore").decode() or "a" for t in terms)
        ascii_words = sorted({*ascii_terms, *(w for t in ascii_terms for w in re.findall(r"\w+", t))}, key=len,
                             reverse=True)
        found = re.search("|".join(map(re.escape, ascii_words)), text_now, re.IGNORECASE)
        assert first_place(text_now, ascii_terms) == (found.start() if found else 0)

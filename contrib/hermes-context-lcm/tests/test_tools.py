"""lcm_grep / lcm_describe / lcm_expand: JSON results, paging, and clear errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.tools import TOOL_SCHEMAS, fts_expression

from hermes_core.config import HermesConfig
from hermes_core.plugin_context import PluginContext
from hermes_core.summary_client import DeterministicSummarizer


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
                live = eng.compress(live)
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
    assert ids == sorted(ids, reverse=True)  # newest first
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
])
def test_bad_calls_give_clear_json_errors(engine: LCMEngine, name: str, args: dict[str, Any], needle: str) -> None:
    result = call(engine, name, **args)
    assert set(result) == {"error"} and needle in result["error"], result


def test_arguments_that_are_not_an_object(engine: LCMEngine) -> None:
    result = json.loads(engine.handle_tool_call("lcm_grep", "pattern=x") or "{}")  # type: ignore[arg-type]
    assert result == {"error": "invalid arguments for lcm_grep: expected a JSON object, got str"}


def test_not_my_tool_returns_none(engine: LCMEngine) -> None:
    assert engine.handle_tool_call("memory", {}) is None


def test_fts_expression_quotes_everything() -> None:
    assert fts_expression('foo.bar "exact phrase" pre* OR NOT') == ('"foo.bar" "exact phrase" "pre"*', [
        "foo.bar", "exact phrase", "pre"])
    expr, _ = fts_expression('a"b) AND')
    assert expr == '"a""b)"'


def test_regex_finds_text_inside_words(engine: LCMEngine) -> None:
    engine.store.append("cjk", [{"role": "user", "content": "请把番茄钟的计时器改成二十五分钟"}])
    words = call(engine, "lcm_grep", pattern="计时器", scope="all", target="messages")
    regex = call(engine, "lcm_grep", pattern="计时器", mode="regex", scope="all", target="messages")
    assert words["count"] == 0  # one unbroken run of CJK is a single full-text token
    assert [r["session_id"] for r in regex["results"]] == ["cjk"]

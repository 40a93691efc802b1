"""The turn flow: fencing, prompt stability, hook order, tools, compaction, lifecycle."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hermes_core.memory.fencing import FENCE_OPEN
from hermes_core.session.session import INTERRUPTED_TOOL_RESULT, Session, SessionError
from hermes_core.text.messages import api_problems


def call(cid: str, name: str, args: Any = "{}") -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def tool_reply(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


@pytest.fixture
def session(make_host: Any, recorder: type) -> Session:
    host = make_host(providers={"recorder": recorder}, **{"memory.provider": "recorder"})
    return Session(host, session_id="s1")


def test_recall_is_fenced_on_the_request_copy_only(session: Session) -> None:
    request = session.start_turn("what do I drink?")
    user = request.messages[-1]
    assert user["role"] == "user"
    assert user["content"].startswith("what do I drink?\n\n" + FENCE_OPEN)
    assert "the user prefers tea" in user["content"]
    assert FENCE_OPEN not in request.messages[0]["content"]  # never in the system prompt
    assert session.messages == [{"role": "user", "content": "what do I drink?"}]
    # Every request of the turn carries the same recall; the history never does.
    calls = session.add_response(tool_reply(call("c1", "recall_search")), {"prompt_tokens": 50})
    session.run_tool(calls[0])
    again = session.request()
    assert again.messages[1] == request.messages[1]
    assert all(FENCE_OPEN not in str(m.get("content")) for m in session.messages)


def test_multimodal_user_message_gets_a_text_part(session: Session) -> None:
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:,"}}]
    request = session.start_turn(parts)
    content = request.messages[-1]["content"]
    assert content[:2] == parts and content[2]["type"] == "text" and FENCE_OPEN in content[2]["text"]
    assert session.messages[-1]["content"] == parts


def test_hooks_fire_in_the_seed_order(session: Session, recorder: type) -> None:
    session.start_turn("hello")
    calls = session.add_response(tool_reply(call("c1", "recall_search", {"q": "x"})), {"prompt_tokens": 10})
    assert calls[0]["function"]["arguments"] == '{"q": "x"}'  # dict arguments become JSON text
    session.run_tool(calls[0])
    session.request()
    assert not [e for e in recorder.log if e[0] == "sync_turn"]  # not after a tool-calling reply
    session.add_response("hi there", {"prompt_tokens": 20})
    session.host.memory.flush_pending(5)
    names = [e[0] for e in recorder.log]
    assert names == ["initialize", "on_turn_start", "prefetch", "tool", "sync_turn", "queue_prefetch"]
    assert ("sync_turn", "hello", "hi there") in recorder.log
    assert ("on_turn_start", 1, "hello") in recorder.log


def test_system_prompt_is_built_once(session: Session, recorder: type) -> None:
    first = session.start_turn("one").messages[0]["content"]
    assert "recorder block #1" in first
    for n in range(5):
        session.add_response(f"reply {n}", {"prompt_tokens": 10})
        assert session.start_turn(f"next {n}").messages[0]["content"] == first
    assert [reason for _turn, reason in session.events.system_prompt_builds] == ["start"]


def test_tools_are_wrapped_and_routed(session: Session, recorder: type) -> None:
    request = session.start_turn("hi")
    names = [t["function"]["name"] for t in request.tools]
    assert all(t["type"] == "function" for t in request.tools)
    assert names == ["memory", "recall_search"]
    calls = session.add_response(tool_reply(call("a", "recall_search"), call("b", "no_such_tool"),
                                            call("c", "memory", "{not json")))
    results = [json.loads(session.run_tool(c)) for c in calls]
    assert results[0] == {"found": 1}
    assert "Unknown tool 'no_such_tool'" in results[1]["error"]
    assert "Invalid JSON" in results[2]["error"]
    assert api_problems(session.request().messages) == []


def test_memory_tool_write_is_recorded_and_durable(session: Session, recorder: type, hermes_home: Any) -> None:
    session.start_turn("remember I use vim")
    args = json.dumps({"action": "add", "target": "user", "content": "Uses vim"})
    (c,) = session.add_response(tool_reply(call("m1", "memory", args)))
    assert json.loads(session.run_tool(c))["success"] is True
    # the recorder recalled memory this turn, so the write is marked (memory.untrusted_writes: allow)
    assert session.events.memory_writes == [{"turn": 1, "action": "add", "target": "user", "untrusted_context": True}]
    assert ("on_memory_write", "add", "user", "Uses vim") in recorder.log
    assert "Uses vim" in (hermes_home / "memories" / "USER.md").read_text()
    # Frozen snapshot: the prompt of this session does not show the write.
    assert "Uses vim" not in session.request().messages[0]["content"]


def test_protocol_errors_leave_state_unchanged(session: Session) -> None:
    with pytest.raises(SessionError):
        session.add_response("nobody asked")
    session.start_turn("go")
    session.add_response(tool_reply(call("x", "recall_search")))
    before = list(session.messages)
    with pytest.raises(SessionError, match="no result yet"):
        session.request()
    with pytest.raises(SessionError, match="no open tool call"):
        session.add_tool_result("nope", "{}")
    write = json.dumps({"action": "add", "target": "memory", "content": "must not be written"})
    with pytest.raises(SessionError, match="no open tool call"):
        session.run_tool(call("stale", "memory", write))
    assert not session.events.memory_writes
    with pytest.raises(SessionError):
        session.add_response({"role": "user", "content": "bad"})
    assert session.messages == before


def test_interrupted_turn_is_closed_and_user_messages_merge(session: Session) -> None:
    session.start_turn("first")
    session.add_response(tool_reply(call("x", "recall_search")))
    request = session.start_turn("second")  # the user gave up waiting
    assert {"role": "tool", "tool_call_id": "x", "content": INTERRUPTED_TOOL_RESULT} in session.messages
    assert api_problems(request.messages) == []
    session2_request = session.start_turn("third, no reply to second")
    assert session.messages[-1]["content"] == "second\n\nthird, no reply to second"
    assert api_problems(session2_request.messages) == []


def test_duplicate_and_missing_call_ids_are_made_unique(session: Session) -> None:
    session.start_turn("go")
    first = session.add_response(tool_reply(call("dup", "recall_search")))
    session.run_tool(first[0])
    session.request()
    second = session.add_response(tool_reply(call("dup", "recall_search"), {"function": {"name": "recall_search"}}))
    assert second[0]["id"] != "dup" and second[1]["id"]
    for c in second:
        session.run_tool(c)
    assert api_problems(session.request().messages) == []


def test_usage_missing_falls_back_to_the_estimate(make_host: Any, tail_engine: type) -> None:
    host = make_host(engines={"tail": tail_engine}, **{"context.engine": "tail", "model.context_length": 2000})
    session = Session(host)
    request = session.start_turn("x" * 200)
    session.add_response(tool_reply(call("a", "memory", '{"action": "read"}')), None)
    assert host.engine.calls[-1] == ("should_compress", request.estimated_tokens)
    session.run_tool(session.messages[-1]["tool_calls"][0])
    assert api_problems(session.request().messages) == []


def test_compaction_rebuilds_the_prompt_and_keeps_the_history_valid(
    make_host: Any, tail_engine: type, recorder: type
) -> None:
    host = make_host(engines={"tail": tail_engine}, providers={"recorder": recorder},
                     **{"context.engine": "tail", "memory.provider": "recorder", "model.context_length": 4000})
    session = Session(host)
    prompts = set()
    for n in range(12):
        request = session.start_turn(f"step {n} " + "y" * 800)
        prompts.add(request.messages[0]["content"])
        assert api_problems(request.messages) == []
        (c,) = session.add_response(tool_reply(call(f"c{n}", "recall_search")), {"prompt_tokens": 100})
        session.add_tool_result(c["id"], "z" * 800)
        request = session.request()
        prompts.add(request.messages[0]["content"])
        session.add_response(f"done {n}", {"prompt_tokens": request.estimated_tokens})
    compactions = len(session.events.compactions)
    assert compactions >= 2
    assert len(prompts) == compactions + 1  # one prompt per compaction, none in between
    assert "KEEP-THIS" in session.messages[0]["content"]  # on_pre_compress reached the summary
    assert {c.trigger for c in session.events.compactions} <= {"preflight", "post-response"}
    report = session.compact(focus_topic="vim")
    assert report is not None and report.forced
    assert session.events.compactions[-1].trigger == "manual"


def test_invalid_engine_output_is_ignored(make_host: Any, tail_engine: type) -> None:
    class Broken(tail_engine):  # type: ignore[misc, valid-type]
        def compress(self, messages, current_tokens=None, focus_topic=None, force=False):  # type: ignore[no-untyped-def]
            return [{"role": "assistant", "content": "I ate the conversation"}, *messages]

    host = make_host(engines={"tail": Broken}, **{"context.engine": "tail"})
    session = Session(host)
    session.start_turn("hello")
    before = list(session.messages)
    assert session.compact() is None
    assert session.messages == before
    assert session.events.repairs


def test_delegation_reset_and_close(session: Session, recorder: type) -> None:
    session.start_turn("delegate")
    session.on_delegation("find the bug", "it is in foo.py")
    assert ("on_delegation", "find the bug", "it is in foo.py") in recorder.log
    session.add_response("ok")
    session.reset(session_id="s2")
    assert session.id == "s2" and session.messages == [] and session.turn == 0
    assert ("on_session_end", "s1", 2) in recorder.log and ("initialize", "s2") in recorder.log
    session.start_turn("again")
    session.close()
    session.close()  # idempotent
    assert recorder.log[-2:] == [("on_session_end", "s2", 1), ("shutdown",)]
    with pytest.raises(SessionError, match="closed"):
        session.start_turn("too late")


def test_nudge_goes_on_the_request_copy(make_host: Any) -> None:
    host = make_host(**{"memory.nudge_interval": 2, "memory.flush_min_turns": 0})
    session = Session(host)
    nudged = []
    for n in range(1, 5):
        request = session.start_turn(f"turn {n}")
        nudged.append(request.messages[-1]["content"] != f"turn {n}")
        session.add_response("ok")
    assert nudged == [False, True, False, True]
    assert all(m["content"] in (f"turn {n}" for n in range(1, 5)) or m["content"] == "ok" for m in session.messages)


def test_open_builds_a_host_from_config(hermes_home: Any) -> None:
    (hermes_home / "config.yaml").write_text("model:\n  context_length: 9000\n")
    with Session.open(home=hermes_home) as session:
        assert session.host.config.model.context_length == 9000
        session.start_turn("hi")
    assert session.closed


def test_preflight_counts_the_tool_schemas(make_host: Any, tail_engine: type) -> None:
    """Without the tools' weight the estimate stays under the threshold and nothing compacts."""
    host = make_host(engines={"tail": tail_engine}, **{"context.engine": "tail", "model.context_length": 4000})
    session = Session(host)
    tool_tokens = len(json.dumps(session.tools)) // 4
    assert tool_tokens > 300  # the built-in memory tool's guidance
    for n in range(30):
        session.start_turn(f"{n} " + "w" * 200)
        if session.events.compactions:
            break
        session.add_response("v" * 200)
    assert session.events.compactions and session.events.compactions[0].trigger == "preflight"
    # history alone was well under the 2,000-token threshold: only the tools' weight tipped it
    assert session.events.compactions[0].report.tokens_before < 2000 - tool_tokens + 100


def test_is_host_tool(session: Session) -> None:
    assert session.is_host_tool("memory") and session.is_host_tool("recall_search")
    assert not session.is_host_tool("bash")


def test_compaction_note_appears_after_a_compaction_and_goes_with_reset(make_host: Any, tail_engine: type) -> None:
    from hermes_core.session.prompt import COMPACTION_NOTE

    host = make_host(engines={"tail": tail_engine}, **{"context.engine": "tail"})
    session = Session(host)
    session.start_turn("a")
    session.add_response("b")
    assert COMPACTION_NOTE not in session.start_turn("c").messages[0]["content"]
    assert session.compact() is not None
    assert COMPACTION_NOTE in session.request().messages[0]["content"]
    session.reset()
    assert COMPACTION_NOTE not in session.start_turn("d").messages[0]["content"]

"""Property: whatever the agent does, every request is API-valid and the history stays clean."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_core.memory.fencing import FENCE_OPEN
from hermes_core.session.session import Session, SessionError
from hermes_core.text.messages import api_problems

ALL = ("turn", "reply", "tools", "own_tool", "host_tool", "request", "compact", "reset")


def valid_actions(session: Session) -> tuple[str, ...]:
    """What a well-behaved agent may do now (plus interrupting with a new turn, always allowed)."""
    if session.open_tool_calls():
        return ("own_tool", "host_tool", "turn", "compact", "reset")
    if session.awaiting_response():
        return ("reply", "tools", "tools", "request", "turn")
    return ("turn", "turn", "turn", "compact", "reset")


def apply(session: Session, action: str, size: int, n: int) -> None:
    request = None
    if action == "turn":
        request = session.start_turn("u" * size)
    elif action == "reply":
        session.add_response("a" * size, {"prompt_tokens": size} if size % 2 else None)
    elif action == "tools":
        calls = [{"id": f"c{n}-{k}", "type": "function",
                  "function": {"name": ("memory", "bash", "nope")[k % 3], "arguments": json.dumps({"action": "read"})}}
                 for k in range(1 + size % 3)]
        session.add_response({"role": "assistant", "content": "t" * (size // 4), "tool_calls": calls})
    elif action == "own_tool":
        session.add_tool_result(session.open_tool_calls()[0], "o" * size)
        if not session.open_tool_calls():
            request = session.request()
    elif action == "host_tool":
        cid = session.open_tool_calls()[0]
        call = next(c for m in reversed(session.messages) for c in m.get("tool_calls") or () if c["id"] == cid)
        session.run_tool(call)
    elif action == "compact":
        session.compact()
    elif action == "reset":
        session.reset()
    else:
        request = session.request()
    if request is not None:
        assert api_problems(request.messages) == []
        assert FENCE_OPEN not in request.messages[0].get("content", "")


@pytest.mark.parametrize("engine", ["compressor", "tail"])
def test_any_sequence_keeps_requests_valid(engine: str, make_host: Any, tail_engine: type, recorder: type) -> None:
    compacted: list[bool] = []

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        host = make_host(engines={"tail": tail_engine}, providers={"recorder": recorder},
                         **{"context.engine": engine, "memory.provider": "recorder", "model.context_length": 3000})
        session = Session(host)
        for n in range(data.draw(st.integers(0, 40))):
            wild = data.draw(st.integers(0, 9)) == 0  # now and then, an action that breaks the protocol
            action = data.draw(st.sampled_from(ALL if wild else valid_actions(session)))
            size = data.draw(st.integers(0, 2500))
            before = list(session.messages)
            try:
                apply(session, action, size, n)
            except (SessionError, IndexError):
                assert wild and session.messages == before  # only a wild call is refused, and changes nothing
            if not session.open_tool_calls():
                assert api_problems(session.messages) == [], (action, session.messages)
            assert all(FENCE_OPEN not in str(m.get("content")) for m in session.messages)
        compacted.append(bool(session.events.compactions))
        session.close()
        assert api_problems(session.messages) == []

    run()
    assert sum(compacted) >= 5, "too few examples reached a compaction to mean anything"

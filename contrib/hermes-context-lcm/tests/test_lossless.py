"""Losslessness: replay every corpus transcript through a real Session with ``context.engine:
lcm``, then get every original message back, byte for byte, through the tools alone."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from hermes_context_lcm.engine import LCMEngine

from hermes_core.apps.replay import replay, split_turns
from hermes_core.apps.transcripts import load_transcript
from hermes_core.text.messages import text_of


def key(msg: dict[str, Any]) -> tuple[Any, ...]:
    """What must survive exactly (tool-call ids may be renamed by the session when reused)."""
    calls = tuple((c["function"]["name"], c["function"]["arguments"]) for c in msg.get("tool_calls") or ())
    content = msg.get("content")
    return msg["role"], content if isinstance(content, str) or content is None else json.dumps(content), calls


def expected_history(messages: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The messages the session's history receives from this transcript."""
    _instructions, turns, _notes = split_turns(messages)
    out = []
    for turn in turns:
        out.append(key({"role": "user", "content": turn.user}))
        for reply in turn.replies:
            if reply["role"] == "tool":
                out.append(key({"role": "tool", "content": text_of(reply.get("content"))}))
            else:
                out.append(key(reply))
    return out


def fetch(engine: LCMEngine, message_id: int) -> dict[str, Any]:
    """One stored message through lcm_expand, joining its content pages."""
    pages, page, first = [], 1, None
    while page:
        result = json.loads(engine.handle_tool_call("lcm_expand", {"id": f"msg_{message_id}", "page": page}) or "{}")
        first = first or result
        content = result["message"].get("content")
        pages.append(content)
        page = result["next_page"]
    assert first is not None
    message = dict(first["message"])
    if isinstance(message.get("content"), str):
        message["content"] = "".join(pages)
    return {"session_id": first["session_id"], "message": message}


def test_every_corpus_message_comes_back_byte_for_byte(make_host: Any, corpus: list[Path]) -> None:
    expected: dict[str, list[tuple[Any, ...]]] = {}
    system_texts: dict[str, list[str]] = {}
    engine: LCMEngine | None = None
    for path in corpus:
        transcript = load_transcript(path)
        host = make_host(engines={"lcm": LCMEngine}, **{"context.engine": "lcm", "model.context_length": 16_000})
        result = replay(transcript, host, session_id=path.stem)
        assert result.invalid_requests == 0, result.turns
        assert result.compactions > 0 or sum(len(text_of(m.get("content"))) for m in transcript.messages) < 48_000
        expected[path.stem] = expected_history(transcript.messages)
        system_texts[path.stem] = [text_of(m["content"]) for m in transcript.messages if m["role"] == "system"]
        engine = host.engine  # type: ignore[assignment]
    assert engine is not None
    total = json.loads(engine.handle_tool_call("lcm_describe", {}) or "{}")["messages_total"]
    stored: dict[str, list[dict[str, Any]]] = {}
    for message_id in range(1, total + 1):
        got = fetch(engine, message_id)
        stored.setdefault(got["session_id"], []).append(got["message"])
    assert set(stored) == set(expected)
    for session, wanted in expected.items():
        history = [m for m in stored[session] if m["role"] != "system"]
        missing = Counter(wanted) - Counter(key(m) for m in history)
        assert not missing, f"{session}: {sum(missing.values())} message(s) not retrievable, e.g. {next(iter(missing))}"
        prompts = [text_of(m["content"]) for m in stored[session] if m["role"] == "system"]
        for text in system_texts[session]:
            assert any(text in prompt for prompt in prompts), f"{session}: system text not stored"

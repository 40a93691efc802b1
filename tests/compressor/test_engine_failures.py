"""What compress() does when the summary service fails, against a real local server."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hermes_compressor.constants import ANCHOR_SHARE, SUMMARY_PREFIX

from hermes_core.testing.llm_server import Reply, Script, chat_answer, closed_port_url, llm_server
from hermes_core.text.messages import api_problems

Engine = Callable[..., Any]

FAILURES = {
    "timeout": (Reply(200, chat_answer("late"), delay=1.0), "fallback"),
    "500": (Reply(500, "boom"), "fallback"),
    "garbage": (Reply(200, "<html>"), "fallback"),
    "empty": (Reply(200, chat_answer("")), "fallback"),
    "401": (Reply(401, "bad key"), "fallback"),
    "402": (Reply(402, "pay up"), "fallback"),
    "429-forever": (Reply(429, "rate limited"), "fallback"),
}


def summary_of(messages: list[dict[str, Any]]) -> str:
    return next(m["content"] for m in messages if isinstance(m.get("content"), str)
                and m["content"].startswith(SUMMARY_PREFIX))


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_failure_modes(failure: str, make_engine: Engine, convo: Callable[..., Any]) -> None:
    reply, expected = FAILURES[failure]
    messages = convo()
    before = copy.deepcopy(messages)
    with llm_server(Script(reply)) as url:
        engine = make_engine(base_url=url, timeout=0.3, max_retries=1)
        out = engine.compress(messages, force=True).messages
    assert messages == before
    assert expected == "fallback"  # every failure falls back: the window must hold
    assert engine.last_summary_source == "fallback"
    assert "summarizer failed" in engine.last_compaction_note
    assert api_problems(out) == []
    summary = summary_of(out)
    for section in ("## Goal", "## Pending User Asks", "## Relevant Files", "## Tools & Patterns"):
        assert section in summary
    assert "summary service failed" in summary
    assert "src/module_20.py" in summary  # files touched survive the fallback
    assert "read_file x" in summary  # tools called
    assert out[-1] == messages[-1]


def test_not_listening_falls_back_cools_down_and_manual_compact_retries(
        make_engine: Engine, convo: Callable[..., Any]) -> None:
    messages = convo()
    engine = make_engine(base_url=closed_port_url())
    assert engine.compress(messages, force=True).messages is not messages
    assert "connection" in engine.last_compaction_note and engine.last_summary_source == "fallback"
    assert engine.should_compress(engine.threshold_tokens + 1)  # automatic compaction is not paused
    assert engine.compress(messages, current_tokens=engine.threshold_tokens + 1).messages is not messages
    assert "not retried" in engine.last_compaction_note  # cooling down: no new call, still a summary
    with llm_server(Script(Reply(200, chat_answer("## Goal\n- recovered")))) as url:
        engine.ctx.config.auxiliary.base_url = url
        out = engine.compress(messages, force=True).messages
    assert engine.last_summary_source == "llm" and "recovered" in summary_of(out)


def test_llm_success_redacts_before_sending(make_engine: Engine, convo: Callable[..., Any]) -> None:
    messages = convo()
    messages[7]["content"] = "export OPENAI_API_KEY=sk-live-abcdefghijklmnopqrstuvwxyz0123 and postgres://u:pw1234@db/x"
    script = Script(Reply(200, chat_answer("## Goal\n- fix every module")))
    with llm_server(script) as url:
        engine = make_engine(base_url=url)
        out = engine.compress(messages, force=True).messages
    sent = script.requests[0]["json"]["messages"][1]["content"]
    assert "sk-live-abcdefghijklmnopqrstuvwxyz0123" not in sent and "pw1234" not in sent
    assert "[REDACTED]" in sent
    assert engine.last_summary_source == "llm"
    assert "fix every module" in summary_of(out)
    assert len(sent) < 130_000


def test_summarizer_raising_anything_falls_back(make_engine: Engine, convo: Callable[..., Any]) -> None:
    class Exploding:
        name = "exploding"

        def summarize(self, request: Any) -> Any:
            raise ZeroDivisionError("bug in a plugin")

    engine = make_engine(summarizer=Exploding())
    out = engine.compress(convo(), force=True).messages
    assert engine.last_summary_source == "fallback"
    assert "ZeroDivisionError" in summary_of(out)


def test_timeout_cooldown_uses_local_summary_without_calling(make_engine: Engine, convo: Callable[..., Any]) -> None:
    script = Script(Reply(500, "down"))
    with llm_server(script) as url:
        engine = make_engine(base_url=url, max_retries=0)
        engine.compress(convo(), force=True)
        calls = len(script.requests)
        out = engine.compress(convo(), current_tokens=engine.threshold_tokens + 1).messages
    assert len(script.requests) == calls  # cooling down: no new request
    assert engine.last_summary_source == "fallback" and api_problems(out) == []


def test_any_summarizers_runaway_answer_is_capped_and_redacted(make_engine: Engine,
                                                               convo: Callable[..., Any]) -> None:
    class Runaway:
        name = "runaway"

        def summarize(self, request: Any) -> Any:
            from hermes_core.engine.summarizer import SummaryResult

            self.budget = request.budget_tokens
            return SummaryResult(text="## Goal\n- password=hunter2isMyPass\n" + "eyJ" * 70_000, source="llm")

    summarizer = Runaway()
    engine = make_engine(summarizer=summarizer)
    out = engine.compress(convo(), force=True).messages
    summary = summary_of(out)
    assert len(summary) < summarizer.budget * 16 + 2_000 + summarizer.budget * 4 * ANCHOR_SHARE  # + anchor index
    assert "hunter2isMyPass" not in summary and "[summary cut: the model wrote" in summary

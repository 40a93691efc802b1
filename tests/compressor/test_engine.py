"""The compressor's behaviour, one lesson from the field per test."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from hermes_compressor.constants import DUPLICATE_TOOL_OUTPUT, PRUNED_TOOL_PREFIX, SUMMARY_PREFIX, SYSTEM_NOTE
from hermes_compressor.prune import shrink_json_text
from hermes_summarizers.deterministic import DeterministicSummarizer

from hermes_core import CompactionResult
from hermes_core.engine.summarizer import SummaryRequest, SummaryResult
from hermes_core.text.messages import api_problems
from hermes_core.text.tokens import estimate_messages_tokens

Engine = Callable[..., Any]
Convo = Callable[..., list[dict[str, Any]]]


class Spy:
    """A summarizer that records its requests and answers deterministically."""

    name = "spy"

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.requests.append(request)
        return DeterministicSummarizer().summarize(request)


def summaries(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if str(m.get("content") or "").startswith(SUMMARY_PREFIX)]


def test_below_threshold_is_identity(make_engine: Engine, convo: Convo) -> None:
    engine = make_engine(context_length=1_000_000)
    messages = convo()
    assert engine.compress(messages).messages is messages
    assert engine.compress(messages, current_tokens=10).messages is messages
    assert engine.compression_count == 0


def test_compaction_shrinks_and_reports(make_engine: Engine, convo: Convo) -> None:
    engine = make_engine()
    messages = convo()
    out = engine.compress(messages, current_tokens=estimate_messages_tokens(messages)).messages
    assert estimate_messages_tokens(out) < engine.threshold_tokens < estimate_messages_tokens(messages)
    assert engine.compression_count == 1 and engine.last_summary_source == "deterministic"
    assert "summarized" in engine.last_compaction_note
    assert out[0]["content"].endswith(SYSTEM_NOTE) and out[-1] == messages[-1]
    status = engine.get_status()
    assert status["engine"] == "compressor" and status["compression_count"] == 1
    assert status["threshold_tokens"] == 8_000 and status["tail_token_budget"] == 1_600


def test_compress_returns_the_typed_result(make_engine: Engine, convo: Convo) -> None:
    engine = make_engine()
    messages = convo()
    summarized = engine.compress(messages, force=True)
    assert isinstance(summarized, CompactionResult) and summarized.messages is not messages
    assert summarized.summary == engine.last_summary and "## Goal" in summarized.summary
    assert summarized.summary_source == "deterministic" == engine.last_summary_source
    assert summarized.note == engine.last_compaction_note and "summarized" in summarized.note
    kept = make_engine(context_length=1_000_000).compress(messages)
    assert kept.messages is messages and kept.summary == "" and kept.summary_source == "none"
    no_summarizer = make_engine()
    no_summarizer.ctx.summarizer = no_summarizer.ctx.fallback_summarizer = None
    trimmed = no_summarizer.compress(messages, force=True)
    assert trimmed.summary == "" and trimmed.summary_source == "none" and "trimmed" in trimmed.note


def test_head_protection_only_before_first_compaction(make_engine: Engine, convo: Convo) -> None:
    engine = make_engine()
    messages = convo()
    first = engine.compress(messages, force=True).messages
    assert first[1] == messages[1]  # protected head on the first compaction
    second = engine.compress(first + convo(10)[1:], force=True).messages
    assert messages[1] not in second  # early turns do not fossilize
    assert second[0]["content"].count(SYSTEM_NOTE) == 1
    assert len(summaries(second)) == 1


def test_iterative_update_passes_previous_summary(make_engine: Engine, convo: Convo) -> None:
    spy = Spy()
    engine = make_engine(summarizer=spy)
    first = engine.compress(convo(), force=True).messages
    engine.compress(first + convo(10)[1:], force=True)
    assert spy.requests[0].previous_summary is None
    assert spy.requests[1].previous_summary and "## Goal" in spy.requests[1].previous_summary
    assert not any(str(t.get("content", "")).startswith(SUMMARY_PREFIX) for t in spy.requests[1].turns)


def test_single_request_agent_run_pins_the_user_message(make_engine: Engine) -> None:
    task = {"role": "user", "content": "Fix issue #42 in astroid; the test is tests/test_x.py."}
    out: list[dict[str, Any]] = [{"role": "system", "content": "agent"}, task]
    engine = make_engine()
    for round_ in range(3):
        for i in range(60):
            cid = f"c{round_}_{i}"
            out = [*out, {"role": "assistant", "content": f"step {i}", "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "bash", "arguments": '{"command": "pytest"}'}}]},
                {"role": "tool", "tool_call_id": cid, "content": f"FAILED test {i}\n" + "x" * 900}]
        out = engine.compress(out, force=True).messages
        assert out[1] == task and api_problems(out) == []
        assert estimate_messages_tokens(out) < engine.threshold_tokens
        assert len(summaries(out)) == 1
    assert engine.compression_count == 3


def test_parallel_tool_calls_never_split(make_engine: Engine) -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"}]
    for i in range(30):
        calls = [{"id": f"p{i}_{k}", "type": "function", "function": {"name": "grep", "arguments": "{}"}}
                 for k in range(4)]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages += [{"role": "tool", "tool_call_id": c["id"], "content": "hit\n" * (50 * (k + 1))}
                     for k, c in enumerate(calls)]
    messages.append({"role": "user", "content": "and now?"})
    for length in (2_000, 4_000, 8_000, 16_000):
        out = make_engine(context_length=length).compress(messages, force=True).messages
        assert api_problems(out) == [], length
        results = {m["tool_call_id"] for m in out if m["role"] == "tool"}
        for msg in out:
            ids = {c["id"] for c in msg.get("tool_calls") or ()}
            assert ids <= results and (not ids & results or ids <= results)


def test_anti_thrash_stops_automatic_compaction(make_engine: Engine, convo: Convo) -> None:
    engine = make_engine()
    messages = convo()
    over = engine.threshold_tokens + 500
    for _ in range(2):
        assert engine.should_compress(over)
        engine.compress(messages, current_tokens=over)
        engine.update_from_response({"prompt_tokens": over, "completion_tokens": 10})
    assert not engine.should_compress(over)
    assert "paused" in engine.last_compaction_note
    assert engine.compress(messages, current_tokens=over).messages is messages
    assert engine.compress(messages, force=True).messages is not messages  # manual compaction still works
    engine.update_from_response({"prompt_tokens": 100})
    assert engine.should_compress(over)  # a healthy prompt resets the breaker


def test_update_model_and_reset(make_engine: Engine) -> None:
    engine = make_engine()
    engine.update_model("big-model", 200_000)
    assert (engine.threshold_tokens, engine.tail_token_budget, engine.max_summary_tokens) == (100_000, 20_000, 10_000)
    engine.compression_count = 3
    engine.on_session_reset()
    assert engine.compression_count == 0 and engine.last_summary_source == "none"


def test_oversized_arguments_shrink_to_valid_json(make_engine: Engine, convo: Convo) -> None:
    messages = convo(30)
    big = json.dumps({"path": "a.py", "content": "y" * 5000, "nested": [{"text": "z" * 800}]})
    for msg in messages:
        for call in msg.get("tool_calls") or ():
            call["function"]["arguments"] = big
    out = make_engine(context_length=32_000).compress(messages, force=True).messages
    shrunk = [c["function"]["arguments"] for m in out for c in m.get("tool_calls") or ()]
    assert any(len(a) < 1000 for a in shrunk)
    assert all(json.loads(a)["path"] == "a.py" for a in shrunk)
    assert shrink_json_text("not json " * 100) == "not json " * 100


def test_identical_tool_outputs_kept_once(make_engine: Engine, convo: Convo) -> None:
    messages = convo(12, tool_chars=600)
    for msg in messages:
        if msg["role"] == "tool":
            msg["content"] = "same output\n" * 40
    out = make_engine(context_length=64_000).compress(messages, force=True).messages
    tools = [m["content"] for m in out if m["role"] == "tool"]
    assert tools.count("same output\n" * 40) == 1
    # a forced compaction of a body this small summarizes all but the last turn: one output is left
    assert len(tools) == 1 or DUPLICATE_TOOL_OUTPUT in tools or any(t.startswith(PRUNED_TOOL_PREFIX) for t in tools)


def test_parts_content_and_unknown_keys(make_engine: Engine, convo: Convo) -> None:
    messages = convo()
    for msg in messages:
        if msg["role"] == "user":
            msg["content"] = [{"type": "text", "text": msg["content"]},
                              {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]
        msg["x_trace_id"] = "keep-me"
    before = copy.deepcopy(messages)
    out = make_engine(context_length=32_000).compress(messages, force=True).messages
    assert messages == before and api_problems(out) == []
    kept = [m for m in out if not str(m.get("content") or "").startswith(SUMMARY_PREFIX) and m["role"] != "system"]
    assert kept and all(m.get("x_trace_id") == "keep-me" for m in kept if "tool_call_id" not in m or m["content"])
    assert out[-1] == messages[-1]


def test_merge_into_list_content_keeps_parts(make_engine: Engine) -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    for i in range(30):
        messages += [{"role": "assistant", "content": "a" * 800},
                     {"role": "user", "content": [{"type": "text", "text": f"u{i} " * 200}]}]
    out = make_engine().compress(messages, force=True).messages
    assert api_problems(out) == [] and out[-1] == messages[-1]


def test_secrets_never_reach_the_summary(make_engine: Engine, convo: Convo) -> None:
    messages = convo()
    messages[9]["content"] = "db password: Sup3rS3cret! and key sk-ant-abcdefghijklmnopqrstuvwxyz123"
    out = make_engine().compress(messages, force=True).messages
    text = json.dumps(out)
    assert "Sup3rS3cret" not in text and "sk-ant-abcdefghijklmnopqrstuvwxyz123" not in text


def test_summary_input_is_capped_in_total(make_engine: Engine) -> None:
    spy = Spy()
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"}]
    for i in range(400):
        messages += [{"role": "user", "content": f"q{i} " + "w" * 5000}, {"role": "assistant", "content": "r" * 5000}]
    messages.append({"role": "user", "content": "last"})
    make_engine(summarizer=spy).compress(messages, force=True)
    [request] = spy.requests
    size = sum(len(t["content"]) for t in request.turns)
    assert size <= 125_000
    assert any("omitted" in t["content"] for t in request.turns if t["role"] == "system")


def test_memory_provider_text_and_focus_reach_the_summarizer(make_engine: Engine, convo: Convo) -> None:
    spy = Spy()
    seen: list[int] = []

    def pre_compress(turns: list[dict[str, Any]]) -> str:
        seen.append(len(turns))
        turns.clear()  # a careless provider must not change the engine's input
        return "remember: user prefers tabs"

    engine = make_engine(summarizer=spy, pre_compress=pre_compress)
    out = engine.compress(convo(), force=True, focus_topic="module_20").messages
    assert seen and seen[0] > 10
    request = spy.requests[0]
    assert request.extra_context == "remember: user prefers tabs" and request.focus_topic == "module_20"
    summary = summaries(out)[0]["content"]
    assert "Focus 'module_20'" in summary and "user prefers tabs" in summary


def test_malformed_messages_do_not_escape(make_engine: Engine) -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": None},
        {"role": "user"},
        {"role": "tool", "tool_call_id": "ghost", "content": "orphan result"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a1", "type": "function", "function": {"name": "x", "arguments": {"not": "a string"}}},
            "garbage-call", {"id": "a2"}]},
        {"role": "weird", "content": 12345},
        {"role": "assistant", "content": "x" * 200_000},
        *[{"role": r, "content": "filler " * 100} for r in ("user", "assistant") * 20],
        {"role": "user", "content": "last ask"},
    ]
    before = copy.deepcopy(messages)
    engine = make_engine()
    out = engine.compress(messages, force=True).messages
    assert messages == before
    assert isinstance(out, list) and out[-1] == messages[-1]
    assert api_problems(out) == []  # the orphan result dropped, unanswered calls stubbed, odd role summarized
    assert engine.last_summary_source == "deterministic"


def test_host_runs_the_compressor_by_default(make_host: Callable[..., Any], convo: Convo) -> None:
    host = make_host(**{"model.context_length": 16_000})
    assert host.engine.name == "compressor"
    messages = convo()
    out = host.compress(messages, force=True)
    assert len(out.messages) < len(messages)
    assert out.changed and out.summary_source == "deterministic"


def test_summarizer_from_a_plugin_hook(make_host: Callable[..., Any], convo: Convo) -> None:
    from hermes_core import hookimpl

    class Backend:
        name = "team-backend"

        def summarize(self, request: SummaryRequest) -> SummaryResult:
            return SummaryResult(text=f"## Goal\n- {len(request.turns)} turns via the team backend", source="llm")

    class Plugin:
        @hookimpl
        def hermes_register_summarizers(self) -> list[tuple[str, Any]]:
            return [("team", Backend())]

    host = make_host(plugins=[Plugin()], **{"auxiliary.summarizer": "team", "model.context_length": 16_000})
    out = host.compress(convo(), force=True)
    assert any("via the team backend" in str(m.get("content")) for m in out.messages)
    assert out.summary_source == "llm"


def test_preflight_respects_the_breaker(make_engine: Engine, convo: Convo) -> None:
    engine = make_engine()
    messages = convo()
    assert engine.should_compress_preflight(messages)
    engine._ineffective = 2  # as after two ineffective passes
    assert not engine.should_compress_preflight(messages)


def test_forced_compaction_trims_when_nothing_can_be_summarized(make_engine: Any) -> None:
    """A short conversation whose bulk is the answer after the last user message: there is
    nothing to summarize, so long messages other than the system and last user ones are cut."""
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": "explain " * 25},
                {"role": "assistant", "content": "word " * 1200}]
    engine = make_engine(context_length=2000)
    out = engine.compress(messages, force=True).messages
    assert out is not messages and out[:2] == messages[:2] and len(out) == 3
    assert estimate_messages_tokens(out) < estimate_messages_tokens(messages)
    assert "chars cut by compaction" in out[2]["content"] and "trimmed long messages" in engine.last_compaction_note

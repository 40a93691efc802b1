"""Compaction on the real corpus: API-valid, lossless coverage, tail rules, honest notes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hermes_context_lcm.assemble import ACK
from hermes_context_lcm.engine import LCMEngine

from hermes_core import CompactionResult
from hermes_core.text.messages import api_problems, text_of
from hermes_core.text.tokens import estimate_messages_tokens


def session_ids(engine: LCMEngine) -> list[int]:
    rows = engine.store.session_messages(engine.session_id, limit=100_000)
    return [r.id for r in rows if r.role != "system"]


def covered_ids(engine: LCMEngine) -> set[int]:
    return {m for s in engine.store.all_summaries(engine.session_id) if s.covers_kind == "messages" for m in s.covers}


def in_context_ids(engine: LCMEngine) -> set[int]:
    return {mid for _, mid in engine._tracked if mid is not None}


def check_compaction(before: list[dict[str, Any]], after: list[dict[str, Any]], engine: LCMEngine,
                     newest_user: str | None) -> None:
    assert not api_problems(after), api_problems(after)
    assert after[0]["role"] == "user"
    # the newest user message survives verbatim (possibly after the summary block)
    if newest_user is not None:
        assert any(m.get("role") == "user" and text_of(m.get("content")).endswith(newest_user) for m in after)
    # the last message (end of the newest group) is kept
    assert after[-1].get("tool_call_id") == before[-1].get("tool_call_id")
    if estimate_messages_tokens(after) > engine.threshold_tokens:
        assert "could not get under" in engine.last_compaction_note


def test_whole_corpus_compacts_validly_and_covers_every_message(
    make_engine: Any, corpus_messages: dict[str, list[dict[str, Any]]]
) -> None:
    for name, messages in corpus_messages.items():
        engine = make_engine(context_length=12_000, db_path=f"{name}.db")
        engine.on_session_start(name)
        live: list[dict[str, Any]] = []
        compactions = 0
        newest_user = None
        for i, msg in enumerate(messages):
            if msg["role"] == "system":
                continue  # the runtime owns the system prompt
            live.append(msg)
            if msg["role"] == "user":
                newest_user = text_of(msg["content"])
            if i + 1 < len(messages) and messages[i + 1]["role"] == "tool":
                continue
            if engine.should_compress_preflight(live):
                after = engine.compress(live).messages
                if after is not live:
                    compactions += 1
                    check_compaction(live, after, engine, newest_user)
                live = after
        engine.on_session_end(name, live)
        stored = session_ids(engine)
        assert len(stored) >= sum(m["role"] != "system" for m in messages), name
        missing = set(stored) - covered_ids(engine) - in_context_ids(engine)
        assert not missing, f"{name}: messages neither summarized nor in context: {sorted(missing)[:5]}"
        if estimate_messages_tokens(messages) > 20_000:
            assert compactions, name


def test_duplicate_contents_are_all_covered(make_engine: Any, drive: Any) -> None:
    messages = []
    for _ in range(150):
        messages += [{"role": "user", "content": "ok"}, {"role": "assistant", "content": "ok " * 40}]
    engine = make_engine(context_length=4000)
    drive(engine, messages)
    stored = session_ids(engine)
    assert len(stored) == 300
    assert set(stored) <= covered_ids(engine) | in_context_ids(engine)


def agent_loop(groups: int, output: str = "x" * 400) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "THE TASK: fix the bug"}]
    for i in range(groups):
        messages.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}a", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}},
            {"id": f"c{i}b", "type": "function", "function": {"name": "read", "arguments": '{"path": "a.py"}'}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}a", "content": f"{i} {output}"})
        messages.append({"role": "tool", "tool_call_id": f"c{i}b", "content": f"{i} {output}"})
    return messages


def test_tail_keeps_whole_groups_and_the_task(make_engine: Any) -> None:
    engine = make_engine(context_length=8000)
    engine.on_session_start("loop")
    messages = agent_loop(60)
    result = engine.compress(messages, force=True)
    assert isinstance(result, CompactionResult) and result.summary_source == engine.last_summary_source != "none"
    after = result.messages
    assert result.summary == after[0]["content"] and result.note == engine.last_compaction_note
    check_compaction(messages, after, engine, "THE TASK: fix the bug")
    assert "<summary id=\"sum_" in after[0]["content"]
    assert after[1] == {"role": "assistant", "content": ACK}
    assert after[2] is messages[0]  # the task, verbatim
    assert after[3]["role"] == "assistant" and after[3].get("tool_calls")
    assert estimate_messages_tokens(after) < engine.threshold_tokens
    # compacting the compacted list again nests nothing and keeps the task once
    again = engine.compress([*after, {"role": "assistant", "content": "done"}], force=True).messages
    assert again[0]["content"].count("[LCM] Earlier parts") == 1
    assert sum(m is messages[0] for m in again) == 1
    assert "THE TASK" not in again[0]["content"].split("</summary>")[-1]


def test_honest_note_when_the_newest_turn_alone_is_too_big(make_engine: Any) -> None:
    engine = make_engine(context_length=2000)
    engine.on_session_start("big")
    messages = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"},
                {"role": "user", "content": "word " * 3000}]
    after = engine.compress(messages).messages
    assert not api_problems(after)
    assert after[-1]["content"].endswith("word " * 10)
    assert "could not get under 1000 tokens" in engine.last_compaction_note
    assert engine.get_status()["note"] == engine.last_compaction_note


def test_large_outputs_become_references_and_page_back_exactly(make_engine: Any) -> None:
    engine = make_engine(context_length=32_000, large_output_chars=5000, page_chars=3000)
    engine.on_session_start("big-output")
    big = "".join(f"line {i}: {'data ' * 10}\n" for i in range(1500))
    messages = agent_loop(3)
    messages[2] = {**messages[2], "content": big}
    messages += [{"role": "assistant", "content": "noted"}, {"role": "user", "content": "next"}]
    after = engine.compress(messages, force=True).messages
    ref = next(m for m in after if m.get("tool_call_id") == "c0a")
    assert ref["content"].startswith("[LCM stored output msg_3:") and "lines" in ref["content"]
    pages, page = [], 1
    while page:
        result = json.loads(engine.handle_tool_call("lcm_expand", {"id": "msg_3", "page": page}))
        pages.append(result["message"]["content"])
        page = result["next_page"]
    assert "".join(pages) == big and len(pages) == -(-len(big) // 3000)
    assert messages[2]["content"] == big  # the input list was not mutated


def test_condensation_builds_higher_depths_with_hints(make_engine: Any, drive: Any, corpus_messages: Any) -> None:
    engine = make_engine(context_length=8000, condensation_fanin=3)
    drive(engine, corpus_messages["claude-code_spotter_fa812bfe_pre-compact"])
    summaries = engine.store.all_summaries(engine.session_id)
    assert max(s.depth for s in summaries) >= 1
    for s in summaries:
        assert s.content.rstrip().splitlines()[-1].startswith("Expand for details about:")
        if s.depth:
            children = engine.store.get_summaries(s.covers)
            assert len(children) == len(s.covers) and all(c.parent_id == s.id for c in children)
            assert s.message_count == sum(c.message_count for c in children)
    status = engine.get_status()
    assert status["summaries_by_depth"]["d1"]["count"] >= 1
    assert status["messages_session"] > 0 and status["compression_count"] >= 1 and status["db_bytes"] > 100_000
    assert status["last_compaction"]["changed"] and status["last_compaction"]["duration_ms"] >= 0


def test_lifecycle_sessions_are_separate(make_engine: Any) -> None:
    engine = make_engine()
    engine.on_session_start("one")
    engine.should_compress_preflight([{"role": "user", "content": "first session"}])
    engine.on_session_reset()
    assert engine.compression_count == 0 and engine.session_id == ""
    engine.on_session_start("two")
    final = [{"role": "user", "content": "second"}, {"role": "assistant", "content": "answer"}]
    engine.on_session_end("two", final)
    assert engine.store.session_size("one") == 1 and engine.store.session_size("two") == 2
    engine.update_model("other", 64_000)
    assert engine.threshold_tokens == 32_000


def test_changed_or_inserted_messages_are_stored_not_matched(make_engine: Any) -> None:
    engine = make_engine()
    engine.on_session_start("edit")
    live = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    engine.should_compress_preflight(live)
    live = [{"role": "user", "content": "a (edited)"}, live[1], {"role": "user", "content": "c"}]
    engine.should_compress_preflight([{"role": "system", "content": "prompt"}, *live])
    contents = [r.message().get("content") for r in engine.store.session_messages("edit")]
    assert contents == ["a", "b", "prompt", "a (edited)", "c"]


@pytest.mark.parametrize("threshold_percent", [0.3, 0.9])
def test_threshold_setting_overrides_context_default(make_engine: Any, threshold_percent: float) -> None:
    engine = make_engine(context_length=10_000, threshold_percent=threshold_percent)
    assert engine.threshold_tokens == int(10_000 * threshold_percent)
    assert engine.should_compress(int(10_000 * threshold_percent)) and not engine.should_compress(10)


def test_importing_the_engine_is_cheap() -> None:
    """Discovery imports the entry point; the database layer loads only when used."""
    import subprocess
    import sys

    code = ("import sys, hermes_context_lcm.engine; "
            "print('sqlite3' in sys.modules, 'hermes_context_lcm.store' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["False", "False"]


def test_a_restarted_process_resumes_positions_without_duplicates(make_engine: Any, corpus_messages: Any,
                                                                  tmp_path: Any) -> None:
    messages = [m for m in corpus_messages["claude-code_ai-sessions_pomodoro"] if m["role"] != "system"]
    first = make_engine(context_length=8000, large_output_chars=2000)
    first.on_session_start("resume")
    live: list[dict[str, Any]] = []
    half = len(messages) // 2
    for i, msg in enumerate(messages[:half]):
        live.append(msg)
        if messages[i + 1]["role"] != "tool" and first.should_compress_preflight(live):
            live = first.compress(live).messages
    assert first.compression_count >= 1
    stored_before = first.store.session_size("resume")
    first.close()  # the process ends: its store and its hold on the session go
    # a new process: the host hands back the same history, deserialized
    second = make_engine(context_length=8000, large_output_chars=2000)
    second.on_session_start("resume")
    live = json.loads(json.dumps(live))
    second.should_compress_preflight(live)
    assert second.store.session_size("resume") == stored_before
    for i, msg in enumerate(messages[half:], start=half):
        live.append(msg)
        if (i + 1 == len(messages) or messages[i + 1]["role"] != "tool") and second.should_compress_preflight(live):
            live = second.compress(live).messages
            assert not api_problems(live)
    second.on_session_end("resume", live)
    assert second.store.session_size("resume") == len(messages)  # every message stored exactly once
    stored = session_ids(second)
    assert set(stored) <= covered_ids(second) | in_context_ids(second)
    # a history that does not match what was stored is stored, not matched by content
    third = make_engine(context_length=8000)
    third.on_session_start("resume")
    third.should_compress_preflight([{"role": "user", "content": "a different conversation"}])
    assert third.store.session_size("resume") == len(messages) + 1


def test_resume_before_any_compaction(make_engine: Any) -> None:
    first = make_engine()
    first.on_session_start("early")
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hi"},
               {"role": "user", "content": "hi"}]
    first.should_compress_preflight([{"role": "system", "content": "prompt"}, *history])
    first.close()
    second = make_engine()
    second.on_session_start("early")
    second.should_compress_preflight([{"role": "system", "content": "prompt"}, *history,
                                      {"role": "assistant", "content": "bye"}])
    contents = [(r.role, r.message()["content"]) for r in second.store.session_messages("early")]
    # the system prompt is stored once: the same text in the same session is the same message
    assert contents == [("system", "prompt"), ("user", "hi"), ("assistant", "hi"), ("user", "hi"),
                        ("assistant", "bye")]

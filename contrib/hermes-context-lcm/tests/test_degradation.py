"""Bad input: failing summary services, broken or busy stores, disk full, concurrent writers.

In every case no message is lost, the error is clear, and the engine degrades to
deterministic summaries (or keeps the messages) instead of failing the turn.
"""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from hermes_context_lcm.engine import LCMEngine

from hermes_core.engine.summarizer import SummaryError, SummaryRequest, SummaryResult
from hermes_core.text.messages import api_problems
from hermes_core.text.tokens import estimate_message_tokens


class Recording:
    """A summarizer that records requests and behaves as told."""

    name = "recording"

    def __init__(self, behaviour: str = "ok", delay: float = 0.0) -> None:
        self.behaviour = behaviour
        self.delay = delay
        self.requests: list[SummaryRequest] = []

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.requests.append(request)
        time.sleep(self.delay)
        if self.behaviour == "error":
            raise SummaryError("connection", "cannot reach the summary model")
        if self.behaviour == "crash":
            raise RuntimeError("summarizer bug")
        if self.behaviour == "verbose":
            return SummaryResult(text="blah " * 50_000, source="llm")
        return SummaryResult(text=f"summary of {len(request.turns)} turns", source="llm")


def loop(groups: int, secret: str = "") -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": f"task {secret}"}]
    for i in range(groups):
        msgs.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"out {i} " + "z" * 600})
    return msgs


def all_covered(engine: LCMEngine) -> bool:
    stored = {r.id for r in engine.store.session_messages(engine.session_id, limit=100_000)}
    covered = {m for s in engine.store.all_summaries(engine.session_id) if s.covers_kind == "messages"
               for m in s.covers}
    in_context = {mid for _, mid in engine._tracked if mid is not None}
    return stored <= covered | in_context


@pytest.mark.parametrize(("behaviour", "source"), [("ok", "llm"), ("error", "fallback"), ("crash", "fallback"),
                                                    ("verbose", "deterministic")])
def test_summary_escalation_always_converges(make_engine: Any, behaviour: str, source: str) -> None:
    summarizer = Recording(behaviour)
    engine = make_engine(context_length=8000, summarizer=summarizer)
    engine.on_session_start("s")
    messages = loop(80)
    after = engine.compress(messages).messages
    assert after is not messages and not api_problems(after)
    assert engine.last_summary_source == source
    assert all_covered(engine)
    if behaviour in ("error", "crash"):
        assert len(summarizer.requests) == 1  # the service is given up on for the rest of the compaction
    if behaviour == "verbose":
        assert len(summarizer.requests) >= 2
        assert summarizer.requests[1].budget_tokens < summarizer.requests[0].budget_tokens  # aggressive retry


def test_pre_compress_text_and_redaction_reach_the_summarizer(make_engine: Any) -> None:
    summarizer = Recording()
    seen: list[int] = []

    def pre_compress(messages: list[dict[str, Any]]) -> str:
        seen.append(len(messages))
        return "MEMORY SAYS: the user prefers tabs"

    engine = make_engine(context_length=8000, summarizer=summarizer, pre_compress=pre_compress)
    engine.on_session_start("s")
    secret = "sk-" + "A1b2C3d4" * 4
    engine.compress(loop(60, secret=secret), focus_topic="the bash outputs")
    assert seen and seen[0] > 0
    first = summarizer.requests[0]
    assert first.extra_context == "MEMORY SAYS: the user prefers tabs"
    assert first.focus_topic == "the bash outputs"
    assert secret not in json.dumps(first.turns) and "[REDACTED]" in json.dumps(first.turns)
    # the store keeps the original, secret included (it never leaves the machine)
    assert engine.store.get_messages([1])[0].message()["content"] == f"task {secret}"


def test_deadline_bounds_a_slow_summarizer(make_engine: Any) -> None:
    summarizer = Recording(delay=0.05)
    engine = make_engine(context_length=4000, summarizer=summarizer, compaction_deadline_s=0.1, leaf_chunk_tokens=1000,
                         max_leaf_calls=8)
    engine.on_session_start("s")
    started = time.perf_counter()
    after = engine.compress(loop(120)).messages
    assert time.perf_counter() - started < 2.0
    assert len(summarizer.requests) <= 4
    assert not api_problems(after) and all_covered(engine)
    assert engine.last_summary_source == "deterministic"


def test_llm_summary_service_over_http(make_host: Any, summary_server: Any) -> None:
    host = make_host(engines={"lcm": LCMEngine}, **{
        "context.engine": "lcm", "model.context_length": 8000, "auxiliary.base_url": summary_server.url,
        "auxiliary.model": "tiny", "auxiliary.max_retries": 0, "auxiliary.timeout": 5})
    host.on_session_start("http")
    messages = loop(60)
    after = host.compress(messages, session_id="http").messages
    assert "Model summary: work on the app." in after[0]["content"]
    assert host.engine.last_summary_source == "llm" and summary_server.requests
    summary_server.mode = "error"
    more = [*after, *loop(60)[1:]]
    result = host.compress(more, session_id="http")
    again = result.messages
    assert again is not more and not api_problems(again)
    assert host.engine.last_summary_source == "fallback"
    assert result.summary_source == "fallback"
    assert all_covered(host.engine)  # type: ignore[arg-type]


def test_disk_full_during_ingest_keeps_messages_in_context(make_engine: Any) -> None:
    engine = make_engine(context_length=8000)
    engine.on_session_start("full")
    messages = loop(10)
    engine.should_compress_preflight(messages)
    pages = engine.store.conn.execute("PRAGMA page_count").fetchone()[0]  # type: ignore[attr-defined]
    engine.store.conn.execute(f"PRAGMA max_page_count={pages + 1}")  # type: ignore[attr-defined]
    grown = [*messages, *loop(60)[1:]]
    assert engine.should_compress_preflight(grown)  # no exception
    assert "full" in engine.store_error
    after = engine.compress(grown).messages
    # the window still holds: a deterministic digest, the originals held in memory, all said
    assert after is not grown and not api_problems(after) and "compacted without the store" in \
        engine.last_compaction_note
    assert sum(map(estimate_message_tokens, after)) < engine.threshold_tokens
    status = engine.get_status()
    assert "full" in status["store_error"] and status["state"] == "unavailable" and status["unstored_backlog"]
    engine.store.conn.execute("PRAGMA max_page_count=1073741823")  # type: ignore[attr-defined]
    engine.should_compress_preflight([*after, {"role": "user", "content": "next"}])
    assert engine.store_error == "" and engine.get_status()["unstored_backlog"] == 0
    stored = [r.message() for r in engine.store.session_messages("full", limit=1000)]
    assert stored == [*grown, {"role": "user", "content": "next"}]  # every message once, in order


def test_corrupt_database_is_moved_aside_and_a_new_one_started(make_engine: Any, tmp_path: Path) -> None:
    (tmp_path / "lcm.db").write_bytes(b"garbage" * 1000)
    engine = make_engine(context_length=8000)
    engine.on_session_start("c")
    after = engine.compress(loop(60)).messages
    assert not api_problems(after) and engine.store.session_size("c") == 121
    aside = list(tmp_path.glob("lcm.db.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == b"garbage" * 1000


def test_locked_database_degrades_then_recovers(make_engine: Any, tmp_path: Path) -> None:
    engine = make_engine(context_length=8000, busy_timeout_ms=50)
    engine.on_session_start("lock")
    engine.should_compress_preflight(loop(2))
    other = sqlite3.connect(tmp_path / "lcm.db", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    messages = loop(60)
    after = engine.compress(messages).messages
    assert after is not messages and "locked" in engine.last_compaction_note and not api_problems(after)
    result = json.loads(engine.handle_tool_call("lcm_grep", {"pattern": "step"}) or "{}")
    assert "the LCM store is unavailable" in result["error"] and "locked" in result["error"]
    other.execute("ROLLBACK")
    other.close()
    after = engine.compress(messages).messages
    assert after is not messages and all_covered(engine)


def _replay_into(home: str, session: str, groups: int) -> None:
    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.context import PluginContext

    config = HermesConfig.model_validate({"model": {"context_length": 6000}})
    engine = LCMEngine(PluginContext(home=Path(home), config=config))
    engine.on_session_start(session)
    live: list[dict[str, Any]] = []
    for msg in loop(groups, secret=session):
        live.append(msg)
        if msg["role"] == "tool" and engine.should_compress_preflight(live):
            live = engine.compress(live).messages
    engine.on_session_end(session, live)


def test_concurrent_sessions_write_one_store(make_engine: Any, tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")  # the target lives in a test module spawn could not import
    procs = [ctx.Process(target=_replay_into, args=(str(tmp_path), f"proc{n}", 80)) for n in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    engine = make_engine()
    for n in range(3):
        engine.on_session_start(f"proc{n}")
        rows = engine.store.session_messages(f"proc{n}", limit=10_000)
        assert [r.seq for r in rows] == list(range(161))
        assert rows[0].message()["content"] == f"task proc{n}"
        covered = {m for s in engine.store.all_summaries(f"proc{n}") if s.covers_kind == "messages"
                   for m in s.covers}
        assert len(covered) > 100
        hits = json.loads(engine.handle_tool_call("lcm_grep", {"pattern": "task", "target": "messages"}) or "{}")
        assert {h["session_id"] for h in hits["results"]} == {f"proc{n}"}


def test_store_failure_in_the_middle_of_a_compaction(tmp_path: Path) -> None:
    from hermes_context_lcm.store import SQLiteStore, StoreError

    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.context import PluginContext

    class Flaky(SQLiteStore):
        fail_after = 0

        def add_summary(self, summary: Any, children: Any = ()) -> int:
            if self.fail_after <= 0:
                raise StoreError(f"{self.path}: cannot write: database or disk is full", "full")
            self.fail_after -= 1
            return super().add_summary(summary, children)

    store = Flaky(tmp_path / "lcm.db")
    config = HermesConfig.model_validate({"model": {"context_length": 4000}})
    engine = LCMEngine(PluginContext(home=tmp_path, config=config, extras={"lcm_store": store}))
    engine.on_session_start("flaky")
    messages = loop(120)
    after = engine.compress(messages).messages
    assert after is not messages and "disk is full" in engine.last_compaction_note and not api_problems(after)
    assert engine.store.session_size("flaky") == len(messages)  # the messages themselves were stored
    store.fail_after = 10_000
    after = engine.compress(messages).messages
    assert after is not messages and not api_problems(after) and all_covered(engine)


def test_memory_provider_pre_compress_reaches_the_summary_through_the_host(make_host: Any) -> None:
    from hermes_core.memory.base import MemoryProvider

    class Notes(MemoryProvider):
        @property
        def name(self) -> str:
            return "notes"

        def is_available(self) -> tuple[bool, str]:
            return True, ""

        def initialize(self, session_id: str) -> None:
            pass

        def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
            return f"NOTES: {len(messages)} messages leaving; user prefers tabs"

    summarizer = Recording()
    host = make_host(engines={"lcm": LCMEngine}, providers={"notes": Notes},
                     **{"context.engine": "lcm", "memory.provider": "notes", "model.context_length": 8000})
    host.engine.ctx.summarizer = summarizer
    host.on_session_start("mem")
    after = host.compress(loop(60), session_id="mem").messages
    assert not api_problems(after)
    assert summarizer.requests and "user prefers tabs" in summarizer.requests[0].extra_context

"""The window is a guarantee: every corpus transcript, replayed at 16k through the real
session and replay code with the summary model failing in each way, never sends a
request over the window, and every compaction report says where its summary came from."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hermes_summarizers.llm import LLMSummarizer

from hermes_core.apps.replay import replay
from hermes_core.config.models import HermesConfig
from hermes_core.engine.summarizer import SummaryError, SummaryRequest
from hermes_core.plugin.host import build_host
from hermes_core.testing.llm_server import Reply, Script, chat_answer, closed_port_url, llm_server

WINDOW = 16_000
TIMEOUT = 0.4

FAULTS: dict[str, Reply | None] = {
    "refused": None,
    "401": Reply(401, "bad key"),
    "429": Reply(429, "slow down", headers={"retry-after": "0"}),
    "500": Reply(500, "boom"),
    "timeout": Reply(200, chat_answer("late"), delay=TIMEOUT * 3),
    "trickle": Reply(200, chat_answer("## Goal\n- slow " * 20), trickle=0.05),
    "garbage": Reply(200, "<html>not json</html>"),
    "empty": Reply(200, chat_answer("")),
}


@contextmanager
def fault_url(fault: str) -> Iterator[tuple[str, Script | None]]:
    reply = FAULTS[fault]
    if reply is None:
        yield closed_port_url(), None
        return
    script = Script(reply)
    with llm_server(script) as url:
        yield url, script


def test_total_deadline_bounds_a_trickling_server() -> None:
    """A byte every 50 ms never trips a per-read timeout; the call still ends at the deadline."""
    cfg = HermesConfig()
    with fault_url("trickle") as (url, _):
        cfg.auxiliary.base_url, cfg.auxiliary.model, cfg.auxiliary.timeout = url, "m", TIMEOUT
        started = time.monotonic()
        with pytest.raises(SummaryError) as err:
            LLMSummarizer(cfg).summarize(SummaryRequest(turns=[{"role": "user", "content": "hi"}], budget_tokens=50))
    assert err.value.kind == "timeout"
    assert time.monotonic() - started < TIMEOUT + 0.3


def test_retries_stay_inside_the_deadline() -> None:
    cfg = HermesConfig()
    with fault_url("500") as (url, script):
        cfg.auxiliary.base_url, cfg.auxiliary.model = url, "m"
        cfg.auxiliary.timeout, cfg.auxiliary.max_retries = TIMEOUT, 50
        started = time.monotonic()
        with pytest.raises(SummaryError):
            LLMSummarizer(cfg, backoff=0.05).summarize(SummaryRequest(turns=[], budget_tokens=50))
    assert time.monotonic() - started < TIMEOUT + 0.3
    assert script is not None and 1 < len(script.requests) < 50


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_transcript_stays_under_the_window(fault: str, transcripts_dir: Path, tmp_path: Path) -> None:
    over: list[str] = []
    sources: set[str] = set()
    with fault_url(fault) as (url, _):
        for path in sorted(transcripts_dir.glob("*.json")):
            cfg = HermesConfig()
            cfg.model.context_length = WINDOW
            cfg.auxiliary.base_url, cfg.auxiliary.model, cfg.auxiliary.timeout = url, "summary-model", TIMEOUT
            cfg.auxiliary.max_retries = 1
            home = tmp_path / path.stem
            home.mkdir()
            result = replay(path, build_host(cfg, home=home))
            for turn in result.turns:
                over += [f"{path.name} turn {turn.turn}: {t} tokens" for t in turn.request_tokens if t > WINDOW]
                for row in turn.compactions:
                    sources.add(row["summary_source"])
                    if row["summary_source"] == "fallback":
                        assert "summarizer failed" in row["note"], row
            assert result.ok, path.name
    assert not over, over
    assert "fallback" in sources and "llm" not in sources


def test_a_huge_recall_is_capped_before_it_is_fenced(tmp_path: Path) -> None:
    from hermes_core import MemoryProvider
    from hermes_core.session.session import Session

    class FloodingRecall(MemoryProvider):
        @property
        def name(self) -> str:
            return "flood"

        def is_available(self) -> tuple[bool, str]:
            return True, ""

        def initialize(self, session_id: str) -> None:
            pass

        def prefetch(self, query: str) -> str:
            return "remembered fact. " * 24_000  # ~400 KB

    cfg = HermesConfig()
    cfg.model.context_length = WINDOW
    cfg.memory.provider = "flood"
    host = build_host(cfg, home=tmp_path, providers={"flood": FloodingRecall})
    with Session(host) as session:
        request = session.start_turn("what do you remember?")
        assert request.estimated_tokens < WINDOW
        text = request.messages[-1]["content"]
        assert "remembered fact." in text and "memory.recall_max_share" in text


@pytest.mark.parametrize(("engine", "claim"), [("compressor", "offline deterministic summaries"),
                                              ("lcm", "offline deterministic summaries"),
                                              ("mine", "up to the 'mine' engine")])
def test_doctor_claims_only_the_fallback_that_exists(engine: str, claim: str) -> None:
    from hermes_core.apps.doctor import check_auxiliary

    cfg = HermesConfig()
    cfg.context.engine = engine
    cfg.auxiliary.base_url, cfg.auxiliary.model = closed_port_url(), "m"
    (finding,) = list(check_auxiliary(cfg, timeout=1.0))
    assert finding.level == "error" and claim in finding.fix

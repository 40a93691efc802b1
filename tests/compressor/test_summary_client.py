"""The OpenAI-compatible summary client against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import time
from typing import Any

import hermes_summarizers
import pytest
from hermes_summarizers.llm import LLMSummarizer, build_prompt

from hermes_core.config.models import HermesConfig
from hermes_core.engine.summarizer import SummaryError, SummaryRequest
from hermes_core.testing.llm_server import Reply, Script, chat_answer, closed_port_url, llm_server

REQUEST = SummaryRequest(turns=[{"role": "user", "content": "Fix src/app.py"},
                                {"role": "assistant", "content": "Done."}], budget_tokens=2000)


def client(base_url: str, *, timeout: float = 2.0, retries: int = 2, override: str = "") -> LLMSummarizer:
    cfg = HermesConfig()
    cfg.auxiliary.base_url, cfg.auxiliary.model = base_url, "aux-model"
    cfg.auxiliary.timeout, cfg.auxiliary.max_retries = timeout, retries
    cfg.auxiliary.api_key_env = "HERMES_TEST_SUMMARY_KEY"
    cfg.context.summary_model_override = override
    return LLMSummarizer(cfg, backoff=0.01)


def summarize(script: Script, **kwargs: Any) -> Any:
    with llm_server(script) as url:
        return client(url, **kwargs).summarize(REQUEST)


def error_of(script: Script, **kwargs: Any) -> SummaryError:
    with pytest.raises(SummaryError) as info:
        summarize(script, **kwargs)
    return info.value


def test_success_sends_one_chat_completion(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_TEST_SUMMARY_KEY", "sk-test-key-123")
    script = Script(Reply(200, chat_answer("<think>hmm</think>## Goal\n- fix src/app.py")))
    result = summarize(script, override="override-model")
    assert result.source == "llm" and result.text == "## Goal\n- fix src/app.py"
    [request] = script.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test-key-123"
    body = request["json"]
    assert body["model"] == "override-model"
    assert "DIFFERENT assistant" in body["messages"][0]["content"]
    assert "## Pending User Asks" in body["messages"][1]["content"]
    assert "[USER]: Fix src/app.py" in body["messages"][1]["content"]


def test_timeout_is_classified_and_bounded() -> None:
    started = time.monotonic()
    err = error_of(Script(Reply(200, chat_answer("late"), delay=1.5)), timeout=0.3)
    assert err.kind == "timeout"
    assert time.monotonic() - started < 1.4


def test_500_is_retried_then_other() -> None:
    script = Script(Reply(500, "upstream exploded"))
    assert error_of(script, retries=2).kind == "other"
    assert len(script.requests) == 3


def test_401_is_auth_without_retry() -> None:
    script = Script(Reply(401, {"error": {"message": "invalid api key"}}))
    err = error_of(script)
    assert err.kind == "auth" and "401" in str(err)
    assert len(script.requests) == 1


def test_429_then_success() -> None:
    script = Script(Reply(429, "slow down", headers={"Retry-After": "0"}), Reply(200, chat_answer("## Goal\n- ok")))
    assert summarize(script).text == "## Goal\n- ok"
    assert len(script.requests) == 2


def test_429_insufficient_quota_is_quota_at_once() -> None:
    script = Script(Reply(429, {"error": {"code": "insufficient_quota"}}))
    assert error_of(script).kind == "quota"
    assert len(script.requests) == 1


def test_429_forever_is_quota_after_retries() -> None:
    script = Script(Reply(429, "rate limited"))
    assert error_of(script, retries=1).kind == "quota"
    assert len(script.requests) == 2


@pytest.mark.parametrize("body", ["<html>not json", '{"choices": []}', '{"unexpected": true}'])
def test_garbage_json_is_other(body: str) -> None:
    err = error_of(Script(Reply(200, body)))
    assert err.kind == "other" and "chat-completions" in str(err)


@pytest.mark.parametrize("text", ["", "   \n", "<think>only thinking</think>"])
def test_empty_answer_is_other(text: str) -> None:
    err = error_of(Script(Reply(200, chat_answer(text))))
    assert err.kind == "other" and "empty" in str(err)


def test_not_listening_is_connection() -> None:
    with pytest.raises(SummaryError) as info:
        client(closed_port_url()).summarize(REQUEST)
    assert info.value.kind == "connection"


def test_answer_is_redacted() -> None:
    result = summarize(Script(Reply(200, chat_answer("use password=hunter2hunter2 here"))))
    assert "hunter2" not in result.text and "[REDACTED]" in result.text


def test_unconfigured_llm_is_other() -> None:
    with pytest.raises(SummaryError) as info:
        LLMSummarizer(HermesConfig()).summarize(REQUEST)
    assert info.value.kind == "other"


def test_builtin_table_and_prompt_parts() -> None:
    table = dict(hermes_summarizers.hermes_register_summarizers(HermesConfig()))
    assert set(table) == {"llm", "deterministic"}
    prompt = build_prompt(SummaryRequest(turns=[], budget_tokens=3000, previous_summary="## Goal\n- old",
                                         focus_topic="database", extra_context="user prefers tabs"))
    assert "PREVIOUS SUMMARY:\n## Goal\n- old" in prompt
    assert 'FOCUS TOPIC: "database"' in prompt and "60-70%" in prompt
    assert "<memory-provider-context>\nuser prefers tabs" in prompt
    assert "Target about 3000 tokens" in prompt


def test_runaway_answer_is_capped_before_redaction() -> None:
    """A server answering 210k chars of ``eyJ`` took 27.5 s and filled the context."""
    start = time.perf_counter()
    result = summarize(Script(Reply(200, chat_answer("## Goal\n" + "eyJ" * 70_000))))
    elapsed = time.perf_counter() - start
    limit = REQUEST.budget_tokens * 4 * 4
    assert limit < len(result.text) < limit + 200 and result.text.startswith("## Goal\n")
    assert "[summary cut: the model wrote 210008 chars, 32000 allowed]" in result.text
    assert elapsed < 5.0


def test_unclosed_think_tags_strip_in_linear_time() -> None:
    start = time.perf_counter()
    result = summarize(Script(Reply(200, chat_answer("<think>a</think>## Goal\n- ok" + "<think>" * 60_000))))
    assert time.perf_counter() - start < 5.0
    assert result.text.startswith("## Goal\n- ok<think>")
    assert summarize(Script(Reply(200, chat_answer("x<think>a</think>y<think>b</think>z")))).text == "xyz"

"""The offline structured summarizer: genuinely useful, bounded, iterative."""

from __future__ import annotations

import json
from typing import Any

from hermes_summarizers.deterministic import SECTIONS, DeterministicSummarizer, build_summary

from hermes_core.engine.summarizer import SummaryRequest
from hermes_core.text.redact import redact


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


TURNS: list[dict[str, Any]] = [
    {"role": "user", "content": "Add retries to the HTTP client in src/http/client.py. Never retry POST requests."},
    {"role": "assistant", "content": "Reading the client.",
     "tool_calls": [call("a", "Read", file_path="/repo/src/http/client.py")]},
    {"role": "tool", "tool_call_id": "a", "content": "class Client:\n    def get(self): ..."},
    {"role": "assistant", "content": "I chose exponential backoff because the server sends 429s.",
     "tool_calls": [call("b", "Edit", file_path="/repo/src/http/client.py", old_string="x", new_string="y"),
                    call("c", "Bash", command="pytest tests/test_client.py -q")]},
    {"role": "tool", "tool_call_id": "b", "content": "ok"},
    {"role": "tool", "tool_call_id": "c", "content": "1 failed\nE   AssertionError: expected 3 calls, got 1"},
    {"role": "user", "content": "Why did the test fail?"},
    {"role": "assistant", "content": "The mock returned 200 on the first call, so `retry_count` stayed 0."},
    {"role": "user", "content": "Make the mock return 429 twice, then rerun `pytest -q`."},
]


def test_ten_sections_with_the_facts() -> None:
    text = build_summary(SummaryRequest(turns=TURNS, budget_tokens=2000))
    assert [ln[3:] for ln in text.splitlines() if ln.startswith("## ")] == list(SECTIONS)
    assert "Add retries to the HTTP client in src/http/client.py" in text  # goal
    assert "Never retry POST requests." in text  # constraint
    assert "I chose exponential backoff because the server sends 429s." in text  # decision
    assert "Why did the test fail? — The mock returned 200" in text  # resolved question
    assert "(verbatim): Make the mock return 429 twice, then rerun `pytest -q`." in text  # last ask
    assert "/repo/src/http/client.py (edited, read)" in text  # files and how
    assert "AssertionError: expected 3 calls, got 1" in text  # errors seen
    assert "Bash x1" in text and "Ran: pytest tests/test_client.py -q" in text  # tools
    assert "retry_count" in text  # identifiers


def test_budget_is_respected_and_the_last_ask_survives() -> None:
    turns = [*TURNS * 40, {"role": "user", "content": "final ask: ship it"}]
    text = build_summary(SummaryRequest(turns=turns, budget_tokens=500))
    assert len(text) <= 2000
    assert "final ask: ship it" in text


def test_iterative_update_keeps_the_earlier_summary() -> None:
    first = build_summary(SummaryRequest(turns=TURNS, budget_tokens=2000))
    later = [{"role": "assistant", "content": "Now adding jitter.",
              "tool_calls": [call("d", "Edit", file_path="src/http/backoff.py")]},
             {"role": "tool", "tool_call_id": "d", "content": "ok"}]
    text = build_summary(SummaryRequest(turns=later, budget_tokens=2000, previous_summary=first))
    assert "Add retries to the HTTP client" in text and "src/http/backoff.py" in text
    assert "/repo/src/http/client.py" in text and text.count("- None.") <= len(SECTIONS)
    assert "In progress (last assistant message): Now adding jitter." in text
    assert "The mock returned 200" not in text.split("## Progress")[1].split("## Key")[0]


def test_focus_extras_and_note() -> None:
    result = DeterministicSummarizer(note="summary service failed (timeout)").summarize(
        SummaryRequest(turns=TURNS, budget_tokens=2000, focus_topic="mock", extra_context="user likes tabs"))
    assert result.source == "deterministic"
    assert "Focus 'mock'" in result.text and "Make the mock return 429" in result.text.split("Focus 'mock'")[1]
    assert "user likes tabs" in result.text and "summary service failed (timeout)" in result.text


def test_redaction_is_one_pass_over_many_formats() -> None:
    text = ("key sk-proj-abcdefghijklmnopqrstuvwxyz gh: ghp_abcdefghijklmnopqrstuvwxyz0123 "
            "aws AKIAABCDEFGHIJKLMNOP url postgres://app:s3cret@db:5432/x "
            "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123 password=hunter22 "
            '"api_key": "abcd1234efgh" -----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY----- '
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
    out = redact(text)
    for secret in ("sk-proj-abc", "ghp_abc", "AKIAABC", "s3cret", "abcdefghijklmnopqrstuvwxyz123", "hunter22",
                   "abcd1234efgh", "MIIB", "eyJhbGci"):
        assert secret not in out, secret
    assert "postgres://app:[REDACTED]@db:5432/x" in out and "Bearer [REDACTED]" in out
    benign = "the tokenizer counts tokens; def get_token(self): return token; see https://example.com/a/b"
    assert redact(benign) == benign

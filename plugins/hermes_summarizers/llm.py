"""Built-in summary backends: ``llm`` (OpenAI-compatible, httpx) and ``deterministic``.

``llm`` posts one chat-completions request to ``auxiliary.base_url`` with the model
``context.summary_model_override`` or ``auxiliary.model``. It retries 429 and 5xx a
bounded number of times (``auxiliary.max_retries``) with exponential backoff, all within ``auxiliary.timeout``
seconds in total (a retry that would not fit is not made), and turns every failure into a
:class:`SummaryError` whose ``kind`` says what went wrong; engines fall back to a local summary.
httpx is imported on first use, so importing this module stays cheap.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from typing import TYPE_CHECKING, Any

from hermes_core.engine.summarizer import SummaryError, SummaryRequest, SummaryResult, cap_answer
from hermes_core.text.redact import redact
from hermes_summarizers.deterministic import SECTIONS

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig

__all__ = ["LLMSummarizer", "build_prompt", "serialize_turns"]

PREAMBLE = (
    "You are a summarization agent creating a context checkpoint. Your output will be injected "
    "as reference material for a DIFFERENT assistant that continues the conversation. Do NOT "
    "respond to any questions or requests in the conversation — only output the structured "
    "summary, with no greeting or preamble. Write in the user's language. Never reproduce API "
    "keys, tokens, passwords, private keys or connection strings; write [REDACTED] instead."
)

_GUIDANCE = {
    "Goal": "what the user is trying to achieve overall",
    "Constraints & Preferences": "rules, styles and preferences the user stated",
    "Progress (Done / In Progress / Blocked)": "concrete actions with targets and outcomes; exact errors for Blocked",
    "Key Decisions": "each decision with the reason for it",
    "Resolved Questions": "questions already answered, with the answer",
    "Pending User Asks": "the user's requests not yet fulfilled, quoted verbatim",
    "Relevant Files": "every file path read, edited or created, and how",
    "Remaining Work": "what is left, as a to-do list, not as instructions",
    "Critical Context": "specific values: identifiers, commands, error messages, config values",
    "Tools & Patterns": "which tools were used and how they worked best",
}

_QUOTA_MARKERS = ("insufficient_quota", "quota exceeded", "quota_exceeded", "out of credit", "billing")
_MAX_RETRY_AFTER = 30.0
def _without_thinking(text: str) -> str:
    """``text`` without its ``<think>...</think>`` blocks; a linear scan (a regex retried the
    rest of the text at every unclosed ``<think>``)."""
    parts, pos = [], 0
    while (start := text.find("<think>", pos)) >= 0 and (end := text.find("</think>", start)) >= 0:
        parts.append(text[pos:start])
        pos = end + len("</think>")
    parts.append(text[pos:])
    return "".join(parts)


def serialize_turns(turns: list[dict[str, Any]]) -> str:
    """The turns as labelled plain text (they arrive already capped and redacted)."""
    parts = []
    for turn in turns:
        role = str(turn.get("role") or "?")
        content = turn.get("content") if isinstance(turn.get("content"), str) else ""
        if role == "tool":
            parts.append(f"[TOOL RESULT {turn.get('tool_call_id')}]: {content}")
            continue
        text = f"[{role.upper()}]: {content}"
        calls = [c["function"] for c in turn.get("tool_calls") or () if isinstance(c, dict) and "function" in c]
        if calls:
            text += "\n[Tool calls:\n" + "\n".join(f"  {c.get('name')}({c.get('arguments')})" for c in calls) + "\n]"
        parts.append(text)
    return "\n\n".join(parts)


def build_prompt(request: SummaryRequest) -> str:
    """The user prompt: template, turns, previous summary, memory context, focus topic."""
    template = "\n".join(f"## {name}\n[{_GUIDANCE[name]}]" for name in SECTIONS)
    turns = serialize_turns(request.turns)
    if request.previous_summary:
        head = (
            "You are updating a context compaction summary. PRESERVE all existing information "
            "that is still relevant. ADD new progress. Move items from In Progress to Done when "
            "completed and answered questions to Resolved Questions. Remove only information "
            "that is clearly obsolete.\n\n"
            f"PREVIOUS SUMMARY:\n{request.previous_summary}\n\nNEW TURNS TO INCORPORATE:\n{turns}"
        )
    else:
        head = f"Create a structured checkpoint summary of the conversation below.\n\nTURNS TO SUMMARIZE:\n{turns}"
    prompt = f"{head}\n\nUse exactly these sections:\n\n{template}\n\n"
    if request.extra_context.strip():
        prompt += (f"MEMORY PROVIDER CONTEXT (keep what it asks for):\n<memory-provider-context>\n"
                   f"{request.extra_context}\n</memory-provider-context>\n\n")
    prompt += f"Target about {request.budget_tokens} tokens. Be concrete. Write only the summary body."
    if request.focus_topic:
        prompt += (
            f'\n\nFOCUS TOPIC: "{request.focus_topic}"\nPRIORITISE preserving all information related '
            "to the focus topic. For content NOT related, summarise more aggressively. Focus topic "
            "sections should receive roughly 60-70% of the summary token budget. Still never "
            "reproduce credentials."
        )
    return prompt


class LLMSummarizer:
    """Summaries from an OpenAI-compatible chat-completions endpoint.

    ``backoff`` is the first retry delay in seconds (doubled per retry; a ``Retry-After``
    header wins, capped at 30 s).
    """

    name = "llm"

    def __init__(self, config: HermesConfig, *, backoff: float = 0.5) -> None:
        self.config = config
        self.backoff = backoff

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        aux = self.config.auxiliary
        model = self.config.context.summary_model_override or aux.model
        if not aux.base_url or not model:
            raise SummaryError("other", "no auxiliary model configured (auxiliary.base_url and auxiliary.model)")
        body = {
            "model": model,
            "messages": [{"role": "system", "content": PREAMBLE}, {"role": "user", "content": build_prompt(request)}],
        }  # no temperature or max_tokens: reasoning models reject the one, the other truncated their summaries
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(aux.api_key_env, "") if aux.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        text = self._post(aux.base_url.rstrip("/") + "/chat/completions", body, headers, aux.timeout, aux.max_retries)
        text = _without_thinking(text).strip()
        if not text:
            raise SummaryError("other", "the summary model returned an empty answer")
        return SummaryResult(text=redact(cap_answer(text, request.budget_tokens)), source="llm")

    def _post(self, url: str, body: dict[str, Any], headers: dict[str, str], timeout: float, retries: int) -> str:
        """The answer text within ``timeout`` seconds in total (connect, read and retries).

        httpx's timeouts bound each socket operation, so a server trickling a byte a second
        never trips them; the attempts therefore run in a worker thread and this call stops
        waiting at the deadline, closing the client so the worker ends too.
        """
        deadline = time.monotonic() + timeout
        outcome: dict[str, Any] = {}
        clients: list[Any] = []

        def work() -> None:
            try:
                outcome["text"] = self._attempts(url, body, headers, deadline, retries, clients)
            except BaseException as exc:  # handed to the caller's thread
                outcome["error"] = exc

        worker = threading.Thread(target=work, name="hermes-summary-call", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            for client in clients:
                with contextlib.suppress(Exception):
                    client.close()
            raise SummaryError("timeout", f"no complete answer from {url} within {timeout:g} s "
                                          "(auxiliary.timeout bounds the whole summary call, retries included)")
        if "error" in outcome:
            raise outcome["error"]
        return str(outcome.get("text", ""))

    def _attempts(self, url: str, body: dict[str, Any], headers: dict[str, str], deadline: float, retries: int,
                  clients: list[Any]) -> str:
        import httpx

        attempts = retries + 1
        remaining = max(deadline - time.monotonic(), 0.001)
        with httpx.Client(timeout=remaining) as client:
            clients.append(client)
            for attempt in range(attempts):
                try:
                    resp = client.post(url, json=body, headers=headers)
                except httpx.TimeoutException:
                    raise SummaryError("timeout", f"no answer from {url} within the deadline") from None
                except httpx.HTTPError as exc:
                    raise SummaryError("connection", f"cannot reach {url}: {type(exc).__name__}: {exc}") from None
                status = resp.status_code
                snippet = " ".join(resp.text[:200].split())
                if status == 429 and any(m in resp.text.lower() for m in _QUOTA_MARKERS):
                    raise SummaryError("quota", f"HTTP 429 (quota): {snippet}")
                if status == 429 or status >= 500:
                    delay = self._delay(attempt, resp.headers.get("retry-after"))
                    if attempt + 1 < attempts and time.monotonic() + delay < deadline:
                        time.sleep(delay)
                        continue
                    message = f"HTTP {status} after {attempt + 1} attempt(s): {snippet}"
                    raise SummaryError("quota", message) if status == 429 else SummaryError("other", message)
                if status in (401, 403):
                    raise SummaryError("auth", f"HTTP {status}: {snippet}")
                if status == 402 or (status >= 400 and any(m in resp.text.lower() for m in _QUOTA_MARKERS)):
                    raise SummaryError("quota", f"HTTP {status}: {snippet}")
                if status >= 400:
                    raise SummaryError("other", f"HTTP {status}: {snippet}")
                return _answer_text(resp.text)
        raise SummaryError("other", "no attempts made")  # pragma: no cover - attempts >= 1

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(max(float(retry_after), 0.0), _MAX_RETRY_AFTER)
            except ValueError:
                pass
        return float(self.backoff * (2**attempt))


def _answer_text(raw: str) -> str:
    """``choices[0].message.content`` of a chat-completions answer, or SummaryError."""
    try:
        data = json.loads(raw)
        message = data["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise SummaryError("other", f"the summary model's answer is not chat-completions JSON: {raw[:120]!r}") from None
    content = message.get("content") if isinstance(message, dict) else message
    if isinstance(content, list):
        content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ("" if content is None else str(content))

"""The arms: how each strategy keeps a session under its window, played as a runtime would.

:func:`play` appends the session's messages one by one and, before every model request
(the next message is the assistant's), compacts with the arm when the context reaches
the threshold. Every compaction's result is checked for API problems its input did not have.
"""

from __future__ import annotations

import json
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_core.engine.summarizer import SummaryRequest, SummaryResult
from hermes_core.text.messages import api_problems, sanitize_tool_pairs, text_of
from hermes_core.text.tokens import estimate_message_tokens, estimate_messages_tokens

Message = dict[str, Any]
Compact = Callable[[list[Message], int], list[Message]]


class LossySummarizer:
    """A fake LLM: extractive (lines with digits, paths, code or cue words), then each line
    dropped with probability ``drop_rate`` (seeded by the line, so deterministic)."""

    name = "lossy"

    def __init__(self, drop_rate: float = 0.5) -> None:
        self.drop_rate = drop_rate
        self.calls = 0
        self.input_chars = 0

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.calls += 1
        lines = (request.previous_summary or "").splitlines()
        for turn in request.turns:
            lines += text_of(turn.get("content")).splitlines()
        self.input_chars += sum(len(x) for x in lines)
        kept = []
        for line in lines:
            if not any(ch.isdigit() for ch in line) and "/" not in line and "`" not in line:
                continue
            if zlib.crc32(line.encode()) % 1000 < self.drop_rate * 1000:
                continue
            kept.append(line.strip()[:300])
        budget = request.budget_tokens * 4
        text, used = [], 0
        for line in reversed(kept):  # newest first, like a model that favours recent turns
            if used + len(line) > budget:
                break
            text.append(line)
            used += len(line) + 1
        return SummaryResult(text="## Summary\n" + "\n".join(reversed(text)), source="llm")


class EchoSummarizer:
    """A fake LLM's top tier: copies the newest turns verbatim until its budget is full
    (a model that favours recent text and rewrites nothing)."""

    name = "echo"

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        budget, parts, used = request.budget_tokens * 4, [], 0
        for turn in reversed(request.turns):
            text = text_of(turn.get("content")).strip()
            if not text:
                continue
            if used + len(text) > budget:
                parts.append(text[-max(0, budget - used):])
                break
            parts.append(text)
            used += len(text) + 1
        return SummaryResult(text="## Summary\n" + "\n".join(reversed(parts)), source="llm")


def tiered(tier: str, drop_rate: float = 0.5) -> Any:
    """The tiered fake LLM: ``echo`` (copies recent text), ``extractive`` (keeps every line
    with digits, paths or code) and ``lossy`` (extractive, then drops ``drop_rate`` of lines)."""
    if tier == "echo":
        return EchoSummarizer()
    return LossySummarizer(0.0 if tier == "extractive" else drop_rate)


class CountingSummarizer:
    """Wraps a summarizer to count calls and input size."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "summarizer")
        self.calls = 0
        self.input_chars = 0

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.calls += 1
        self.input_chars += sum(len(text_of(t.get("content"))) for t in request.turns)
        return self.inner.summarize(request)


@dataclass
class PlayResult:
    arm: str
    context: list[Message]
    compactions: int = 0
    violations: int = 0
    over_window: int = 0  # requests above the context length
    requests: int = 0
    aux_calls: int = 0
    summarizer_input_chars: int = 0
    seconds: list[float] = field(default_factory=list)
    cache_breaks: int = 0  # requests whose messages do not start with the previous request's (measured)
    engine: Any = None


def truncation(messages: list[Message], threshold: int) -> list[Message]:
    """Keep the system message and the newest messages within half the threshold, from a user turn."""
    keep, used = len(messages), 0
    while keep > 1 and used + estimate_message_tokens(messages[keep - 1]) <= threshold // 2:
        keep -= 1
        used += estimate_message_tokens(messages[keep])
    while keep < len(messages) - 1 and messages[keep].get("role") != "user":  # start on a user turn
        keep += 1
    return sanitize_tool_pairs(messages[:1] + messages[keep:])


MASK = "[old tool output masked]"


def masking(messages: list[Message], threshold: int) -> list[Message]:
    """Observation masking: tool outputs older than the newest 30 % of the threshold become a marker."""
    out, used = list(messages), 0
    for i in range(len(out) - 1, 0, -1):
        used += estimate_message_tokens(out[i])
        if used > threshold * 0.3 and out[i].get("role") == "tool" and out[i].get("content") != MASK:
            out[i] = {**out[i], "content": MASK}
    return out


def _scratch_home(engine_name: str) -> tempfile.TemporaryDirectory:
    """A home for one arm's engine, removed when the engine is collected (or at exit), so a
    run leaves nothing in the temp directory."""
    return tempfile.TemporaryDirectory(prefix=f"compact-bench-{engine_name}-")


def compressor(summarizer: Any, context_length: int, verify: bool = True) -> tuple[Compact, Any]:
    from hermes_compressor import CompressorEngine
    from hermes_summarizers.deterministic import DeterministicSummarizer

    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.context import PluginContext

    config = HermesConfig()
    config.model.context_length = context_length
    counted = CountingSummarizer(summarizer)
    home = _scratch_home("compressor")
    engine = CompressorEngine(PluginContext(home=Path(home.name), config=config,
                                            summarizer=counted, fallback_summarizer=DeterministicSummarizer()))
    engine.scratch_home = home
    engine.update_model("bench", context_length)
    engine.verify_summaries = verify
    engine.counted = counted

    def compact(messages: list[Message], tokens: int) -> list[Message]:
        return engine.compress(messages, current_tokens=tokens).messages

    return compact, engine


def lcm(context_length: int) -> tuple[Compact, Any]:
    from hermes_context_lcm.engine import LCMEngine
    from hermes_context_lcm.settings import LCMSettings
    from hermes_summarizers.deterministic import DeterministicSummarizer

    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.context import PluginContext

    config = HermesConfig()
    config.model.context_length = context_length
    counted = CountingSummarizer(DeterministicSummarizer())
    home = _scratch_home("lcm")
    engine = LCMEngine(PluginContext(home=Path(home.name), config=config,
                                     settings=LCMSettings(), summarizer=counted,
                                     fallback_summarizer=DeterministicSummarizer()))
    engine.scratch_home = home
    engine.update_model("bench", context_length)
    engine.on_session_start(f"bench-{id(engine)}")
    engine.counted = counted

    def compact(messages: list[Message], tokens: int) -> list[Message]:
        answer = engine.compress(messages, current_tokens=tokens)
        return getattr(answer, "messages", answer)  # a CompactionResult or the bare list

    return compact, engine


def play(arm: str, messages: list[Message], context_length: int, compact: Compact | None,
         engine: Any = None) -> PlayResult:
    threshold = context_length // 2
    result = PlayResult(arm, [messages[0]], engine=engine)
    context = result.context
    tokens = estimate_message_tokens(messages[0])
    sent: list[Message] = []  # the previous request, as sent
    for i, msg in enumerate(messages[1:], start=1):
        context.append(msg)
        tokens += estimate_message_tokens(msg)
        request_due = i + 1 >= len(messages) or messages[i + 1].get("role") == "assistant"
        if not request_due:
            continue
        if compact is not None and tokens >= threshold:
            started = time.perf_counter()
            after = compact(context, tokens)
            result.seconds.append(time.perf_counter() - started)
            if after is not context:
                result.compactions += 1
                result.violations += _new_problem(context, after)
                context[:] = after
                tokens = estimate_messages_tokens(context)
        result.requests += 1
        result.over_window += tokens > context_length
        result.cache_breaks += bool(sent) and not _extends(context, sent)
        sent = list(context)
    counted = getattr(engine, "counted", None)
    if counted is not None:
        result.aux_calls, result.summarizer_input_chars = counted.calls, counted.input_chars
    return result


def _new_problem(before: list[Message], after: list[Message]) -> bool:
    """Whether ``after`` has a kind of API problem ``before`` did not (a real transcript can
    arrive broken; an engine must not break it further)."""
    from compact_bench.fuzz import problem_kinds

    return bool(api_problems(after)) and bool(problem_kinds(after) - problem_kinds(before))


def _extends(request: list[Message], previous: list[Message]) -> bool:
    """Whether ``request`` starts with ``previous`` message for message (a prompt cache hit)."""
    return len(request) >= len(previous) and all(
        a is b or a == b for a, b in zip(request, previous, strict=False))


def recover(engine: Any, facts: list[Any], context: list[Message]) -> tuple[list[int], int]:
    """One recovery round trip per fact missing from ``context``: ``lcm_grep`` for its first
    value, then ``lcm_expand`` of the best hit; 1 when the expanded text holds all its values.
    Returns the per-fact outcome (kept or recovered) and how many round trips were made."""
    text = retained_text(context)
    out, trips = [], 0
    for fact in facts:
        if all(v in text for v in fact.values):
            out.append(1)
            continue
        trips += 1
        found = json.loads(engine.handle_tool_call("lcm_grep", {"pattern": f'"{fact.values[0]}"', "limit": 1}))
        hits = found.get("results") or []
        if not hits:
            out.append(0)
            continue
        expanded = engine.handle_tool_call("lcm_expand", {"id": hits[0]["id"], "max_tokens": 50_000})
        body = json.dumps(json.loads(expanded), ensure_ascii=False)
        out.append(int(all(v in body or v in text for v in fact.values)))
    return out, trips


def retained_text(context: list[Message]) -> str:
    return json.dumps(context, ensure_ascii=False)

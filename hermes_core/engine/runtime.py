"""The guarded compress runtime: run the engine, judge its result, report it.

An engine's result is judged by what matters to the user: the current user message's
content is still there, as a user message (annotated, prefixed with a summary, or merged
with the summary as seed 2.6 does are all fine), and the list is API-valid (tool pairs
are repaired when that suffices). Anything else keeps the old messages, with a note that
says why. Observers of ``hermes_compaction_finished`` get the same
:class:`~hermes_core.records.CompactionResult` the caller gets.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any

from hermes_core.guard import deep_copy
from hermes_core.records import CompactionResult
from hermes_core.text.messages import api_problems, sanitize_tool_pairs, text_of
from hermes_core.text.tokens import estimate_messages_tokens

log = logging.getLogger("hermes_core")

Message = dict[str, Any]


def as_result(value: Any, engine: Any = None) -> CompactionResult | None:
    """An engine's answer as a result: a CompactionResult as is, a bare list with the engine's own notes."""
    if isinstance(value, CompactionResult):
        return value
    if isinstance(value, list):
        return CompactionResult(
            messages=value,
            summary_source=getattr(engine, "last_summary_source", "none"),
            note=str(getattr(engine, "last_compaction_note", "") or ""),
        )
    return None


def keeps_user_ask(result: list[Message], keep: Message | None) -> bool:
    """Whether the current user message's content survives, in a user message."""
    if keep is None:
        return True
    wanted = text_of(keep.get("content")).strip()
    for msg in result:
        if msg.get("role") != "user":
            continue
        if msg == keep or (wanted and wanted in text_of(msg.get("content"))):
            return True
    return False


def judge(messages: list[Message], result: Any, keep: Message | None) -> tuple[list[Message] | None, str]:
    """``(usable messages, "")``, or ``(None, why not)``; repairs tool pairs when that suffices."""
    if not isinstance(result, list) or not all(isinstance(m, dict) for m in result):
        return None, f"a {type(result).__name__} instead of a list of messages"
    if messages and not result:
        return None, "an empty list"
    if keep is None:
        keep = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    if not keeps_user_ask(result, keep):
        return None, "a list without the current user message's content"
    problems = api_problems(result)
    if problems and not api_problems(messages):  # an invalid input is not the engine's fault
        repaired = sanitize_tool_pairs(result)
        still = api_problems(repaired)
        if still:
            return None, f"an invalid message list ({still[0]})"
        log.info("compaction result repaired: %s", problems[0])
        return repaired, f"repaired tool pairs ({problems[0]})"
    return result, ""


def run_compress(
    hook: Any,
    engine: Any,
    origin: str,
    messages: list[Message],
    *,
    current_tokens: int | None,
    focus_topic: str | None,
    force: bool,
    session_id: str,
    keep: Message | None,
) -> CompactionResult:
    """Compact ``messages`` through ``hook.hermes_engine_compress``; always a result, never raises."""
    started = time.perf_counter()
    before = estimate_messages_tokens(messages)
    given = deep_copy(messages)  # nothing the engine or a wrapper does reaches the caller's list
    figures: dict[str, Any] = {
        "engine": str(getattr(engine, "name", "")),
        "session_id": session_id,
        "tokens_before": before,
        "messages_before": len(messages),
        "forced": force,
        "focus_topic": focus_topic,
    }
    raw = hook.hermes_engine_compress(
        messages=given, current_tokens=current_tokens, focus_topic=focus_topic, force=force
    )
    answer = as_result(raw, engine)

    def unchanged(note: str) -> CompactionResult:
        return CompactionResult(
            messages=messages, note=note, tokens_after=before, messages_after=len(messages),
            duration_s=time.perf_counter() - started, changed=False, **figures,
        )

    if answer is None:
        why = "the engine failed or returned nothing usable" if raw is None else f"a {type(raw).__name__}"
        return unchanged(f"compaction ignored: {why}; the messages are kept as they were")
    if answer.messages is given or answer.messages == messages:
        return unchanged(answer.note)
    usable, problem = judge(messages, answer.messages, keep)
    if usable is None:
        log.warning("context engine %s returned %s; the messages are kept as they were", origin, problem)
        return unchanged(f"compaction refused: the engine returned {problem}; the messages are kept as they were")
    result = dataclasses.replace(
        answer, messages=list(usable), repairs=(problem,) if problem else (),
        tokens_after=estimate_messages_tokens(usable), messages_after=len(usable),
        duration_s=time.perf_counter() - started, changed=True, **figures,
    )
    hook.hermes_compaction_finished(report=result)
    return result

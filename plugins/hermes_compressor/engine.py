"""The built-in ``compressor`` engine: prune, protect head, budgeted tail, summarize, repair.

Seed sections 2 and 4, plus the lessons users taught the reference system: the last real
user message survives verbatim, tool-call groups are never split, a summarizer that fails
in any way (refused, 401/429/5xx, timeout, garbage, empty, cooling down) is replaced by
the offline deterministic summary and then by trimming, so the window holds, and
automatic compaction stops after two passes that did not bring the real prompt under the
threshold. Written only against the public
API; the summary backend is ``ctx.summarizer``.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence
from typing import Any

from hermes_compressor.boundaries import Plan, last_real_user, plan
from hermes_compressor.constants import (
    ANCHOR_SHARE,
    FAILURE_COOLDOWN_SECONDS,
    INEFFECTIVE_LIMIT,
    MIN_SUMMARY_TOKENS,
    MIN_TAIL_MESSAGES,
    SUMMARY_CONTEXT_SHARE,
    SUMMARY_PREFIX,
    SUMMARY_TOKENS_CEILING,
    TRIM_MAX_CHARS,
    TRIM_MIN_CHARS,
    TRIM_SUMMARY_SHARE,
)
from hermes_compressor.measure import Estimates, measure
from hermes_compressor.prepare import cap_text, summary_turns
from hermes_compressor.prune import dedup_tool_outputs, prune_message, prunes_tool_output, tool_index
from hermes_compressor.span import Span
from hermes_compressor.summary_message import (
    is_summary,
    merge_into,
    place_summary,
    split_summary,
    summary_block,
    with_system_note,
)
from hermes_compressor.summary_shrink import shrink_summary
from hermes_core import CompactionResult, ContextEngine, PluginContext
from hermes_core.engine.summarizer import SummaryError, SummaryRequest, cap_answer
from hermes_core.text.ledger import ANCHOR_HEADING, Verification, extract_ledger, scan_window, verify_summary
from hermes_core.text.messages import sanitize_tool_pairs, text_of
from hermes_core.text.redact import redact
from hermes_core.text.tokens import CHARS_PER_TOKEN, content_chars, estimate_message_tokens, estimate_messages_tokens

log = logging.getLogger("hermes_compressor")

Message = dict[str, Any]


def _cut_long(msg: Message, limit: int) -> Message:
    """``msg`` with its content as text (images become ``[image]``), cut to its head (60 %)
    and tail (30 %) when longer than ``limit`` characters."""
    content = msg.get("content")
    if isinstance(content, list):
        content = text_of(content)
    elif not isinstance(content, str) or len(content) <= limit:
        return msg
    if len(content) > limit:
        head, tail = limit * 6 // 10, limit * 3 // 10
        content = (f"{content[:head]}\n...[{len(content) - head - tail} chars cut by compaction]..."
                   f"\n{content[-tail:]}")
    return {**msg, "content": content}


_DEFAULT_PRE_COMPRESS = getattr(PluginContext, "__dataclass_fields__", {}).get("pre_compress")
_DEFAULT_PRE_COMPRESS = getattr(_DEFAULT_PRE_COMPRESS, "default", None)


class CompressorEngine(ContextEngine):
    """Summarizing compaction with a protected head and a token-budgeted tail."""

    def __init__(self, ctx: PluginContext | None = None) -> None:
        if ctx is None:
            from hermes_core import PluginContext

            ctx = PluginContext.default()
        cfg = ctx.config.context
        self.threshold_percent = cfg.threshold_percent
        self.protect_first_n = cfg.protect_first_n
        self.summary_target_ratio = cfg.summary_target_ratio
        self.tail_token_budget = 0
        self.max_summary_tokens = 0
        self._ineffective = 0
        self._awaiting_verdict = False
        self._cooldown_until = 0.0  # the summarizer is skipped (deterministic fallback) until then
        self._cooldown_reason = ""
        self._fallback_reason = ""
        self.last_summary = ""  # the body of the newest summary, for `compact` and callers
        self.last_verification: Verification | None = None  # its check against the span's must-keep ledger
        self.verify_summaries = True  # off only to measure what verification buys (compact-bench)
        super().__init__(ctx)

    @property
    def name(self) -> str:
        return "compressor"

    # -- counters and triggers -------------------------------------------------------

    def update_model(self, model: str, context_length: int) -> None:
        super().update_model(model, context_length)
        self.tail_token_budget = int(self.threshold_tokens * self.summary_target_ratio)
        self.max_summary_tokens = min(int(self.context_length * SUMMARY_CONTEXT_SHARE), SUMMARY_TOKENS_CEILING)
        self._ineffective = 0
        self._awaiting_verdict = False

    def update_from_response(self, usage: dict[str, Any]) -> None:
        prompt = int(usage.get("prompt_tokens") or usage.get("input_tokens") or 0)
        completion = int(usage.get("completion_tokens") or usage.get("output_tokens") or 0)
        self.last_prompt_tokens, self.last_completion_tokens = prompt, completion
        self.last_total_tokens = int(usage.get("total_tokens") or prompt + completion)
        if prompt <= 0:
            return
        if prompt < self.threshold_tokens:
            self._ineffective = 0
        elif self._awaiting_verdict:
            self._ineffective += 1
            self.last_compaction_note = (
                f"compaction did not bring the prompt under the threshold ({prompt} >= {self.threshold_tokens} "
                f"tokens; {self._ineffective} time(s) in a row)")
            if self._ineffective >= INEFFECTIVE_LIMIT:
                self.last_compaction_note += (
                    "; automatic compaction is paused: the system prompt, tools or the kept turns "
                    "exceed it. Use /compact <focus> or start a new session")
        self._awaiting_verdict = False

    def _blocked(self) -> str:
        """Why automatic compaction is off right now, or ''."""
        if self._ineffective >= INEFFECTIVE_LIMIT:
            return (f"automatic compaction paused after {self._ineffective} ineffective passes "
                    "(manual /compact still works)")
        return ""

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        if not self.threshold_tokens or tokens < self.threshold_tokens:
            return False
        blocked = self._blocked()
        if blocked:
            self.last_compaction_note = blocked
        return not blocked

    def should_compress_preflight(self, messages: list[Message]) -> bool:
        """The rough estimate reaches the threshold and automatic compaction is not paused."""
        return super().should_compress_preflight(messages) and not self._blocked()

    def on_session_reset(self) -> None:
        super().on_session_reset()
        self._ineffective = 0
        self._awaiting_verdict = False
        self._cooldown_until, self._cooldown_reason = 0.0, ""
        self.last_summary_source, self.last_compaction_note = "none", ""

    def get_status(self) -> dict[str, Any]:
        status = super().get_status()
        status.update(
            tail_token_budget=self.tail_token_budget,
            max_summary_tokens=self.max_summary_tokens,
            ineffective_compactions=self._ineffective,
            blocked=self._blocked(),
        )
        return status

    # -- compaction ------------------------------------------------------------------------

    def compress(
        self,
        messages: list[Message],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
    ) -> CompactionResult:
        """The compacted copy of ``messages`` (the same list object when nothing changes),
        with the summary, where it came from and the compaction note."""
        out = self._compress_list(messages, current_tokens, focus_topic, force)
        summarized = out is not messages and self.last_summary_source != "none"
        return self.result(out, summary=self.last_summary if summarized else "",
                           summary_source=self.last_summary_source, note=self.last_compaction_note)

    def _compress_list(self, messages: list[Message], current_tokens: int | None, focus_topic: str | None,
                       force: bool) -> list[Message]:
        try:
            return self._compress(messages, current_tokens, focus_topic, force)
        except Exception as exc:
            log.warning("compaction failed, messages kept: %s: %s", type(exc).__name__, exc,
                        exc_info=log.isEnabledFor(logging.DEBUG))
            why = f"compaction failed ({type(exc).__name__}: {exc})"
            try:  # the window still has to hold: trimming needs no summarizer
                return self._trim(messages, estimate_messages_tokens(messages), force, why)
            except Exception:
                self.last_compaction_note = f"{why}; nothing was dropped"
                return messages

    def _compress(self, messages: list[Message], current_tokens: int | None, focus_topic: str | None,
                  force: bool) -> list[Message]:
        tokens, carriers = measure(messages)
        total = tokens.total
        if not force:
            if (current_tokens if current_tokens is not None else total) < self.threshold_tokens:
                return messages
            blocked = self._blocked()
            if blocked:
                self.last_compaction_note = blocked
                return messages
        else:
            self._cooldown_until = 0.0  # a manual /compact retries the summarizer now
        first = self.compression_count == 0 and not carriers
        split = plan(messages, tokens, self.protect_first_n, first, self.tail_token_budget, force)
        span = split.cut - split.head_end - (split.pinned is not None)
        if span <= 0:
            return self._trim(messages, total, force, f"nothing to summarize: all {len(messages)} messages are "
                                                      "in the protected head or tail")
        previous, turns = self._span_turns(messages, split, carriers)
        span_tokens = total - sum(tokens[: split.head_end]) - sum(tokens[split.cut:]) - (
            tokens[split.pinned] if split.pinned is not None else 0)
        request = self._request(turns, span_tokens, previous, focus_topic)
        self._fallback_reason = ""
        outcome = self._summarize(request)
        if outcome is None:
            return self._trim(messages, total, force, self._fallback_reason)
        body, source = outcome
        # kept tool outputs that are pruned to one line lose their identifiers as surely as the span does
        ledger = extract_ledger([*self._pruned_outputs(messages, tokens, split), *scan_window(turns)],
                                previous or "") if self.verify_summaries else []
        # The earlier anchor index keeps its room (within the summary ceiling): re-compaction cannot squeeze it out.
        room = int(request.budget_tokens * 4 * ANCHOR_SHARE)
        if previous:
            room = max(room, min(room + len(previous.partition(ANCHOR_HEADING)[2]), self.max_summary_tokens * 4))
        for attempt in range(2):
            checked = verify_summary(body, ledger, max_chars=room)
            result = self._assemble(messages, tokens, split, checked.text)
            after = sum(estimate_message_tokens(m) for m in result)
            if after < total or not previous or attempt:
                break
            # a summary of little more than a summary: a smaller index, rather than trimming the summary itself
            room = min(room, int(span_tokens * 4 * 0.995) - len(body) - len(SUMMARY_PREFIX) - 100)
        self.last_verification = checked
        self.last_summary = checked.text
        if after >= total:
            return self._trim(messages, total, force,
                              f"a summary of {span} messages would not be smaller than them")
        self.compression_count += 1
        self.last_summary_source = source  # type: ignore[assignment]
        self._awaiting_verdict = not force
        self.last_prompt_tokens = 0
        self.last_compaction_note = self._report(span, total, after, source, focus_topic, result)
        return result

    def _trim(self, messages: list[Message], total: int, force: bool, why: str) -> list[Message]:
        """The last resort when summarizing cannot shrink the list: every message but the
        system prompt and the last real user message pruned (tool outputs described, big
        arguments shrunk) and long texts cut to head and tail. Same messages, same roles,
        so pairing and alternation are unchanged; the input when even that does not help."""
        tools = tool_index(messages)
        user = last_real_user(messages)
        limit = max(TRIM_MIN_CHARS, min(TRIM_MAX_CHARS, self.threshold_tokens))  # small windows cut deeper
        trimmed = [m if i == user or (i == 0 and m.get("role") == "system")
                   else _cut_long(prune_message(m, tools), limit) for i, m in enumerate(messages)]
        carriers = [i for i, m in enumerate(messages) if i != user and is_summary(m)]
        if carriers:
            trimmed = self._shrink_summaries(messages, trimmed, carriers, tools, limit)
        after = sum(estimate_message_tokens(m) for m in trimmed)
        if after >= total:
            self.last_compaction_note = f"{why}, and nothing else can be cut: nothing was changed"
            return messages
        self.compression_count += 1
        self.last_summary_source, self.last_summary = "none", ""
        self._awaiting_verdict = not force
        self.last_prompt_tokens = 0
        self.last_compaction_note = f"{why}; trimmed long messages instead: ~{total} -> ~{after} tokens"
        if after >= self.threshold_tokens:
            self.last_compaction_note += f", still over the {self.threshold_tokens}-token threshold"
        return trimmed

    def _pruned_outputs(self, messages: list[Message], tokens: Estimates, split: Plan) -> list[Message]:
        """The kept tool outputs :meth:`_assemble` will prune to a description (the head's, and
        the tail's outside its raw budget), for the ledger: their identifiers must survive too."""
        tail = range(split.cut, self._prune_boundary(tokens, split.cut))
        return [m for i in (*range(1 if messages[0].get("role") == "system" else 0, split.head_end), *tail)
                if prunes_tool_output(m := messages[i])]

    def _shrink_summaries(self, messages: list[Message], trimmed: list[Message], carriers: list[int],
                          tools: dict[str, str], limit: int) -> list[Message]:
        """``trimmed`` with each summary message rebuilt instead of cut blindly: the summary is
        shrunk by priority (:func:`shrink_summary`) to the room the other trimmed messages leave
        under half the threshold (within a share of the window), but never below the size the
        blind cut left, so the window holds as well as before; a merged neighbour's own text is
        cut like any message."""
        others = sum(estimate_message_tokens(m) for i, m in enumerate(trimmed) if i not in carriers)
        # the trimmed list lands at most at half the threshold, where a summarizing compaction aims,
        # and the summary keeps at most TRIM_SUMMARY_SHARE of the window (corpus replays at 16k:
        # 186 compactions with the blind cut, 216 with this cap, 234 without one)
        room = min((self.threshold_tokens // 2 - others) * CHARS_PER_TOKEN,
                   int(self.context_length * TRIM_SUMMARY_SHARE) * CHARS_PER_TOKEN) // len(carriers)
        out = list(trimmed)
        for i in carriers:
            body, remainder = split_summary(messages[i])
            own = _cut_long(prune_message(remainder, tools), limit) if remainder is not None else None
            own_chars = content_chars(own.get("content"))[0] if own is not None else 0
            floor = max(TRIM_MIN_CHARS, limit - len(summary_block("")))  # the blind cut's size
            fits = room - len(summary_block("")) - own_chars - 100
            block = summary_block(shrink_summary(body, max(floor, fits)))
            out[i] = {**messages[i], "content": block} if own is None else merge_into(own, block)
        return out

    @staticmethod
    def _span_turns(messages: list[Message], split: Plan, carriers: list[int]) -> tuple[str | None, Span]:
        """The turns to summarize (the span without the pinned message), with earlier
        summaries taken out as the previous summary. Ranges, not a walk over the span nor
        a copy of it: only the ``carriers`` (indices of messages carrying a summary) are
        looked at, and later steps read only the span's ends."""
        start, end, pinned = split.head_end, split.cut, split.pinned

        def between(a: int, b: int) -> list[range | Message]:
            return [range(a, pinned), range(pinned + 1, b)] if pinned is not None and a <= pinned < b \
                else [range(a, b)]

        previous: str | None = None
        pieces: list[range | Message] = []
        pos = start
        for i in carriers:
            if i < start or i >= end or i == pinned:
                continue
            pieces += between(pos, i)
            body, remainder = split_summary(messages[i])
            if previous is not None:
                pieces.append({"role": "system", "content": f"[earlier summary]\n{previous}"})
            previous = body
            if remainder is not None:
                pieces.append(remainder)
            pos = i + 1
        if pos == start:
            return None, Span(messages, between(start, end))
        pieces += between(pos, end)
        return previous, Span(messages, pieces)

    def _pre_compress_hooked(self) -> bool:
        """Whether anyone listens to ``pre_compress``: the per-message copies it is given
        are skipped when it is the context's default or no provider implements the hook."""
        fn = self.ctx.pre_compress
        if fn is _DEFAULT_PRE_COMPRESS:
            return False
        try:
            host = fn.__self__  # type: ignore[attr-defined]
            return bool(host.memory.hook.hermes_memory_on_pre_compress.get_hookimpls()
                        or host.pm.hook.hermes_compaction_started.get_hookimpls())
        except Exception:
            return True  # not the host we know: call it

    def _request(self, turns: Sequence[Message], span_tokens: int, previous: str | None,
                 focus_topic: str | None) -> SummaryRequest:
        budget = max(MIN_SUMMARY_TOKENS, min(int(span_tokens * self.summary_target_ratio), self.max_summary_tokens))
        try:
            extra = self.ctx.pre_compress([dict(m) for m in turns]) or "" if self._pre_compress_hooked() else ""
        except Exception as exc:
            log.warning("pre_compress failed: %s: %s", type(exc).__name__, exc)
            extra = ""
        return SummaryRequest(
            turns=summary_turns(turns, focus=focus_topic or ""),
            budget_tokens=budget,
            # the earlier anchor index is re-checked by the ledger, not summarized again
            previous_summary=cap_text(previous.split(ANCHOR_HEADING)[0], 24_000, 12_000, 12_000) if previous else None,
            focus_topic=redact(focus_topic) if focus_topic else None,  # the focus text leaves too
            extra_context=cap_text(str(extra), 8_000, 6_000, 2_000),
        )

    def _summarize(self, request: SummaryRequest) -> tuple[str, str] | None:
        """``(summary body, source)``: a failing or cooling summarizer is replaced by the
        offline fallback (source ``fallback``), so the window holds. None only when no
        summarizer at all is installed; the caller then trims."""
        summarizer = self.ctx.summarizer or self.ctx.fallback_summarizer
        if summarizer is None:
            self._fallback_reason = "no summarizer is installed (the hermes_summarizers plugin is off)"
            return None
        now = time.monotonic()
        if now < self._cooldown_until:
            error = f"{self._cooldown_reason}; not retried for {int(self._cooldown_until - now)} more s"
        else:
            try:
                result = summarizer.summarize(request)
                if result.text.strip():
                    return redact(cap_answer(result.text, request.budget_tokens)), result.source
                error = f"{getattr(summarizer, 'name', 'summarizer')} returned an empty summary"
            except SummaryError as exc:
                error = f"{exc.kind}: {exc}"
                self._cooldown_until = time.monotonic() + FAILURE_COOLDOWN_SECONDS
                self._cooldown_reason = error
            except Exception as exc:
                error = f"other: {type(exc).__name__}: {exc}"
        self._fallback_reason = error
        note = f"The summary service failed ({error}); this summary was built locally from the turns."
        fallback = self.ctx.fallback_summarizer
        if fallback is None:
            self._fallback_reason = f"summary failed ({error}) and no fallback summarizer is installed"
            return None
        return fallback.summarize(dataclasses.replace(request, note=note)).text, "fallback"

    def _assemble(self, messages: list[Message], tokens: Estimates, split: Plan, body: str) -> list[Message]:
        """Head (+ pinned user message) + summary + tail, pruned, alternating, pairs repaired."""
        n = len(messages)
        tools = tool_index([*messages[: split.head_end], *messages[split.cut:]])  # only kept messages are pruned
        prune_before = self._prune_boundary(tokens, split.cut)
        head = [dict(m) for m in messages[: split.head_end]]
        if head and head[0].get("role") == "system":
            head[0] = with_system_note(head[0])
        prefix = [head[0]] if head and head[0].get("role") == "system" else []
        prefix += [prune_message(m, tools) for m in head[len(prefix):]]
        if split.pinned is not None:
            prefix.append(dict(messages[split.pinned]))
        tail = [prune_message(messages[i], tools) if i < prune_before else dict(messages[i])
                for i in range(split.cut, n)]
        user = last_real_user(messages)
        locked = user - split.cut if user is not None and user >= split.cut else None
        kept = dedup_tool_outputs([*prefix, *tail])
        prefix, tail = kept[: len(prefix)], kept[len(prefix):]
        result = sanitize_tool_pairs(place_summary(prefix, summary_block(body), tail, locked))
        if sum(estimate_message_tokens(m) for m in result) >= self.threshold_tokens:
            keep_from = len(result) - MIN_TAIL_MESSAGES
            result = [prune_message(m, tools) if 0 < i < keep_from else m for i, m in enumerate(result)]
        return result

    def _prune_boundary(self, tokens: Estimates, cut: int) -> int:
        """Index before which kept tool outputs are pruned: outside the raw tail budget."""
        acc, i = 0, len(tokens)
        while i > cut and acc + tokens[i - 1] <= self.tail_token_budget:
            i -= 1
            acc += tokens[i]
        return max(cut, min(i, len(tokens) - MIN_TAIL_MESSAGES))

    def _report(self, dropped: int, before: int, after: int, source: str, focus: str | None,
                result: list[Message]) -> str:
        note = f"summarized {dropped} messages ({source}); ~{before} -> ~{after} tokens"
        checked = self.last_verification
        if checked is not None and checked.missing:
            note += (f"; verified against {checked.ledger_size} must-keep items: {checked.missing} missing, "
                     f"{checked.anchored} added as anchors")
        if source == "fallback":
            note += f"; the summarizer failed ({self._fallback_reason}), the offline deterministic summary was used"
        if focus:
            note += f", focus '{focus}'"
        if after < self.threshold_tokens:
            return note
        user = last_real_user(result)
        biggest = max(result, key=estimate_message_tokens)
        why = f"the largest kept message ({biggest.get('role')}) is ~{estimate_message_tokens(biggest)} tokens"
        if user is not None and result[user] is biggest:
            why = f"the last user message alone is ~{estimate_message_tokens(biggest)} tokens and is kept verbatim"
        return f"{note}; still over the {self.threshold_tokens}-token threshold: {why}"

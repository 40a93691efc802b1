"""The summary DAG: leaf summaries over raw messages, condensed into higher depths.

Every summary records exactly what it covers (message ids for a leaf, summary ids for a
condensed node), is verified against the ledger of what it covers (identifiers, asks,
errors it lost are appended as an anchor index) and ends with an "Expand for details
about: ..." line. Text comes from the core's summarizer with an escalation that always
converges: normal budget, then an aggressive one, then the core's deterministic summarizer
if the service failed, then a deterministic truncation that cannot fail.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_context_lcm.summary_input import SUMMARY_CHARS, summary_turns, tool_calls
from hermes_core.engine.summarizer import Summarizer, SummaryError, SummaryRequest
from hermes_core.text.ledger import LedgerItem, extract_ledger, verify_summary
from hermes_core.text.messages import text_of
from hermes_core.text.tokens import estimate_messages_tokens, estimate_text_tokens

if TYPE_CHECKING:
    from hermes_context_lcm.store import Store, StoredMessage, SummaryRow

log = logging.getLogger("hermes_context_lcm")

Message = dict[str, Any]
HINT_PREFIX = "Expand for details about:"
OVERAGE = 3  # a summary may exceed its budget this many times before it is escalated
ANCHOR_SHARE = 0.5  # the anchor index of a verified summary: at most half its budget, on top of it
_PATH = re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w.-]+\.\w{1,6}\b|\b[\w-]+\.(?:py|ts|js|ex|exs|rs|go|md|json|yaml|toml)\b")


@dataclass
class NewSummary:
    """A summary about to be written: its text and exactly what it covers."""

    session_id: str
    depth: int
    content: str
    hint: str
    tokens: int
    source: str
    covers_kind: str
    covers: list[int]
    first_message: int
    last_message: int
    message_count: int


@dataclass
class Escalation:
    """One compaction's summary policy: budget of model calls, deadline, failures seen."""

    summarizer: Summarizer | None
    max_calls: int
    deadline: float
    focus_topic: str | None = None
    extra_context: str = ""
    calls: int = 0
    failed: str = ""  # why the service was given up on, for the rest of this compaction
    sources: list[str] = field(default_factory=list)
    fallback: Summarizer | None = None  # the host's offline summarizer, used once the service failed

    def can_call(self) -> bool:
        return (self.summarizer is not None and not self.failed and self.calls < self.max_calls
                and time.monotonic() < self.deadline)

    def summarize(self, turns: list[Message], budget: int) -> tuple[str, str]:
        """``(text, source)`` within about ``budget`` tokens; never raises."""
        source_tokens = max(1, estimate_messages_tokens(turns))
        if self.can_call():
            for level_budget in (budget, max(32, budget // 2)):
                text = self._call(self.summarizer, turns, level_budget)  # type: ignore[arg-type]
                size = estimate_text_tokens(text)
                if text and size < source_tokens and size <= OVERAGE * budget:
                    source = "llm" if getattr(self.summarizer, "name", "") != "deterministic" else "deterministic"
                    return self._done(text, source)
                if self.failed or not self.can_call():
                    break
        if self.failed and self.fallback is not None:
            text = self._call(self.fallback, turns, budget, count=False)
            if text and estimate_text_tokens(text) <= OVERAGE * budget:
                return self._done(text, "fallback")
        return self._done(truncate(turns, budget), "deterministic")

    def _call(self, summarizer: Summarizer, turns: list[Message], budget: int, count: bool = True) -> str:
        if count:
            self.calls += 1
        request = SummaryRequest(turns=turns, budget_tokens=budget, focus_topic=self.focus_topic,
                                 extra_context=self.extra_context)
        try:
            return (summarizer.summarize(request).text or "").strip()
        except SummaryError as exc:
            if count:
                self.failed = f"summary service failed ({exc.kind}): {exc}"
                log.warning("LCM: %s; using deterministic summaries for this compaction", self.failed)
        except Exception as exc:
            if count:
                self.failed = f"summarizer raised {type(exc).__name__}: {exc}"
                log.warning("LCM: %s; using deterministic summaries for this compaction", self.failed)
        return ""

    def _done(self, text: str, source: str) -> tuple[str, str]:
        self.sources.append(source)
        return text, source

    @property
    def worst_source(self) -> str:
        for source in ("deterministic", "fallback", "llm"):
            if source in self.sources:
                return source
        return "none"


def truncate(turns: Sequence[Message], budget: int) -> str:
    """The last resort: a line per message, head and tail kept within ``budget`` tokens."""
    lines = []
    for msg in turns:
        text = " ".join(text_of(msg.get("content")).split())
        calls = [c["name"] for c in tool_calls(msg)]
        if calls:
            text = f"{text} (calls {', '.join(calls)})".strip()
        lines.append(f"[{msg.get('role')}] {text[:300]}")
    joined = "\n".join(lines)
    limit = max(200, budget * 4)
    if len(joined) <= limit:
        return joined
    head, tail = joined[: limit * 2 // 5], joined[-(limit * 2 // 5):]
    omitted = len(joined) - len(head) - len(tail)
    return f"{head}\n[... {omitted} characters omitted; expand for the originals ...]\n{tail}"


def expand_hint(messages: Sequence[Message], first: int, last: int) -> str:
    """A deterministic last line: what the covered range holds that the summary may not."""
    tools: Counter[str] = Counter()
    paths: dict[str, None] = {}
    for msg in messages:
        texts = [text_of(msg.get("content"))[:500]]  # paths usually sit in calls and first lines
        for call in tool_calls(msg):
            tools[call["name"]] += 1
            texts.append(call["arguments"][:1000])
        for text in texts:
            for match in _PATH.findall(text):
                if len(paths) < 6:
                    paths.setdefault(match, None)
    parts = [f"messages msg_{first}-msg_{last}"]
    if tools:
        parts.append("tool calls " + ", ".join(f"{name} x{n}" for name, n in tools.most_common(5)))
    if paths:
        parts.append("files " + ", ".join(paths))
    return f"{HINT_PREFIX} {'; '.join(parts)}"


def _with_hint(text: str, hint: str) -> tuple[str, str]:
    """Keep a hint the model wrote; otherwise append the deterministic one."""
    for line in reversed(text.splitlines()):
        if line.strip().lower().startswith(HINT_PREFIX.lower()):
            return text, line.strip()
    return f"{text.rstrip()}\n{hint}", hint


class DagBuilder:
    """Writes leaf and condensed summaries for one session into the store."""

    def __init__(self, store: Store, session_id: str, escalation: Escalation) -> None:
        self.store = store
        self.session_id = session_id
        self.escalation = escalation
        self.missing = 0  # ledger items the summaries lacked...
        self.anchored = 0  # ...and how many of them their anchor indexes carry

    def verified(self, text: str, ledger: list[LedgerItem], budget: int) -> str:
        """``text`` plus an anchor index of the ledger items it lost (identifiers, asks, errors),
        redacted and at most ``ANCHOR_SHARE`` of the budget: whatever wrote the summary, it
        keeps what a continuing assistant needs of the span (``hermes_core.text.ledger``)."""
        checked = verify_summary(text, ledger, max_chars=int(budget * 4 * ANCHOR_SHARE))
        self.missing += checked.missing
        self.anchored += checked.anchored
        return checked.text

    def leaf(self, messages: Sequence[StoredMessage], budget: int) -> int:
        originals = [m.message() for m in messages]
        turns = summary_turns(originals, [m.id for m in messages])
        text, source = self.escalation.summarize(turns, budget)
        ids = [m.id for m in messages]
        text = self.verified(text, extract_ledger(originals), budget)
        text, hint = _with_hint(text, expand_hint(originals, ids[0], ids[-1]))
        return self.store.add_summary(NewSummary(
            session_id=self.session_id, depth=0, content=text, hint=hint, tokens=estimate_text_tokens(text),
            source=source, covers_kind="messages", covers=ids, first_message=ids[0], last_message=ids[-1],
            message_count=len(ids),
        ))

    def condense(self, children: Sequence[SummaryRow], budget: int) -> int:
        turns = summary_turns([
            {"role": "assistant", "content": f"[summary sum_{c.id}, depth {c.depth}, messages msg_{c.first_message}-"
                                        f"msg_{c.last_message}]\n{c.content}"}
            for c in children
        ], message_chars=SUMMARY_CHARS)
        text, source = self.escalation.summarize(turns, budget)
        # what the children carried (their identifiers and anchor indexes) must survive this one
        text = self.verified(text, extract_ledger([], "\n\n".join(c.content for c in children)), budget)
        first, last = min(c.first_message for c in children), max(c.last_message for c in children)
        hints = "; ".join(c.hint.removeprefix(HINT_PREFIX).strip() for c in children)
        text, hint = _with_hint(text, f"{HINT_PREFIX} {hints[:600]}")
        return self.store.add_summary(NewSummary(
            session_id=self.session_id, depth=max(c.depth for c in children) + 1, content=text, hint=hint,
            tokens=estimate_text_tokens(text), source=source, covers_kind="summaries",
            covers=[c.id for c in children], first_message=first, last_message=last,
            message_count=sum(c.message_count for c in children),
        ), children=[c.id for c in children])


def condensation_candidates(roots: Sequence[SummaryRow], fanin: int, max_depth: int) -> list[SummaryRow]:
    """The oldest ``fanin`` uncondensed summaries of the shallowest depth that has enough."""
    by_depth: dict[int, list[SummaryRow]] = {}
    for row in roots:
        by_depth.setdefault(row.depth, []).append(row)
    for depth in sorted(by_depth):
        if depth < max_depth and len(by_depth[depth]) >= fanin:
            return sorted(by_depth[depth], key=lambda r: r.first_message)[:fanin]
    return []

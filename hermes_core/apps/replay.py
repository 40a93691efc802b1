"""Replay a recorded conversation through a live :class:`Session`, as if it were happening.

The transcript's own assistant and tool messages stand in for the model and the agent's
tools; calls to hermes-core's own tools (``memory``, engine and provider tools) run for
real. Usage is synthesized from each request's token estimate. Everything else is real: the
configured engine compacts, providers prefetch and sync, the prompt is assembled. The
result is a per-turn timeline plus two checks a user can trust: every request sent was
API-valid, and the system prompt changed only right after a compaction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.apps.transcripts import Transcript, TranscriptError, load_transcript
from hermes_core.session.session import Compaction, Request, Session
from hermes_core.text.json_depth import loads_bounded
from hermes_core.text.messages import api_problems, text_of
from hermes_core.text.tokens import estimate_message_tokens

if TYPE_CHECKING:
    from hermes_core.plugin.host import PluginHost

Message = dict[str, Any]

#: Tools that hand a task to a subagent; their results are reported as delegations.
DELEGATION_TOOLS = frozenset({"Task", "delegate_task"})


@dataclass
class TranscriptTurn:
    """One user message and what the assistant and tools did until the next one."""

    user: Any
    replies: list[Message] = field(default_factory=list)  # assistant and tool messages, in order


@dataclass
class TurnRecord:
    """One row of the timeline."""

    turn: int
    user: str
    requests: int = 0
    prompt_tokens: int = 0  # the largest request of the turn, estimated
    request_tokens: list[int] = field(default_factory=list)  # every request, in order
    messages: int = 0  # history length when the turn ended
    compactions: list[dict[str, Any]] = field(default_factory=list)
    memory_writes: list[dict[str, Any]] = field(default_factory=list)
    system_prompt_changed: bool = False
    invalid_requests: list[str] = field(default_factory=list)
    delegations: list[str] = field(default_factory=list)  # subagent tasks reported to providers
    notes: list[str] = field(default_factory=list)
    over_window: list[str] = field(default_factory=list)  # requests larger than the model's window


@dataclass
class ReplayResult:
    """The whole replay: timeline and totals, JSON-ready through :meth:`to_dict`."""

    source: str
    engine: str
    context_length: int
    threshold_tokens: int
    turns: list[TurnRecord]
    requests: int
    invalid_requests: int
    compactions: int
    system_prompt_changes: int
    unexplained_prompt_changes: int
    interrupted: bool
    duration_s: float
    notes: list[str]
    warnings: list[str]
    engine_status: dict[str, Any] = field(default_factory=dict)  # the engine's own view at the end
    over_window_requests: int = 0
    memory_tool_calls: int = 0  # calls to hermes-core's memory tool in the transcript (reads included)

    @property
    def ok(self) -> bool:
        return not self.invalid_requests and not self.unexplained_prompt_changes and not self.over_window_requests

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def split_turns(messages: list[Message]) -> tuple[str, list[TranscriptTurn], list[str]]:
    """``(instructions, turns, notes)``: leading system text, user turns, what was skipped.

    Consecutive user messages form one turn; consecutive plain assistant messages are
    merged. Raises :class:`TranscriptError` when there is no user message at all.
    """
    instructions: list[str] = []
    turns: list[TranscriptTurn] = []
    notes: list[str] = []
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role == "system":
            if turns:
                notes.append(f"message {i}: system message inside the conversation skipped")
            else:
                instructions.append(text_of(msg.get("content")))
        elif role == "user":
            if turns and not turns[-1].replies:
                turns[-1].user = _joined(turns[-1].user, msg.get("content"))
            else:
                turns.append(TranscriptTurn(user=msg.get("content") or ""))
        elif role in ("assistant", "tool"):
            if not turns:
                notes.append(f"message {i}: {role} message before the first user message skipped")
                continue
            replies = turns[-1].replies
            if role == "assistant" and replies and replies[-1].get("role") == "assistant" \
                    and not replies[-1].get("tool_calls"):
                prev = replies[-1]
                replies[-1] = {**msg, "content": _joined(prev.get("content"), msg.get("content"))}
            else:
                replies.append(msg)
        else:
            notes.append(f"message {i}: unknown role {role!r} skipped")
    if not turns:
        raise TranscriptError("not a conversation: no user message")
    return "\n\n".join(t for t in instructions if t.strip()), turns, notes


class Replayer:
    """Plays a transcript turn by turn; :meth:`finish` closes the session and sums up.

    Callers that want a progress bar or Ctrl-C handling iterate :meth:`steps` (one step per
    request) themselves; :func:`replay` does the plain loop.
    """

    def __init__(self, transcript: Transcript, host: PluginHost, *, session_id: str | None = None) -> None:
        self.source = str(transcript.path or "<transcript>")
        instructions, self.turns, self.notes = split_turns(transcript.messages)
        self.host = host
        self.session = Session(host, session_id=session_id or f"replay-{int(time.time())}", instructions=instructions)
        self.records: list[TurnRecord] = []
        self.requests = 0
        self.invalid = 0
        self.over_window = 0
        self.memory_calls = 0
        self._last_overhead = self._overhead()
        self.prompt_changes = 0
        self.unexplained_changes = 0
        self._last_system: str | None = None
        self._compactions_seen = 0
        self._started = time.perf_counter()
        self._result: ReplayResult | None = None
        self._ran: set[str] = set()  # calls answered by the host instead of the transcript
        self._calls: dict[str, dict[str, Any]] = {}  # call id -> the call, for routing and delegation
        self._ids: dict[str, list[str]] = {}  # the last reply's transcript ids -> the session's ids, in order

    @property
    def total_requests(self) -> int:
        """How many requests the replay will send (one per assistant reply, or one per bare turn)."""
        return sum(max(1, sum(r.get("role") == "assistant" for r in t.replies)) for t in self.turns)

    def steps(self) -> Iterator[int]:
        """Play every turn, yielding the request count after each request (for progress bars)."""
        for turn in self.turns:
            yield from self._play(turn)

    def play(self, turn: TranscriptTurn) -> TurnRecord:
        """Drive one turn: the user message, then each reply as the model's response."""
        for _ in self._play(turn):
            pass
        return self.records[-1]

    def _play(self, turn: TranscriptTurn) -> Iterator[int]:
        session = self.session
        record = TurnRecord(turn=session.turn + 1, user=_preview(text_of(turn.user)))
        self.records.append(record)
        request: Request | None = session.start_turn(turn.user)
        for reply in turn.replies:
            if reply.get("role") == "tool":
                self._answer(reply, record)
                continue
            if request is None:
                self._answer_rest(record)
                if not session.awaiting_response():
                    record.notes.append("assistant message after a final reply skipped")
                    continue
                request = session.request()
            self._check(request, record)
            usage = {"prompt_tokens": request.estimated_tokens, "completion_tokens": estimate_message_tokens(reply)}
            calls = session.add_response(reply, usage)
            self._ids = _session_ids(reply, calls)
            for call in calls:
                self._calls[call["id"]] = call
                self.memory_calls += call["function"]["name"] == "memory"
                if session.is_host_tool(call["function"]["name"]):  # hermes-core's own tools run for real
                    session.run_tool(call)
                    self._ran.add(call["id"])
            request = None
            yield self.requests
        if request is not None:  # the transcript ends on a user message: the request was still sent
            self._check(request, record)
            yield self.requests
        self._answer_rest(record)
        record.messages = len(session.messages)

    def finish(self, *, interrupted: bool = False) -> ReplayResult:
        """Close the session (draining provider work) and return the result; idempotent."""
        if self._result is not None:
            return self._result
        status = self.host.engine_status()
        self.session.close()
        events = self.session.events
        for record in self.records:
            record.memory_writes = [w for w in events.memory_writes if w["turn"] == record.turn]
        if interrupted and self.records:
            self.records[-1].messages = len(self.session.messages)
            self.records[-1].notes.append("interrupted during this turn")
        self._result = ReplayResult(
            source=self.source, engine=self.host.engine.name, context_length=self.host.config.model.context_length,
            threshold_tokens=int(status.get("threshold_tokens") or 0), engine_status=status,
            turns=self.records, requests=self.requests, invalid_requests=self.invalid,
            compactions=len(events.compactions), system_prompt_changes=self.prompt_changes,
            unexplained_prompt_changes=self.unexplained_changes, interrupted=interrupted,
            duration_s=time.perf_counter() - self._started, notes=self.notes + events.repairs,
            warnings=list(self.host.warnings), over_window_requests=self.over_window,
            memory_tool_calls=self.memory_calls,
        )
        return self._result

    # -- internals ---------------------------------------------------------------------------

    def _check(self, request: Request, record: TurnRecord) -> None:
        self.requests += 1
        record.requests += 1
        record.prompt_tokens = max(record.prompt_tokens, request.estimated_tokens)
        record.request_tokens.append(request.estimated_tokens)
        problems = api_problems(request.messages)
        if problems:
            self.invalid += 1
            record.invalid_requests.append(f"request {self.requests}: {problems[0]}")
        system = request.messages[0].get("content") if request.messages[0].get("role") == "system" else ""
        window = self.host.config.model.context_length
        if request.estimated_tokens > window:
            self.over_window += 1
            record.over_window.append(f"request {self.requests}: {request.estimated_tokens:,} tokens, over the "
                                      f"{window:,}-token window")
        new = self.session.events.compactions[self._compactions_seen:]
        self._compactions_seen += len(new)
        overhead = self._overhead()
        record.compactions.extend(_compaction_row(c, before_request=self.requests, overhead_before=self._last_overhead,
                                                  overhead_after=overhead) for c in new)
        self._last_overhead = overhead
        if self._last_system is not None and system != self._last_system:
            self.prompt_changes += 1
            record.system_prompt_changed = True
            if not new:
                self.unexplained_changes += 1
                record.notes.append(f"request {self.requests}: system prompt changed without a compaction")
        self._last_system = str(system)

    def _overhead(self) -> int:
        """Tokens every request carries besides the history: the system prompt and the tool schemas,
        counted as the session counts them, so compaction figures match the PEAK TOKENS column."""
        prompt = estimate_message_tokens({"role": "system", "content": self.session.system_prompt})
        return prompt + (len(json.dumps(self.session.tools)) // 4 if self.session.tools else 0)

    def _answer(self, tool_msg: Message, record: TurnRecord) -> None:
        cid = str(tool_msg.get("tool_call_id"))
        candidates = self._ids.get(cid) or [cid]  # the session may have renamed a reused id
        open_calls = self.session.open_tool_calls()
        target = next((c for c in candidates if c in open_calls), None)
        if target is not None:
            content = text_of(tool_msg.get("content"))
            self.session.add_tool_result(target, content)
            task = _delegated_task(self._calls[target])
            if task:
                self.session.on_delegation(task, content)
                record.delegations.append(_preview(task))
        elif not any(c in self._ran for c in candidates):
            record.notes.append(f"tool result {cid!r} without an open call skipped")

    def _answer_rest(self, record: TurnRecord) -> None:
        """Calls the transcript never answered go to the host's tool router."""
        for cid in self.session.open_tool_calls():
            self.session.run_tool(self._calls[cid])
            record.notes.append(f"tool call {cid!r} had no recorded result; routed to the host")


def replay(path: Path | str | Transcript, host: PluginHost, *, session_id: str | None = None) -> ReplayResult:
    """Replay a transcript file (or a loaded one) through ``host``; Ctrl-C stops cleanly."""
    transcript = path if isinstance(path, Transcript) else load_transcript(path)
    replayer = Replayer(transcript, host, session_id=session_id)
    try:
        for _ in replayer.steps():
            pass
    except KeyboardInterrupt:
        return replayer.finish(interrupted=True)
    return replayer.finish()


def _session_ids(reply: Message, calls: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each transcript call id -> the ids the session recorded for it, in call order.

    :meth:`Session.add_response` keeps the reply's well-formed calls in order and renames
    an id the conversation already used, so pairing the two lists tracks every rename.
    """
    recorded = [c for c in reply.get("tool_calls") or () if isinstance(c, dict)]
    ids: dict[str, list[str]] = {}
    for original, call in zip(recorded, calls, strict=False):
        ids.setdefault(str(original.get("id")), []).append(call["id"])
    return ids


def _compaction_row(compaction: Compaction, *, before_request: int, overhead_before: int = 0,
                    overhead_after: int = 0) -> dict[str, Any]:
    """One compaction, its token figures counted like a request (system prompt and tool schemas
    included); ``history_tokens_*`` are the engine's own figures for the messages alone."""
    report = compaction.report
    return {
        "before_request": before_request, "trigger": compaction.trigger,
        "tokens_before": report.tokens_before + overhead_before, "tokens_after": report.tokens_after + overhead_after,
        "history_tokens_before": report.tokens_before, "history_tokens_after": report.tokens_after,
        "messages_before": report.messages_before, "messages_after": report.messages_after,
        "summary_source": report.summary_source, "duration_s": round(report.duration_s, 4), "note": report.reason,
    }


def _delegated_task(call: dict[str, Any]) -> str:
    """The task text when ``call`` hands work to a subagent (Claude Code's ``Task``, ``delegate_task``)."""
    fn = call.get("function") or {}
    if fn.get("name") not in DELEGATION_TOOLS:
        return ""
    try:
        args = loads_bounded(fn.get("arguments") or "{}", "delegation arguments")
    except ValueError:
        return ""
    if not isinstance(args, dict):
        return ""
    return str(args.get("prompt") or args.get("description") or args.get("goal") or args.get("task") or "")


def _preview(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _joined(first: Any, second: Any) -> Any:
    if isinstance(first, str) and isinstance(second, str):
        return "\n\n".join(p for p in (first, second) if p)
    return "\n\n".join(p for p in (text_of(first), text_of(second)) if p)

"""The session runtime: the turn flow of seed section 5, built on a :class:`PluginHost`.

A :class:`Session` owns one conversation. The agent drives it::

    with Session.open() as session:
        request = session.start_turn("fix the failing test")
        while True:
            reply = call_model(request.payload(model="..."))          # your client
            calls = session.add_response(reply.message, reply.usage)
            if not calls:
                break
            for call in calls:
                if session.is_host_tool(call["function"]["name"]):
                    session.run_tool(call)       # memory, engine and provider tools
                else:
                    session.add_tool_result(call["id"], my_tools(call))  # the agent's own
            request = session.request()

The persisted history (:attr:`Session.messages`) never holds recalled memory or nudges:
those are added to a copy of the current user message in each request only. The system
prompt is built once and rebuilt only after a compaction, so the provider's prefix cache
holds for the whole session. Every public method leaves the history API-valid.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from hermes_core.memory import held_writes
from hermes_core.memory.fencing import build_memory_context_block
from hermes_core.records import CompactionResult, PromptContext, TurnReport
from hermes_core.session.prompt import build_system_prompt
from hermes_core.text.json_depth import check_depth, loads_bounded
from hermes_core.text.messages import last_user_index, text_of, tool_call_ids
from hermes_core.text.sdk_messages import as_chat_message, usage_of
from hermes_core.text.tokens import estimate_message_tokens

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.host import PluginHost

log = logging.getLogger("hermes_core.session")

Message = dict[str, Any]
CompactionTrigger = Literal["preflight", "post-response", "manual"]

#: How many preflight compactions may run before one call (each must make progress).
MAX_PREFLIGHT_PASSES = 3
INTERRUPTED_TOOL_RESULT = json.dumps({"error": "Tool call interrupted before it returned a result"})
UNTRUSTED_REFUSED = (
    "Memory write refused: tool output or recalled memory entered the context since the user's last message, "
    "and memory.untrusted_writes is 'refuse'. Do not retry; if it matters, ask the user to confirm it in a message."
)
UNTRUSTED_HELD = (
    "Memory write held for the user's confirmation: tool output or recalled memory is in the context "
    "(memory.untrusted_writes: confirm). It is not saved yet and is saved only if the user confirms it "
    "(`hermes-core memory confirm {id}`); do not retry. Tell the user what you want to save and that it awaits "
    "their confirmation."
)


class SessionError(RuntimeError):
    """The caller broke the turn protocol (e.g. a request while tool calls are open)."""


@dataclass
class Request:
    """Exactly what to send to the model for one call."""

    messages: list[Message]
    tools: list[dict[str, Any]]
    estimated_tokens: int
    compacted: bool = False  # a compaction ran for this request (the system prompt was rebuilt)

    def payload(self, model: str = "", **extra: Any) -> dict[str, Any]:
        """An OpenAI chat-completions body."""
        body: dict[str, Any] = {"model": model, "messages": self.messages, **extra}
        if self.tools:
            body["tools"] = self.tools
        return body


@dataclass
class Compaction:
    """One compaction the session ran: when, why, and the engine's figures."""

    turn: int
    trigger: CompactionTrigger
    report: CompactionResult


@dataclass
class SessionEvents:
    """What happened, for replay timelines and logs."""

    compactions: list[Compaction] = field(default_factory=list)
    memory_writes: list[dict[str, Any]] = field(default_factory=list)
    system_prompt_builds: list[tuple[int, str]] = field(default_factory=list)  # (turn, reason)
    repairs: list[str] = field(default_factory=list)


HOST_OPTIONS = ("plugins", "engines", "providers", "overrides", "load_entrypoints", "strict")


class Session:
    """One conversation driven through the host's engine and memory providers."""

    def __init__(
        self,
        host: PluginHost,
        *,
        session_id: str | None = None,
        cwd: Path | None = None,
        platform: str | None = None,
        instructions: str = "",
        close_host: bool = True,
    ) -> None:
        """Start the session: engine and providers learn its id, the prompt is built.

        ``instructions`` is the agent's own fixed text, appended to the system prompt.
        ``close_host`` makes :meth:`close` drain and shut the host down too.
        """
        self.host = host
        self.id = session_id or uuid.uuid4().hex
        self.cwd = cwd or Path.cwd()
        self.platform = platform or host.config.prompt.platform
        self.instructions = instructions
        self.close_host = close_host
        self.messages: list[Message] = []
        self.turn = 0
        self.events = SessionEvents()
        self.closed = False
        self._turn_user_text = ""
        self._turn_user: Message | None = None
        self._recall = ""
        self._nudge = ""
        self._compress_due = 0  # real prompt tokens that made a compaction due; 0: none due
        self._last_request_tokens = 0
        self._seen_call_ids: set[str] = set()
        self.system_prompt = ""
        self.tools: list[dict[str, Any]] = []
        self._tool_tokens = 0
        self._token_cache: dict[int, tuple[Message, int]] = {}
        self._compacted = False  # since the (re)start: the prompt then carries the compaction note
        self._turn_tool_calls = 0
        self._turn_compactions = 0
        self._last_usage: dict[str, Any] = {}
        self._untrusted = False  # tool output or recalled memory entered the context since the user spoke
        self._writing_untrusted = False  # a write under way was asked for in that state
        host.memory.write_listeners.append(self._note_memory_write)
        self._begin(reason="start")

    @classmethod
    def open(cls, config: HermesConfig | None = None, *, home: Path | None = None, **kwargs: Any) -> Session:
        """Build a host from config (``$HERMES_HOME/config.yaml`` by default) and start a session.

        Host options (``plugins=[obj, ...]``, ``engines``, ``providers``, ``overrides``,
        ``load_entrypoints``, ``strict``) go to :func:`build_host`; the rest to the session.
        Pending config migrations are saved here (and said in the ``hermes_core.config`` log).
        """
        from hermes_core.plugin.host import build_host

        host_options = {k: kwargs.pop(k) for k in HOST_OPTIONS if k in kwargs}
        return cls(build_host(config, home=home, **host_options), **kwargs)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the turn -------------------------------------------------------------------------

    def start_turn(self, content: str | list[Any]) -> Request:
        """A user message arrives: notify providers, recall memory, return the first request.

        A turn left open (tool calls unanswered, e.g. after Ctrl-C) is closed first; a user
        message right after another one is merged into it so roles keep alternating.
        """
        self._check_open()
        self._close_open_calls()
        self.turn += 1
        text = text_of(content)
        if self.messages and self.messages[-1].get("role") == "user":
            merged = _join_content(self.messages[-1].get("content"), content)
            self.messages[-1] = {**self.messages[-1], "content": merged}
            text = text_of(merged)
        else:
            self.messages.append({"role": "user", "content": content})
        self._turn_user = self.messages[-1]  # the real user message every compaction must keep
        self._turn_user_text = text
        self._turn_tool_calls = self._turn_compactions = 0
        self.host.memory.on_turn_start(self.turn, text)
        self._recall = cap_recall(self.host.memory.prefetch_all(text), self.host.config)
        self._untrusted = bool(self._recall.strip())
        self._nudge = self.host.memory.nudge(self.turn) or ""
        return self.request()

    def request(self) -> Request:
        """The next request: runs a due compaction, then assembles the exact messages."""
        self._check_open()
        open_calls = self.open_tool_calls()
        if open_calls:
            raise SessionError(f"tool calls {open_calls} have no result yet; answer them before the next request")
        changed = False
        if self._compress_due:
            due, self._compress_due = self._compress_due, 0
            changed = self._compact("post-response", current_tokens=due) is not None
        for _ in range(MAX_PREFLIGHT_PASSES):
            view = self._assemble(fence=False)
            if not self.host.should_compress_preflight(view):
                break
            # the engine judges the request about to be sent, tool schemas included, not the last one
            if self._compact("preflight", current_tokens=self._estimate(view) + self._tool_tokens) is None:
                break
            changed = True
        messages = self._assemble(fence=True)
        tokens = self._estimate(messages) + self._tool_tokens
        self._last_request_tokens = tokens
        return Request(messages, self.tools, tokens, compacted=changed)

    def add_response(self, message: Message | str, usage: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Record the model's reply and usage; returns the tool calls to answer (maybe none).

        The returned calls are the recorded ones, in the reply's order: a missing id or one
        this conversation already used is replaced, so answer them by the returned ids.
        Missing usage falls back to the last request's token estimate. A reply without tool
        calls ends the turn: providers sync it and prefetch for the next one. ``message`` may
        be a dict or an OpenAI/Anthropic SDK object (a completion, or its message).
        """
        self._check_open()
        if not self.awaiting_response():
            raise SessionError("no request is outstanding: start a turn or answer the tool calls first")
        usage = usage if usage is not None else usage_of(message)  # an SDK completion carries its usage
        reply = self._normalize_reply(as_chat_message(message))
        self.messages.append(reply)
        usage = dict(usage or {})
        self._last_usage = usage
        self.host.update_from_response(usage)
        prompt_tokens = int(usage.get("prompt_tokens") or 0) or self._last_request_tokens
        calls = list(reply.get("tool_calls") or ())
        self._turn_tool_calls += len(calls)
        if calls and self.host.should_compress(prompt_tokens):
            self._compress_due = prompt_tokens  # the real count that made it due
        if not calls:
            self._finish_turn(text_of(reply.get("content")))
        return calls

    def add_tool_result(self, call_id: str, content: str) -> None:
        """Answer one open tool call with the agent's own tool output."""
        self._check_open()
        if call_id not in self.open_tool_calls():
            raise SessionError(f"no open tool call with id {call_id!r}")
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": str(content)})
        if not self._is_memory_write(*self._call_of(call_id)):  # a write's own result carries no outside text
            self._untrusted = True

    def run_tool(self, call: dict[str, Any]) -> str:
        """Run an open tool call through the host (memory, engine or provider tools).

        An unknown tool or bad arguments give a JSON error result; the call is answered
        either way, so the history stays valid.
        """
        call_id = str(call.get("id"))
        if call_id not in self.open_tool_calls():  # checked first: a tool must not run for nothing
            raise SessionError(f"no open tool call with id {call_id!r}")
        fn = call.get("function") or {}
        name = str(fn.get("name") or "")
        try:
            result = self.call_tool(name, fn.get("arguments"))
        except Exception as exc:  # the call is answered whatever happens, or the next request() fails
            log.warning("tool %s failed: %s: %s", name, type(exc).__name__, exc)
            result = json.dumps({"error": f"Tool '{name}' failed: {type(exc).__name__}: {exc}"})
        self.add_tool_result(call_id, result)
        return result

    def is_host_tool(self, name: str) -> bool:
        """Whether hermes-core runs this tool (memory, engine, provider) rather than the agent."""
        return any(tool["function"]["name"] == name for tool in self.tools)

    def call_tool(self, name: str, arguments: str | dict[str, Any] | None) -> str:
        """Run a host tool outside the history (``hermes-core tools call``); a JSON string."""
        try:
            what = f"the arguments of tool '{name}'"
            args = (loads_bounded(arguments, what) if isinstance(arguments, str) and arguments.strip()
                    else check_depth(arguments or {}, what))
        except json.JSONDecodeError as exc:
            return json.dumps({"error": f"Invalid JSON arguments for tool '{name}': {exc.msg}"})
        if not isinstance(args, dict):
            return json.dumps({"error": f"Arguments for tool '{name}' must be a JSON object"})
        if self._untrusted and self.host.memory.writes_memory(name, args):
            return self._untrusted_write(name, args)
        return self.host.handle_tool_call(name, args)

    def _is_memory_write(self, name: str, args: Any) -> bool:
        """A call that writes memory, by its provider's ``writes_memory`` schema flag."""
        if isinstance(args, str):
            try:
                args = loads_bounded(args, f"the arguments of tool '{name}'") if args.strip() else {}
            except ValueError:
                return False  # bad arguments: the tool refuses them, nothing is written
        return isinstance(args, dict) and self.host.memory.writes_memory(name, args)

    @property
    def pending_memory_writes(self) -> dict[str, dict[str, Any]]:
        """This session's writes held by ``memory.untrusted_writes: confirm`` (kept in ``$HERMES_HOME``)."""
        return {e["id"]: e for e in held_writes.pending(self.host.home) if e.get("session") == self.id}

    def confirm_memory_write(self, write_id: str) -> str:
        """Apply a held memory write (this session's or another's); the tool's JSON result.

        The write still passes every rule and detector; it stays marked ``untrusted_context``.
        """
        self._check_open()
        try:
            held = held_writes.take(self.host.home, write_id)
        except held_writes.HeldWriteError as exc:
            raise SessionError(str(exc)) from exc
        try:
            return self._marked_write(held["tool"], held["arguments"])
        except BaseException:
            held_writes.put_back(self.host.home, held)
            raise

    def discard_memory_write(self, write_id: str) -> None:
        """Drop a held memory write without applying it."""
        try:
            held_writes.take(self.host.home, write_id)
        except held_writes.HeldWriteError as exc:
            raise SessionError(str(exc)) from exc

    def _untrusted_write(self, name: str, args: dict[str, Any]) -> str:
        """A memory write asked for while untrusted content is in context: apply, hold or refuse it."""
        policy = self.host.config.memory.untrusted_writes
        if policy == "refuse":
            return json.dumps({"success": False, "untrusted_context": True, "error": UNTRUSTED_REFUSED})
        if policy == "confirm":
            entry = held_writes.hold(self.host.home, session=self.id, turn=self.turn, tool=name, arguments=args)
            log.info("session %s turn %d: memory write %s held for confirmation", self.id, self.turn, entry["id"])
            return json.dumps({"success": False, "held": True, "write_id": entry["id"], "untrusted_context": True,
                               "message": UNTRUSTED_HELD.format(id=entry["id"])})
        return self._marked_write(name, args)

    def _marked_write(self, name: str, args: dict[str, Any]) -> str:
        self._writing_untrusted = True
        try:
            result = self.host.handle_tool_call(name, args)
        finally:
            self._writing_untrusted = False
        try:
            data = json.loads(result)
        except (TypeError, ValueError):
            return result
        return json.dumps({**data, "untrusted_context": True}, ensure_ascii=False) if isinstance(data, dict) else result

    def _call_of(self, call_id: str) -> tuple[str, Any]:
        """The name and arguments of the last assistant message's call ``call_id``."""
        for msg in reversed(self.messages):
            if msg.get("role") == "assistant":
                for call in msg.get("tool_calls") or ():
                    if str(call.get("id")) == call_id:
                        fn = call.get("function") or {}
                        return str(fn.get("name") or ""), fn.get("arguments")
                break
        return "", None

    def awaiting_response(self) -> bool:
        """True when the model is due to speak: the history ends with a user or tool message."""
        return bool(self.messages) and self.messages[-1].get("role") in ("user", "tool") \
            and not self.open_tool_calls()

    def open_tool_calls(self) -> list[str]:
        """Ids of the last assistant message's tool calls that have no result yet."""
        answered: set[str] = set()
        for msg in reversed(self.messages):
            role = msg.get("role")
            if role == "tool":
                answered.add(str(msg.get("tool_call_id")))
            elif role == "assistant":
                return [cid for cid in tool_call_ids(msg) if cid not in answered]
            else:
                return []
        return []

    # -- other moments ---------------------------------------------------------------------

    def compact(self, focus_topic: str | None = None) -> CompactionResult | None:
        """Manual ``/compact [focus]``: force a compaction now; None if nothing changed."""
        self._check_open()
        self._close_open_calls()
        done = self._compact("manual", force=True, focus_topic=focus_topic)
        return done.report if done else None

    def update_model(self, model: str, context_length: int, max_tokens: int | None = None) -> None:
        """The agent switched model: the engine recomputes its budgets; the prompt is kept."""
        self._check_open()
        self.host.config.model.name = model
        self.host.config.model.context_length = int(context_length)
        self.host.update_model(model, int(context_length), max_tokens)

    def on_delegation(self, task: str, result: str) -> None:
        """A subagent finished ``task``: report it to the memory providers."""
        self._check_open()
        self.host.memory.on_delegation(task, result)

    def reset(self, session_id: str | None = None) -> None:
        """``/new``: end this conversation for the providers and start a fresh one."""
        self._check_open()
        self._close_open_calls()
        self._end_for_providers()
        self.host.on_session_reset()
        self.id = session_id or uuid.uuid4().hex
        self.messages, self.turn, self._compress_due, self._compacted = [], 0, 0, False
        self._seen_call_ids.clear()
        self._begin(reason="reset")

    def close(self) -> None:
        """End the session: providers and engine see the final messages; pending work drains."""
        if self.closed:
            return
        self.closed = True
        self._close_open_calls()
        self._end_for_providers()
        self.host.on_session_end(self.id, list(self.messages))
        if self._note_memory_write in self.host.memory.write_listeners:
            self.host.memory.write_listeners.remove(self._note_memory_write)
        if self.close_host:
            self.host.close()

    # -- internals ---------------------------------------------------------------------------

    def _begin(self, reason: str) -> None:
        self.host.on_session_start(self.id)
        self.host.memory.initialize_all(self.id)
        log.info("session %s %s: engine %s, memory providers: %s", self.id, reason, self.host.engine.name,
                 ", ".join(p.name for p in self.host.memory.providers) or "none")
        self._rebuild_prompt(reason)

    def _end_for_providers(self) -> None:
        """Queue the end after each provider's pending turns, without waiting for them."""
        self.host.memory.on_session_end(self.id, list(self.messages))

    def _check_open(self) -> None:
        if self.closed:
            raise SessionError(f"session {self.id} is closed")

    def _rebuild_prompt(self, reason: str) -> None:
        """(Re)build the system prompt and the tool list; only at start, reset and compaction."""
        self.system_prompt = build_prompt_text(self.host, self._prompt_context(), self.instructions)
        self.tools = [{"type": "function", "function": schema} for schema in self.host.tool_schemas()]
        self._tool_tokens = len(json.dumps(self.tools)) // 4 if self.tools else 0
        self.host.set_request_overhead(self._tool_tokens)
        self.events.system_prompt_builds.append((self.turn, reason))

    def _prompt_context(self) -> PromptContext:
        return PromptContext(
            home=self.host.home, cwd=self.cwd, platform=self.platform, model=self.host.config.model.name,
            config=self.host.config, memory_blocks=tuple(self.host.memory.system_prompt_blocks()),
            compacted=self._compacted,
        )

    def _assemble(self, *, fence: bool) -> list[Message]:
        """System prompt + history; with ``fence``, recall and nudge on the current user message."""
        history = self.messages
        system = self.system_prompt
        while history and history[0].get("role") == "system":  # an engine may return one
            system = f"{system}\n\n{text_of(history[0].get('content'))}".strip()
            history = history[1:]
        out: list[Message] = [{"role": "system", "content": system}, *history] if system else list(history)
        extra = "\n\n".join(part for part in (fence_memory(self._recall), self._nudge) if part)
        index = last_user_index(out) if fence and extra else None
        if index is not None:
            out[index] = {**out[index], "content": _join_content(out[index].get("content"), extra)}
        return out

    def _estimate(self, messages: list[Message]) -> int:
        """Token estimate with a per-message cache: history messages are never edited in place."""
        cache = self._token_cache
        if len(cache) > 2 * len(messages) + 64:  # drop entries of messages no longer sent
            cache.clear()
        total = 0
        for msg in messages:
            hit = cache.get(id(msg))
            if hit is None or hit[0] is not msg:
                hit = cache[id(msg)] = (msg, estimate_message_tokens(msg))
            total += hit[1]
        return total

    def _compact(
        self,
        trigger: CompactionTrigger,
        *,
        force: bool = False,
        focus_topic: str | None = None,
        current_tokens: int | None = None,
    ) -> Compaction | None:
        before = self.messages
        result = self.host.compress(
            before, current_tokens=current_tokens, focus_topic=focus_topic, force=force,
            session_id=self.id, keep=self._turn_user,
        )
        if not result.changed:
            if result.note.startswith("compaction refused"):
                self.events.repairs.append(f"turn {self.turn}: {result.note}")
            return None
        self.events.repairs.extend(f"turn {self.turn}: {what} after compaction" for what in result.repairs)
        self.messages = list(result.messages)
        done = Compaction(self.turn, trigger, result)
        self.events.compactions.append(done)
        self._turn_compactions += 1
        log.info("session %s turn %d: %s compaction by %s: %d -> %d history tokens, %d -> %d messages, summary: %s",
                 self.id, self.turn, trigger, result.engine, result.tokens_before, result.tokens_after,
                 result.messages_before, result.messages_after, result.summary_source)
        self._compacted = True
        self._rebuild_prompt("compaction")
        return done

    def _finish_turn(self, assistant_text: str) -> None:
        self.host.memory.sync_all(self._turn_user_text, assistant_text)
        self.host.memory.queue_prefetch_all(self._turn_user_text)
        self.host.turn_finished(TurnReport(
            session_id=self.id, turn=self.turn, user_content=self._turn_user_text, assistant_content=assistant_text,
            tool_calls=self._turn_tool_calls, usage=dict(self._last_usage), compactions=self._turn_compactions,
        ))

    def _close_open_calls(self) -> None:
        """Answer calls left open by an interrupted turn so the history stays API-valid."""
        for cid in self.open_tool_calls():
            self.messages.append({"role": "tool", "tool_call_id": cid, "content": INTERRUPTED_TOOL_RESULT})

    def _normalize_reply(self, message: Message | str) -> Message:
        """An assistant message the API accepts: ids present and unique, arguments as JSON text."""
        if isinstance(message, str):
            message = {"role": "assistant", "content": message}
        if not isinstance(message, dict):
            raise SessionError(f"a model reply must be a message object, got {type(message).__name__}")
        if message.get("role", "assistant") != "assistant":
            raise SessionError(f"a model reply must have role 'assistant', got {message.get('role')!r}")
        reply: Message = {**message, "role": "assistant"}
        calls = []
        for call in reply.get("tool_calls") or ():
            if not isinstance(call, dict):
                continue
            raw_fn = call.get("function")
            fn: dict[str, Any] = raw_fn if isinstance(raw_fn, dict) else {}
            args = fn.get("arguments")
            cid = str(call.get("id") or "")
            if not cid or cid in self._seen_call_ids:
                cid = f"call_{uuid.uuid4().hex[:12]}"
            self._seen_call_ids.add(cid)
            calls.append({
                **call, "id": cid, "type": "function",
                "function": {**fn, "name": str(fn.get("name") or ""),
                             "arguments": args if isinstance(args, str) else json.dumps(args or {})},
            })
        if calls:
            reply["tool_calls"] = calls
        else:
            reply.pop("tool_calls", None)
            if reply.get("content") is None:
                reply["content"] = ""
        return reply

    def _note_memory_write(self, action: str, target: str, content: str) -> None:
        """The built-in store changed (``ctx.memory_written``): note it for replay timelines."""
        event: dict[str, Any] = {"turn": self.turn, "action": action, "target": target}
        if self._writing_untrusted:
            event["untrusted_context"] = True
        self.events.memory_writes.append(event)


def build_prompt_text(host: PluginHost, ctx: PromptContext, instructions: str = "") -> str:
    """The system prompt text: the prompt builder's result plus the agent's instructions."""
    text = build_system_prompt(host, ctx).text
    return "\n\n".join(part for part in (text, instructions.strip()) if part)


def cap_recall(recalled: str, config: Any) -> str:
    """Recalled text cut to ``memory.recall_max_share`` of the window (about 4 chars a token),
    before it is fenced in: a provider's 400 KB recall must not push a request over the window."""
    if not recalled:
        return recalled
    limit = max(200, int(config.model.context_length * config.memory.recall_max_share * 4))
    if len(recalled) <= limit:
        return recalled
    return (f"{recalled[:limit]}\n...[recalled memory cut: {len(recalled) - limit:,} more chars; "
            "memory.recall_max_share limits recall to a share of the context window]")


def fence_memory(recalled: str) -> str:
    """Recalled memory wrapped in ``<memory-context>``; ``""`` when nothing was recalled."""
    return build_memory_context_block(recalled) if recalled and recalled.strip() else ""


def _join_content(content: Any, extra: Any) -> Any:
    """Append ``extra`` (text or parts) to a message content, keeping multimodal parts."""
    if isinstance(content, list) or isinstance(extra, list):
        return _parts(content) + _parts(extra)
    return "\n\n".join(part for part in (text_of(content), text_of(extra)) if part)


def _parts(value: Any) -> list[Any]:
    if isinstance(value, list):
        return list(value)
    return [{"type": "text", "text": value}] if value else []

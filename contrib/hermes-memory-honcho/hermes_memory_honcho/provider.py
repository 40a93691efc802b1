"""``HonchoMemoryProvider``: Honcho as the external memory provider (seed 1.6-1.8).

Nothing here blocks a turn on the network. Writes go to a durable local outbox and a
background courier delivers them in order; recall is fetched in the background and
served from a cache; initialisation (workspace, peers, session) happens on the
courier's thread. When Honcho is slow, down, misconfigured or the SDK is missing, the
provider says so in :meth:`get_status` and one log line, and keeps every write queued.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hermes_core import MemoryProvider, PluginContext
from hermes_memory_honcho.courier import STALL_GIVE_UP, Courier
from hermes_memory_honcho.health import Health
from hermes_memory_honcho.link import PART_KEY, TURN_KEY, HonchoLink, Recall, classify
from hermes_memory_honcho.mapping import clip, session_name, split_message
from hermes_memory_honcho.outbox import Outbox
from hermes_memory_honcho.recall import RecallCache, render
from hermes_memory_honcho.settings import HonchoSettings
from hermes_memory_honcho.tools import TOOLS, tool_schemas

log = logging.getLogger("hermes_memory_honcho")

CUT_WAIT = 2.0  # seconds shutdown waits for a thread whose request it cut (it ends in milliseconds)

PROMPT_BLOCK = {
    "hybrid": "# Honcho memory\nHoncho remembers this user across sessions. What it recalls arrives with the "
              "user's message in <memory-context>. Tools: honcho_profile, honcho_search, honcho_context, "
              "honcho_conclude.",
    "context": "# Honcho memory\nHoncho remembers this user across sessions. What it recalls arrives with the "
               "user's message in <memory-context>.",
    "tools": "# Honcho memory\nHoncho remembers this user across sessions. Use honcho_profile, honcho_search "
             "and honcho_context to recall, and honcho_conclude to record durable facts about the user.",
}


def sdk_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("honcho-ai")
    except metadata.PackageNotFoundError:
        return None


class HonchoMemoryProvider(MemoryProvider):
    """Maps the agent onto a Honcho workspace: a user peer, an assistant peer, a session."""

    config_model = HonchoSettings

    def __init__(self, ctx: PluginContext | None = None) -> None:
        super().__init__(ctx)
        raw = self.ctx.settings
        self.settings = raw if isinstance(raw, HonchoSettings) else HonchoSettings.model_validate(raw or {})
        self.session_id = ""
        self.honcho_session = ""
        self.health = Health(self.settings.retry_initial, self.settings.retry_max)
        self.link = HonchoLink(self.settings)
        self.recall = RecallCache(self._fetch_recall)
        self.dialectic = RecallCache(self._fetch_dialectic, name="honcho-dialectic")
        self.dialectic_error = ""
        self._depth_warned = self._drop_warned = False
        self.outbox: Outbox | None = None
        self.courier: Courier | None = None
        self.closed = False
        self._waited = False
        self._lock = threading.RLock()

    @property
    def name(self) -> str:
        return "honcho"

    def is_available(self) -> tuple[bool, str]:
        """Configured, and the SDK is findable (not imported: that costs ~0.6 s)."""
        try:
            found = importlib.util.find_spec("honcho") is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return False, "honcho-ai is not installed; pip install honcho-ai"
        return self.settings.configured()

    # -- lifecycle ----------------------------------------------------------------------

    def initialize(self, session_id: str) -> None:
        s = self.settings
        with self._lock:
            self.session_id = session_id
            self.honcho_session = session_name(s.session_strategy, session_id, Path.cwd(), s.workspace)
            self._start()
        if s.recall_mode != "tools":
            self.recall.request("")  # warm the cache while the first turn is being typed

    def _start(self) -> Outbox | None:
        """Open the outbox and start the courier (once); the outbox even after shutdown."""
        with self._lock:
            if not self.honcho_session:
                self.honcho_session = session_name(self.settings.session_strategy, self.session_id or "default",
                                                   Path.cwd(), self.settings.workspace)
            if self.outbox is None:
                path = self.settings.outbox_file(self.ctx.home)
                try:
                    self.outbox = Outbox(path)
                except Exception as exc:
                    log.error("Honcho outbox %s cannot be opened: %s: %s", path, type(exc).__name__, exc)
                    self.health.unavailable(f"outbox {path} cannot be opened: {exc}")
                    return None
            if self.courier is None and not self.closed:
                self.courier = Courier(self.outbox, self.link, self.health, self._connect)
                self.courier.start()
            return self.outbox

    def _connect(self) -> None:
        s = self.settings
        self.link.connect(s.user_peer, s.assistant_peer)

    def on_session_end(self, session_id: str, messages: list[dict[str, Any]]) -> None:
        if self.courier is not None:
            self.courier.flush(self.settings.flush_wait)

    def _unanswered(self) -> bool:
        return self.link.stalled_for() > STALL_GIVE_UP

    def shutdown(self) -> None:
        """Bounded by ``flush_wait``, and shorter when Honcho answers nothing at all."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            courier, self.courier = self.courier, None
        self.recall.close(self.settings.flush_wait, self._unanswered)
        self.dialectic.close(0.0)
        if courier is not None:
            courier.stop(self.settings.flush_wait)
        # Requests still in flight (a hung server; an answer nobody will read) are cut, so their
        # threads end here rather than wake while the interpreter exits, which aborts it.
        self.link.close()
        self.recall.close(CUT_WAIT)
        self.dialectic.close(CUT_WAIT)
        if courier is not None:
            courier.join(CUT_WAIT)
        self.health.close()
        with self._lock:
            if self.outbox is not None and (courier is None or not courier.alive):
                self.outbox.close()
                self.outbox = None

    # -- writes -------------------------------------------------------------------------

    def _enqueue(self, kind: str, payload: dict[str, Any], key: str | None = None) -> str | None:
        """Append durably and wake the courier; never raises (a failure is logged)."""
        try:
            outbox = self._start()
            if outbox is None:
                log.error("Honcho %s not recorded: the outbox is unavailable", kind)
                return None
            key = outbox.append(kind, self.honcho_session, payload, key=key)
            self._bound(outbox)
        except Exception as exc:
            log.error("Honcho %s not recorded: %s: %s", kind, type(exc).__name__, exc)
            return None
        if self.courier is not None:
            self.courier.wake()
        return key

    def _bound(self, outbox: Outbox) -> None:
        """Keep at most ``outbox_max_pending`` writes waiting. Warn once when turns queue up
        faster than Honcho takes them (half the cap) and once when the oldest are dropped;
        both re-arm when the queue has drained below a quarter of the cap."""
        cap = self.settings.outbox_max_pending
        depth, dropped = outbox.enforce_cap(cap)
        if dropped and not self._drop_warned:
            self._drop_warned = True
            log.warning("Honcho outbox %s is full (%d writes waiting): dropping the oldest queued turns (%d so "
                        "far); raise plugins.honcho.outbox_max_pending or fix the connection (%s)", outbox.path,
                        cap, dropped, self.health.reason or self.health.state)
        elif depth >= cap // 2 and not self._depth_warned:
            self._depth_warned = True
            log.warning("Honcho outbox %s: %d writes waiting, turns are queued faster than Honcho takes them "
                        "(%s); past %d the oldest turns are dropped", outbox.path, depth,
                        self.health.reason or self.health.state, cap)
        elif depth < cap // 4:
            self._depth_warned = self._drop_warned = False

    def _clean(self, text: str) -> str:
        """What may leave the machine: secrets redacted (``redact_secrets``), no NUL bytes
        (PostgreSQL text cannot hold them; the server drops them silently)."""
        if self.settings.redact_secrets:
            from hermes_core.text.redact import redact

            text = redact(text)
        return text.replace("\x00", "")

    def _messages(self, key: str, parts: list[tuple[str, str]], kind: str = "turn") -> list[dict[str, Any]]:
        now = datetime.now(UTC).isoformat()
        out: list[dict[str, Any]] = []
        for peer, raw in parts:
            text = self._clean(raw)
            for chunk in split_message(text, self.settings.message_max_chars):
                if chunk.strip():
                    meta = {TURN_KEY: key, PART_KEY: len(out), "hermes_session": self.session_id,
                            "hermes_kind": kind}
                    out.append({"peer": peer, "content": chunk, "metadata": meta, "created_at": now})
        return out

    def _turn_payload(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        s = self.settings
        return {"user_peer": s.user_peer, "assistant_peer": s.assistant_peer, "messages": messages}

    def sync_turn(self, user_content: str, assistant_content: str) -> None:
        from hermes_core.memory.fencing import sanitize_context

        s = self.settings
        key = uuid.uuid4().hex
        messages = self._messages(key, [(s.user_peer, sanitize_context(_text(user_content))),
                                        (s.assistant_peer, _text(assistant_content))])
        if messages:
            self._enqueue("turn", self._turn_payload(messages), key=key)

    def on_delegation(self, task: str, result: str) -> None:
        key = uuid.uuid4().hex
        text = f"[delegated task] {task}\n[result] {result}"
        messages = self._messages(key, [(self.settings.assistant_peer, text)], kind="delegation")
        self._enqueue("turn", self._turn_payload(messages), key=key)

    def on_memory_write(self, action: str, target: str, content: str) -> None:
        """Built-in USER.md additions become Honcho conclusions about the user."""
        s = self.settings
        if s.mirror_user_memory and action in ("add", "replace") and target == "user" and content.strip():
            self._enqueue("conclusion", {"observer": s.assistant_peer, "observed": s.user_peer,
                                         "content": self._clean(content.strip()[:4000])})

    # -- recall ------------------------------------------------------------------------

    def _fetch_recall(self, query: str) -> Recall | None:
        if not self.health.may_try():
            return None
        s = self.settings
        try:
            result = self.link.recall(self.honcho_session, s.user_peer, s.assistant_peer, query)
        except Exception as exc:
            self.health.failed(classify(exc))
            return None
        self.health.ok()
        return result

    def _fetch_dialectic(self, query: str) -> str | None:
        """Honcho's answer for this turn, on its own thread and budget (``dialectic_timeout``).

        A slow or failing answer is recorded in the status, never held against the
        connection: the context fetched beside it stays, and the provider stays ``ok``.
        """
        if not self.health.may_try():
            return None
        s = self.settings
        try:
            answer = self.link.dialectic(self.honcho_session, s.user_peer, s.assistant_peer, query)
        except Exception as exc:
            self.dialectic_error = classify(exc).describe()
            return None
        self.dialectic_error = ""
        return answer

    def system_prompt_block(self) -> str:
        return PROMPT_BLOCK[self.settings.recall_mode]

    def prefetch(self, query: str) -> str:
        s = self.settings
        if s.recall_mode == "tools" or self.closed:
            return ""
        if self.recall.latest is None and self.honcho_session:
            self.recall.request(query)
            if not self._waited and self.health.state in ("starting", "ok"):
                self._waited = True  # only the first turn waits, and never on a known outage
                self.recall.wait(s.first_turn_wait)
            self._ask_dialectic(query)
        return render(self.recall.latest, s.context_chars, s.dialectic_max_chars, self.dialectic.latest or "")

    def queue_prefetch(self, query: str) -> None:
        if self.settings.recall_mode != "tools" and self.honcho_session:
            self.recall.request(query)
            self._ask_dialectic(query)

    def _ask_dialectic(self, query: str) -> None:
        if self.settings.dialectic and query.strip():
            self.dialectic.request(query)

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        text = render(self.recall.latest, self.settings.context_chars, self.settings.dialectic_max_chars,
                      self.dialectic.latest or "")
        return f"Honcho's view of this session and user (keep what still matters):\n{text}" if text else ""

    # -- tools --------------------------------------------------------------------------

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [] if self.settings.recall_mode == "context" else tool_schemas()

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        if name not in TOOLS:
            return None
        try:
            parsed = TOOLS[name][0].model_validate(args if isinstance(args, dict) else {})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            return json.dumps({"error": f"invalid arguments for {name}: {problems}"})
        if self.health.state == "unavailable":
            return json.dumps({"error": f"Honcho is unavailable: {self.health.reason}"})
        if name != "honcho_conclude" and self.health.state == "degraded" and not self.health.may_try():
            return json.dumps({"error": f"{name} failed: Honcho is degraded ({self.health.reason}); try again later",
                               "status": "degraded"})
        try:
            result = getattr(self, f"_tool_{name.removeprefix('honcho_')}")(parsed)
        except Exception as exc:
            failure = classify(exc)
            self.health.failed(failure)
            return json.dumps({"error": f"{name} failed: {failure.describe()}", "status": self.health.state})
        return json.dumps(result, ensure_ascii=False)

    def _tool_profile(self, args: Any) -> dict[str, Any]:
        s = self.settings
        if args.peer == "user":
            card = self.link.card(s.assistant_peer, s.user_peer) or self.link.card(s.user_peer, None)
        else:
            card = self.link.card(s.assistant_peer, None)
        result: dict[str, Any] = {"peer": s.user_peer if args.peer == "user" else s.assistant_peer, "card": card}
        if not card:
            result["hint"] = ("No profile facts yet: Honcho builds the card from conversations over time, "
                              "or record one with honcho_conclude.")
        return {"result": result}

    def _tool_search(self, args: Any) -> dict[str, Any]:
        hits = self.link.search(args.query, args.limit)
        for hit in hits:
            hit["content"] = clip(hit["content"], 1200)
        return {"result": hits}

    def _tool_context(self, args: Any) -> dict[str, Any]:
        s = self.settings
        recall = self.link.recall(self.honcho_session or self._start_session(), s.user_peer, s.assistant_peer,
                                  args.query)
        return {"result": {"session": self.honcho_session, "summary": recall.summary,
                           "representation": recall.representation, "card": list(recall.card)}}

    def _start_session(self) -> str:
        self._start()
        return self.honcho_session

    def _tool_conclude(self, args: Any) -> dict[str, Any]:
        s = self.settings
        key = self._enqueue("conclusion", {"observer": s.assistant_peer, "observed": s.user_peer,
                                           "content": self._clean(args.conclusion.strip())})
        if key is None or self.outbox is None:
            return {"error": "the conclusion could not be recorded (outbox unavailable; see the log)"}
        if self.health.state != "degraded" and self.courier is not None:
            self.courier.flush(s.timeout)
        state, reason = self.outbox.state(key)  # this entry's fate, not the queue's
        if state == "delivered":
            return {"result": "saved"}
        if state == "aside":
            return {"error": f"Honcho refused the conclusion ({reason}); it is kept aside, not saved "
                             "(re-send it with `hermes-core memory outbox retry`)", "status": "refused"}
        return {"result": "queued", "note": f"Honcho is {self.health.state}; it will be delivered when reachable"}

    # -- set-aside writes (hermes-core memory outbox) -----------------------------------

    def manage_outbox(self, action: str, ids: list[int] | None = None, cause: str | None = None) -> dict[str, Any]:
        """``list`` the writes Honcho refused (set aside, with cause and reason), ``retry``
        them (back in the queue, then one bounded delivery attempt) or ``drop`` them.

        ``ids`` and ``cause`` narrow ``retry``/``drop``; neither means all. Never prints
        message text: only ids, sizes and the server's reason.
        """
        if action not in ("list", "retry", "drop"):
            raise ValueError(f"unknown outbox action {action!r}: use list, retry or drop")
        path = self.settings.outbox_file(self.ctx.home)
        if self.outbox is None and not path.exists():
            return {"path": str(path), "set_aside": [], "changed": 0, "counts": {}}
        box = self.outbox or Outbox(path)
        try:
            changed = 0
            if action == "retry":
                changed = box.retry(ids, cause)
                if changed and self._start() is not None and self.courier is not None:
                    self.courier.flush(self.settings.flush_wait)
            elif action == "drop":
                changed = box.drop(ids, cause)
            aside = [{"id": a.id, "kind": a.kind, "session": a.session, "chars": a.chars, "cause": a.cause,
                      "reason": a.reason, "queued_at": datetime.fromtimestamp(a.created, UTC).isoformat()}
                     for a in box.set_aside()]
            return {"path": str(path), "set_aside": aside, "changed": changed, "counts": box.counts()}
        finally:
            if box is not self.outbox:
                box.close()

    # -- status -------------------------------------------------------------------------

    def get_status(self, probe: bool = False) -> dict[str, Any]:
        """What ``hermes-core doctor`` shows: reachability, queue depth, configuration.

        ``probe=True`` first makes one request (bounded by ``timeout``) so a provider
        that was never initialised, as in ``doctor``, still reports reachability.
        """
        s = self.settings
        if probe and self.is_available()[0] and self.health.state not in ("unavailable", "closed"):
            try:
                self.link.ping()
                self.health.ok()
            except Exception as exc:
                self.health.failed(classify(exc))
        status: dict[str, Any] = {"provider": self.name, **self.health.snapshot()}
        path = s.outbox_file(self.ctx.home)
        outbox: dict[str, Any] = {"path": str(path)}
        try:
            box = self.outbox or (Outbox(path) if path.exists() else None)
            if box is not None:
                outbox.update(box.counts())
                if box is not self.outbox:
                    box.close()
        except Exception as exc:
            outbox["error"] = f"{type(exc).__name__}: {exc}"
        ok, why = self.is_available()
        if not ok and status["state"] in ("starting", "ok"):
            status["state"], status["reason"] = "unavailable", why
        waited = self.link.stalled_for()
        if status["state"] == "starting" and waited > STALL_GIVE_UP:  # connecting to a server that never answers
            status["reason"] = f"timeout: no answer from {s.url} for {waited:.0f}s"
            status["error_kind"] = "timeout"
        status["connection"] = connection(status)
        status.update({
            "base_url": s.url, "workspace": s.workspace, "session": self.honcho_session,
            "peers": {"user": s.user_peer, "assistant": s.assistant_peer}, "recall_mode": s.recall_mode,
            "sdk_version": sdk_version(), "outbox": outbox,
            "delivered": self.courier.delivered if self.courier else 0,
            "recall_fetched_at": self.recall.fetched_at, "dialectic_error": self.dialectic_error,
        })
        status["summary"] = status_line(status)
        return status


def _text(value: Any) -> str:
    """Message content as text; hosts pass strings, but a multi-part list must not crash."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False, default=str)


def connection(status: dict[str, Any]) -> str:
    """``reachable``, ``unreachable`` (refused, reset or unanswered) or ``unknown`` (not tried yet)."""
    if status["state"] == "ok":
        return "reachable"
    if status.get("error_kind") in ("unreachable", "timeout"):
        return "unreachable"
    return "reachable" if status.get("error_kind") else "unknown"


def status_line(status: dict[str, Any]) -> str:
    """One human line, e.g. ``honcho: unreachable (unreachable: ...); 3 write(s) queued, oldest 40s``."""
    state = status["state"]
    if state in ("starting", "degraded") and status.get("connection") == "unreachable":
        state = "unreachable"
    line = f"honcho: {state}"
    if status.get("reason"):
        line += f" ({status['reason'].removeprefix('unreachable: ') if state == 'unreachable' else status['reason']})"
    box = status.get("outbox", {})
    queued, rejected = box.get("pending", 0), box.get("rejected", 0)
    if queued:
        line += f"; {queued} write(s) queued in {box['path']}, oldest {box.get('oldest_pending_age_s', 0):.0f}s"
    if rejected:
        causes = ", ".join(f"{n} {cause}" for cause, n in sorted(box.get("rejected_by_cause", {}).items()))
        line += f"; {rejected} write(s) refused by Honcho and set aside ({causes}; hermes-core memory outbox list)"
    if box.get("dropped"):
        line += f"; {box['dropped']} queued turn(s) dropped when the outbox was full"
    if status.get("last_error") and not status.get("reason") and (queued or rejected):
        line += f"; last error: {status['last_error']}"
    return line

"""The MemoryManager: the built-in provider plus at most one external one (seed 1.6).

The manager talks to pluggy's hook relay only (``hook.hermes_memory_*``), never to the
host: every call reaches every provider's bridge in pluggy's order, wrappers and
observers included. Isolation, bounds and ordering live in each provider's bridge and
:class:`~hermes_core.guard.Guard`: the built-in provider runs inline; an external one
gets one ordered worker thread, and everything that must follow its turns runs there, in
call order:

* ``sync_turn`` / ``queue_prefetch`` (fire and forget), so turn N lands before N+1;
* the session boundary: ``on_session_end`` (not waited for), then ``initialize`` of the
  next session and ``system_prompt_block`` (waited for up to their bounds), so a turn
  always reaches the provider inside the session it belongs to;
* ``shutdown``, last.

Results are joined in provider order (the built-in provider's first). ``shutdown`` waits
:attr:`MemoryManager.drain_timeout` for queued turns, then the boundary bound; what never
ran is logged per provider and counted in ``shutdown_state``. A provider still busy at the
bound is never shut down concurrently with its running call: its ``shutdown`` is skipped.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from hermes_core.config.raw import BUILTIN_PROVIDER as BUILTIN
from hermes_core.memory import write_flag
from hermes_core.memory.base import MemoryProvider

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig
    from hermes_core.guard import Bounds, Guard

log = logging.getLogger("hermes_core.memory")

MEMORY_TOOL = "memory"
Message = dict[str, Any]

# Tools an agent host provides itself; an external provider may not shadow them. The
# built-in provider owns ``memory``.
CORE_TOOL_NAMES = frozenset(
    {
        "memory",
        "session_search",
        "terminal",
        "process",
        "read_file",
        "write_file",
        "patch",
        "search_files",
        "web_search",
        "web_extract",
        "browser_navigate",
        "execute_code",
        "delegate_task",
        "todo",
        "clarify",
        "skill_manage",
        "skill_view",
        "skills_list",
        "send_message",
        "vision_analyze",
        "image_generate",
        "text_to_speech",
        "cronjob",
    }
)

NUDGE_TEXT = (
    "[System: Several turns have passed without a memory update. If this conversation taught you "
    "something durable (user preferences or corrections, environment facts, project conventions), "
    "save it now with the memory tool. Do not save task progress or temporary state. If nothing is "
    "worth saving, carry on.]"
)

BACKGROUND = frozenset({"sync_turn", "queue_prefetch"})  # what the drain_timeout part of a drain waits for
BOUNDARY_HOOKS = ("memory_initialize", "memory_system_prompt_block", "memory_on_session_end", "memory_shutdown")


class ProviderBridge(Protocol):
    """What the manager reads of a provider's bridge (see :mod:`hermes_core.plugin.bridge`)."""

    obj: Any
    guard: Guard
    offered: list[dict[str, Any]]
    tools: frozenset[str]


MemoryWriteListener = Callable[[str, str, str], None]


class MemoryManager:
    """Orchestrates the active memory providers for one host, through ``hook``."""

    #: Seconds ``shutdown`` waits for queued sync/prefetch work before giving up on it.
    drain_timeout: float = 5.0

    def __init__(
        self, hook: Any, config: HermesConfig, bounds: Bounds, warn: Callable[[str], None] | None = None
    ) -> None:
        self.hook = hook
        self.config = config
        self.bounds = bounds
        self._warn = warn or (lambda message: log.warning("%s", message))
        self.providers: list[MemoryProvider] = []
        self._bridges: list[ProviderBridge] = []
        self._tool_owner: dict[str, ProviderBridge] = {}
        self._write_flags: dict[str, write_flag.Flag] = {}  # tool name -> which calls write memory
        self._tools_known = False
        self._warned: set[str] = set()
        self._turn = 0
        self._last_memory_turn = 0
        self._shut_down = False
        #: Called with ``(action, target, content)`` after every successful write to the built-in store.
        self.write_listeners: list[MemoryWriteListener] = []
        #: After shutdown: ``{"status": "drained" | "timed_out", "dropped": tasks never run,
        #: "unsynced": {provider: turns it never received in full}, "shutdown_skipped": [provider]}``.
        self.shutdown_state: dict[str, Any] = {}

    @property
    def hook_timeout(self) -> float:
        """The bound of the session-boundary calls (initialize, prompt block, session end, shutdown)."""
        return self.bounds[BOUNDARY_HOOKS[0]]

    @hook_timeout.setter
    def hook_timeout(self, seconds: float) -> None:
        for hook in BOUNDARY_HOOKS:
            self.bounds[hook] = seconds

    @property
    def external(self) -> MemoryProvider | None:
        return next((p for p in self.providers if p.name != BUILTIN), None)

    def attach(self, provider: MemoryProvider, bridge: ProviderBridge) -> bool:
        """Accept the built-in provider and at most one external; ``False`` for any other."""
        existing = self.external
        if provider.name != BUILTIN and existing is not None:
            self._warn(f"memory provider '{provider.name}' refused: '{existing.name}' is already the external provider")
            return False
        self.providers.append(provider)
        self._bridges.append(bridge)
        self._tools_known = False
        log.info("memory provider '%s' active", provider.name)
        return True

    def _warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self._warn(message)

    @staticmethod
    def _in_provider_order(results: list[Any]) -> list[Any]:
        """pluggy returns results last-registered first; providers are joined built-in first."""
        return results[::-1]

    # -- the session boundary -------------------------------------------------------------

    def initialize_all(self, session_id: str) -> None:
        """Start a session: providers load state (the built-in freezes its snapshot).

        An external provider initializes after its queued turns and session end, so they
        land in the session they belong to.
        """
        self._turn = self._last_memory_turn = 0
        self.hook.hermes_memory_initialize(session_id=session_id)

    def system_prompt_blocks(self) -> list[str]:
        """Each provider's block, read after its ``initialize``."""
        blocks = self._in_provider_order(self.hook.hermes_memory_system_prompt_block())
        return [b for b in blocks if isinstance(b, str) and b.strip()]

    def on_session_end(self, session_id: str, messages: list[Message]) -> None:
        """End a session without waiting: queued after each provider's pending turns."""
        if self._dropped("on_session_end"):
            return
        self.hook.hermes_memory_on_session_end(session_id=session_id, messages=messages)

    # -- the turn ---------------------------------------------------------------------------

    def on_turn_start(self, turn_number: int, message: str) -> None:
        self._turn = turn_number
        self.hook.hermes_memory_on_turn_start(turn_number=turn_number, message=message)

    def prefetch_all(self, query: str) -> str:
        """Recalled context for this turn, joined by blank lines; each provider within its bound."""
        results = self._in_provider_order(self.hook.hermes_memory_prefetch(query=query))
        return "\n\n".join(r for r in results if isinstance(r, str) and r.strip())

    def queue_prefetch_all(self, query: str) -> None:
        """Warm the next turn, on each provider's worker after its queued syncs."""
        if not self._dropped("queue_prefetch"):
            self.hook.hermes_memory_queue_prefetch(query=query)

    def sync_all(self, user_content: str, assistant_content: str) -> None:
        """Persist a finished turn, on each provider's worker, in turn order."""
        if not self._dropped("sync_turn"):
            self.hook.hermes_memory_sync_turn(user_content=user_content, assistant_content=assistant_content)

    def _dropped(self, what: str) -> bool:
        if self._shut_down:
            log.warning("memory %s dropped: the memory manager is shut down", what)
        return self._shut_down

    def flush_pending(self, timeout: float = 5.0) -> bool:
        """Wait until every provider's queued work has run; ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        idle = [w.wait(lambda kinds: not kinds, deadline - time.monotonic()) for _, w in self._workers()]
        return all(idle)

    def on_pre_compress(self, messages: list[Message]) -> str:
        parts = self._in_provider_order(self.hook.hermes_memory_on_pre_compress(messages=messages))
        return "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())

    def memory_written(self, action: str, target: str, content: str) -> None:
        """The built-in store changed (its tool calls this through ``ctx.memory_written``).

        Mirrored to every provider's ``on_memory_write`` and to the write listeners (the
        session's event log); resets the nudge counter.
        """
        self._last_memory_turn = self._turn
        self.on_memory_write(action, target, content)
        for listener in list(self.write_listeners):
            try:
                listener(action, target, content)
            except Exception:
                log.exception("a memory write listener failed")

    def on_memory_write(self, action: str, target: str, content: str) -> None:
        self.hook.hermes_memory_on_memory_write(action=action, target=target, content=content)

    def on_delegation(self, task: str, result: str) -> None:
        self.hook.hermes_memory_on_delegation(task=task, result=result)

    # -- status -----------------------------------------------------------------------------

    def status(self, probe: bool = False) -> list[dict[str, Any]]:
        """Each provider's ``get_status`` (one bounded request with ``probe``), built-in first."""
        return [s for s in self._in_provider_order(self.hook.hermes_memory_get_status(probe=probe)) if s]

    def health(self) -> list[dict[str, Any]]:
        """What isolation saw per provider: failed or overrun calls, worker restarts."""
        out = []
        for provider, bridge in zip(self.providers, self._bridges, strict=True):
            guard = bridge.guard
            restarts = guard.worker.restarts if guard.has_worker else 0
            out.append(
                {
                    "provider": provider.name,
                    "failures": guard.failures,
                    "last_problem": guard.last_problem,
                    "worker_restarts": restarts,
                }
            )
        return out

    # -- shutdown -----------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Queue each external ``shutdown`` after its pending work, drain (bounded). Idempotent."""
        if self._shut_down:
            return
        self.hook.hermes_memory_shutdown()
        self._shut_down = True
        self.shutdown_state = self._drain()

    def _workers(self) -> list[tuple[str, Any]]:
        pairs = zip(self.providers, self._bridges, strict=True)
        return [(p.name, b.guard.worker) for p, b in pairs if b.guard.has_worker]

    def _drain(self) -> dict[str, Any]:
        """Queued turns get ``drain_timeout``, then the boundary calls their bound; report the rest."""
        workers = self._workers()
        deadline = time.monotonic() + self.drain_timeout
        synced = [
            w.wait(lambda kinds: not BACKGROUND.intersection(kinds), deadline - time.monotonic()) for _, w in workers
        ]
        deadline = time.monotonic() + self.hook_timeout
        for (_, worker), ok in zip(workers, synced, strict=True):
            if ok:
                worker.wait(lambda kinds: not kinds, deadline - time.monotonic())
        dropped = 0
        unsynced: dict[str, int] = {}
        skipped: list[str] = []
        stuck = False
        origins = {p.name: b.guard.origin for p, b in zip(self.providers, self._bridges, strict=True)}
        for name, worker in workers:
            kinds, running = worker.close()
            dropped += sum(kinds.values())
            if running is None and not kinds:
                continue
            stuck = True
            origin = origins.get(name, name)
            missed = kinds["sync_turn"] + (running == "sync_turn")
            if missed:
                unsynced[name] = missed
                log.warning(
                    "memory provider %s did not receive %d turn(s) within the %.1fs drain (one still running counts)",
                    origin,
                    missed,
                    self.drain_timeout,
                )
            if running is not None and running not in BACKGROUND:
                log.warning(
                    "memory provider %s: %s timed out after %.1fs; carrying on without it",
                    origin,
                    running,
                    self.hook_timeout,
                )
            if kinds:
                log.warning(
                    "memory provider %s: %s at the bound; not run: %s",
                    origin,
                    f"{running} still running" if running else "busy",
                    ", ".join(f"{kind} x{n}" for kind, n in sorted(kinds.items())),
                )
            if kinds["shutdown"]:
                skipped.append(name)
                log.warning(
                    "memory provider %s: shutdown skipped, it must not run alongside its still-running %s",
                    origin,
                    running,
                )
        return {
            "status": "timed_out" if stuck else "drained",
            "dropped": dropped,
            "unsynced": unsynced,
            "shutdown_skipped": skipped,
        }

    # -- nudges -----------------------------------------------------------------------

    def nudge(self, turn_number: int) -> str | None:
        """The reminder to append at ``turn_number``, or ``None``.

        Every ``memory.nudge_interval`` turns since the store was last written (0 turns
        nudging off), and never before ``memory.flush_min_turns`` turns have passed.
        """
        cfg = self.config.memory
        if cfg.nudge_interval <= 0 or turn_number < cfg.flush_min_turns or not self.has_tool(MEMORY_TOOL):
            return None
        since = turn_number - self._last_memory_turn
        if since <= 0 or since % cfg.nudge_interval:
            return None
        return NUDGE_TEXT

    # -- tools ------------------------------------------------------------------------

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every provider's tools, built-in first; shadows and duplicates refused."""
        for bridge in self._bridges:
            bridge.offered = []
        self.hook.hermes_memory_get_tool_schemas()
        owners: dict[str, ProviderBridge] = {}
        schemas = []
        for provider, bridge in zip(self.providers, self._bridges, strict=True):
            owned = set()
            for schema in bridge.offered:
                name = schema.get("name")
                if not isinstance(name, str) or not name:
                    self._warn_once(f"memory provider '{provider.name}' offered a tool without a name; refused")
                elif provider.name != BUILTIN and name in CORE_TOOL_NAMES:
                    self._warn_once(f"memory provider '{provider.name}': tool '{name}' shadows a core tool; refused")
                elif name in owners:
                    self._warn_once(
                        f"memory provider '{provider.name}': tool '{name}' is already offered by "
                        f"'{owners[name].obj.name}'; refused"
                    )
                else:
                    owners[name] = bridge
                    owned.add(name)
                    schemas.append(self._take_write_flag(provider.name, name, schema))
            bridge.tools = frozenset(owned)
        self._tool_owner = owners
        self._tools_known = True
        return schemas

    def _take_write_flag(self, provider: str, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        """The schema without its ``writes_memory`` key (the model never sees it); the key is recorded."""
        if write_flag.KEY not in schema:
            self._write_flags.pop(name, None)
            return schema
        try:
            self._write_flags[name] = write_flag.parse(schema[write_flag.KEY])
        except ValueError as exc:
            self._warn_once(f"memory provider '{provider}': tool '{name}': {exc}; every call counts as a write")
            self._write_flags[name] = True
        return {k: v for k, v in schema.items() if k != write_flag.KEY}

    def writes_memory(self, name: str, args: dict[str, Any]) -> bool:
        """Whether this call of a provider tool writes memory (its schema's ``writes_memory`` flag)."""
        if not self._tools_known:
            self.tool_schemas()
        flag = self._write_flags.get(name)
        return name in self._tool_owner and flag is not None and write_flag.is_write(flag, args)

    def has_tool(self, name: str) -> bool:
        if not self._tools_known:
            self.tool_schemas()
        return name in self._tool_owner

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str:
        if not self._tools_known:
            self.tool_schemas()
        owner = self._tool_owner.get(name)
        if owner is None:
            return json.dumps({"success": False, "error": f"No memory provider handles tool '{name}'"})
        failures = owner.guard.failures
        result = self.hook.hermes_memory_handle_tool_call(name=name, args=args)
        if result is None:
            problem = owner.guard.last_problem if owner.guard.failures > failures else "it returned nothing"
            return json.dumps({"success": False, "error": f"Memory tool '{name}' failed: {problem}"})
        return str(result)

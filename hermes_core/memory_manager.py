"""The MemoryManager: the built-in provider plus at most one external one (seed 1.6).

Every provider hook fans out through the host, one isolated call per provider, so a
provider that raises never stops another provider or the turn. Three things keep a slow
or hung provider from stalling the session; the built-in provider always runs inline:

* external ``prefetch`` runs on its own thread, bounded by ``memory.prefetch_timeout``;
* external ``initialize``, ``system_prompt_block``, ``on_session_end`` and ``shutdown``
  run the same way, bounded by :attr:`MemoryManager.hook_timeout` (a separate bound: these
  run once per session and may legitimately flush, so they get more time than a recall);
* ``sync_turn`` / ``queue_prefetch`` run on one background worker per provider, which
  keeps each provider's turns in order and keeps a stuck provider from delaying another.

``shutdown`` drains the workers for at most :attr:`MemoryManager.drain_timeout` seconds;
turns a provider never received are logged and counted in ``shutdown_state``.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from hermes_core.provider import MemoryProvider

if TYPE_CHECKING:
    from hermes_core.host import PluginHost

log = logging.getLogger("hermes_core.memory")

BUILTIN = "builtin"
BUILTIN_PLUGIN = f"memory:{BUILTIN}"
SYNC_HOOK = "hermes_memory_sync_turn"
MEMORY_TOOL = "memory"
Message = dict[str, Any]

# Tools an agent host provides itself; an external provider may not shadow them. The
# built-in provider owns ``memory``.
CORE_TOOL_NAMES = frozenset({
    "memory", "session_search", "terminal", "process", "read_file", "write_file", "patch",
    "search_files", "web_search", "web_extract", "browser_navigate", "execute_code",
    "delegate_task", "todo", "clarify", "skill_manage", "skill_view", "skills_list",
    "send_message", "vision_analyze", "image_generate", "text_to_speech", "cronjob",
})

NUDGE_TEXT = (
    "[System: Several turns have passed without a memory update. If this conversation taught you "
    "something durable (user preferences or corrections, environment facts, project conventions), "
    "save it now with the memory tool. Do not save task progress or temporary state. If nothing is "
    "worth saving, carry on.]"
)


_Task = tuple[str | None, Callable[[], object]]  # (kind counted if dropped, or None; the call)


class _OrderedWorker:
    """One daemon thread that runs submitted tasks one at a time, in submission order.

    A daemon thread, not an executor: a provider stuck in a network call must not keep
    the interpreter from exiting.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.Queue[_Task | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.closed = False

    def submit(self, task: Callable[[], object], kind: str | None = None) -> bool:
        with self._lock:
            if self.closed:
                return False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._queue.put((kind, task))
            return True

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                item[1]()
            except Exception:
                log.exception("memory background task failed")

    def wait_idle(self, timeout: float) -> bool:
        """Wait until everything submitted so far has run; ``False`` on timeout."""
        done = threading.Event()
        if not self.submit(done.set):
            return not self.running()
        return done.wait(timeout)

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def close(self, timeout: float) -> Counter[str]:
        """Stop accepting work, run what is queued for up to ``timeout``; the kinds of tasks dropped."""
        dropped: Counter[str] = Counter()
        with self._lock:
            if self.closed:
                return dropped
            self.closed = True
            thread = self._thread
            self._queue.put(None)
        if thread is None:
            return dropped
        thread.join(timeout)
        if not thread.is_alive():
            return dropped
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None and item[0] is not None:
                dropped[item[0]] += 1
        self._queue.put(None)
        return dropped


class MemoryManager:
    """Orchestrates the active memory providers for one host."""

    #: Seconds ``shutdown`` waits for queued sync/prefetch work before giving up on it.
    drain_timeout: float = 5.0
    #: Seconds an external provider's ``initialize``, ``system_prompt_block``,
    #: ``on_session_end`` or ``shutdown`` may take before the session carries on without it.
    hook_timeout: float = 10.0

    def __init__(self, host: PluginHost) -> None:
        self.host = host
        self.providers: list[MemoryProvider] = []
        self._tool_owner: dict[str, MemoryProvider] = {}
        self._warned: set[str] = set()
        self._running: dict[tuple[str, str], threading.Thread] = {}  # (plugin, hook) -> its bounded call
        self._workers: dict[str, _OrderedWorker] = {}  # plugin -> its sync/queue_prefetch worker
        self._turn = 0
        self._last_memory_turn = 0
        self._shut_down = False
        #: After shutdown: ``{"status": "drained" | "timed_out", "dropped": tasks,
        #: "unsynced": {provider: turns it never received}}``.
        self.shutdown_state: dict[str, Any] = {}

    @property
    def external(self) -> MemoryProvider | None:
        return next((p for p in self.providers if p.name != BUILTIN), None)

    def add_provider(self, provider: MemoryProvider) -> bool:
        """Accept the built-in provider and at most one external; refuse the rest."""
        existing = self.external
        if provider.name != BUILTIN and existing is not None:
            log.warning(
                "Rejected memory provider '%s': external provider '%s' is already registered. "
                "Only one external memory provider is allowed at a time; choose one with "
                "memory.provider in config.yaml.",
                provider.name,
                existing.name,
            )
            self.host.warnings.append(
                f"memory provider '{provider.name}' refused: '{existing.name}' is already the external provider"
            )
            return False
        self.providers.append(provider)
        self._tool_owner.clear()
        return True

    def _warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            log.warning("%s", message)
            self.host.warnings.append(message)

    # -- fan-out ----------------------------------------------------------------------

    def _each(self, hook: str, **kwargs: Any) -> list[Any]:
        return [result for _name, result in self.host.call_each(hook, **kwargs)]

    def _bounded(self, hook: str, kwargs: dict[str, Any], timeout: float, *, reverse: bool = False) -> list[Any]:
        """Results of ``hook``'s implementations that returned in time, in call order.

        The built-in provider runs inline. Every other implementation runs on its own
        daemon thread; all of them share one deadline of ``timeout`` seconds. One still
        stuck in its previous call of this hook is skipped rather than waited for again.
        """
        impls = self.host.hookimpls(hook)
        if reverse:
            impls.reverse()
        short = hook.removeprefix("hermes_memory_")
        pending: list[tuple[str, threading.Thread, list[tuple[bool, Any]]]] = []
        results: dict[str, Any] = {}
        for impl in impls:
            name = impl.plugin_name
            if name == BUILTIN_PLUGIN:
                ok, value = self.host.invoke(impl, hook, kwargs)
                if ok:
                    results[name] = value
                continue
            previous = self._running.get((name, hook))
            if previous is not None and previous.is_alive():
                log.info("%s: previous %s still running; skipping it this time", self.host.origin(name), short)
                continue
            box: list[tuple[bool, Any]] = []
            thread = threading.Thread(
                target=lambda impl=impl, box=box: box.append(self.host.invoke(impl, hook, kwargs)),
                name=f"hermes-{short}-{name}", daemon=True,
            )
            self._running[(name, hook)] = thread
            thread.start()
            pending.append((name, thread, box))
        deadline = time.monotonic() + timeout
        for name, thread, box in pending:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                log.warning("memory provider %s: %s timed out after %.1fs; carrying on without it",
                            self.host.origin(name), short, timeout)
            elif box and box[0][0]:
                results[name] = box[0][1]
        return [results[impl.plugin_name] for impl in impls if impl.plugin_name in results]

    def initialize_all(self, session_id: str) -> None:
        """Start a session: providers load state (the built-in freezes its snapshot)."""
        self._turn = self._last_memory_turn = 0
        self._bounded("hermes_memory_initialize", {"session_id": session_id}, self.hook_timeout)

    def system_prompt_blocks(self) -> list[str]:
        blocks = self._bounded("hermes_memory_system_prompt_block", {}, self.hook_timeout)
        return [b for b in blocks if isinstance(b, str) and b.strip()]

    def prefetch_all(self, query: str) -> str:
        """Recalled context for this turn, joined by blank lines; bounded by ``memory.prefetch_timeout``."""
        timeout = float(self.host.config.memory.prefetch_timeout)
        results = self._bounded("hermes_memory_prefetch", {"query": query}, timeout)
        return "\n\n".join(r for r in results if isinstance(r, str) and r.strip())

    def queue_prefetch_all(self, query: str) -> None:
        """Warm the next turn, on each provider's worker after its queued syncs."""
        self._submit("hermes_memory_queue_prefetch", {"query": query})

    def sync_all(self, user_content: str, assistant_content: str) -> None:
        """Persist a finished turn, on each provider's worker, in turn order."""
        self._submit(SYNC_HOOK, {"user_content": user_content, "assistant_content": assistant_content})

    def _submit(self, hook: str, kwargs: dict[str, Any]) -> None:
        short = hook.removeprefix("hermes_memory_")
        if self._shut_down:
            log.warning("memory %s dropped: the memory manager is shut down", short)
            return
        for impl in self.host.hookimpls(hook):
            worker = self._workers.get(impl.plugin_name)
            if worker is None:
                worker = self._workers[impl.plugin_name] = _OrderedWorker(f"hermes-memory-{impl.plugin_name}")
            if not worker.submit(partial(self.host.invoke, impl, hook, kwargs), kind=hook):
                log.warning("memory %s for %s dropped: the memory manager is shut down",
                            short, self.host.origin(impl.plugin_name))

    def flush_pending(self, timeout: float = 5.0) -> bool:
        """Wait until every provider's queued sync/prefetch work has run; ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        idle = [w.wait_idle(max(0.0, deadline - time.monotonic())) for w in list(self._workers.values())]
        return all(idle)

    def on_turn_start(self, turn_number: int, message: str) -> None:
        self._turn = turn_number
        self._each("hermes_memory_on_turn_start", turn_number=turn_number, message=message)

    def on_pre_compress(self, messages: list[Message]) -> str:
        parts = self._each("hermes_memory_on_pre_compress", messages=messages)
        return "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())

    def on_memory_write(self, action: str, target: str, content: str) -> None:
        """Tell every provider except the built-in that the built-in store changed."""
        for impl in self.host.hookimpls("hermes_memory_on_memory_write"):
            if impl.plugin_name != BUILTIN_PLUGIN:
                self.host.invoke(impl, "hermes_memory_on_memory_write",
                                 {"action": action, "target": target, "content": content})

    def on_delegation(self, task: str, result: str) -> None:
        self._each("hermes_memory_on_delegation", task=task, result=result)

    def on_session_end(self, session_id: str, messages: list[Message]) -> None:
        self._bounded("hermes_memory_on_session_end", {"session_id": session_id, "messages": messages},
                      self.hook_timeout)

    def shutdown(self) -> None:
        """Drain queued work (bounded), then shut providers down in reverse order. Idempotent."""
        if self._shut_down:
            return
        self._shut_down = True
        self.shutdown_state = self._drain(self.drain_timeout)
        self._bounded("hermes_memory_shutdown", {}, self.hook_timeout, reverse=True)

    def _drain(self, timeout: float) -> dict[str, Any]:
        """Close every worker within one deadline; say which provider missed how many turns."""
        deadline = time.monotonic() + timeout
        dropped = 0
        unsynced: dict[str, int] = {}
        stuck = False
        for plugin, worker in list(self._workers.items()):
            kinds = worker.close(max(0.0, deadline - time.monotonic()))
            stuck = stuck or bool(kinds) or worker.running()
            dropped += sum(kinds.values())
            if kinds[SYNC_HOOK]:
                unsynced[plugin.removeprefix("memory:")] = kinds[SYNC_HOOK]
                log.warning("memory provider %s did not receive %d turn(s): their sync_turn was still queued "
                            "behind a stuck call after the %.1fs drain", self.host.origin(plugin),
                            kinds[SYNC_HOOK], timeout)
        if stuck:
            log.warning("memory shutdown: background work did not finish within %.1fs; %d queued task(s) dropped",
                        timeout, dropped)
        return {"status": "timed_out" if stuck else "drained", "dropped": dropped, "unsynced": unsynced}

    # -- nudges -----------------------------------------------------------------------

    def nudge(self, turn_number: int) -> str | None:
        """The reminder to append at ``turn_number``, or ``None``.

        Every ``memory.nudge_interval`` turns since the memory tool was last used (0 turns
        nudging off), and never before ``memory.flush_min_turns`` turns have passed.
        """
        cfg = self.host.config.memory
        if cfg.nudge_interval <= 0 or turn_number < cfg.flush_min_turns or not self.has_tool(MEMORY_TOOL):
            return None
        since = turn_number - self._last_memory_turn
        if since <= 0 or since % cfg.nudge_interval:
            return None
        return NUDGE_TEXT

    # -- tools ------------------------------------------------------------------------

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every provider's tools, first come first served; shadows and duplicates refused."""
        owners: dict[str, MemoryProvider] = {}
        schemas = []
        for provider in self.providers:
            try:
                offered = list(provider.get_tool_schemas())
            except Exception as exc:
                log.warning("memory provider %s failed in get_tool_schemas: %s", provider.name, exc)
                continue
            for raw in offered:
                schema = _normalize_schema(raw)
                name = schema.get("name") if schema else None
                if not schema or not isinstance(name, str) or not name:
                    self._warn_once(f"memory provider '{provider.name}' offered a tool without a name; refused")
                elif provider.name != BUILTIN and name in CORE_TOOL_NAMES:
                    self._warn_once(f"memory provider '{provider.name}': tool '{name}' shadows a core tool; refused")
                elif name in owners:
                    self._warn_once(f"memory provider '{provider.name}': tool '{name}' is already offered by "
                                    f"'{owners[name].name}'; refused")
                else:
                    owners[name] = provider
                    schemas.append(schema)
        self._tool_owner = owners
        return schemas

    def has_tool(self, name: str) -> bool:
        if not self._tool_owner:
            self.tool_schemas()
        return name in self._tool_owner

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str:
        if not self._tool_owner:
            self.tool_schemas()
        provider = self._tool_owner.get(name)
        if provider is None:
            return json.dumps({"success": False, "error": f"No memory provider handles tool '{name}'"})
        try:
            result = provider.handle_tool_call(name, args)
        except Exception as exc:
            log.warning("memory tool %s failed: %s: %s", name, type(exc).__name__, exc)
            return json.dumps({"success": False, "error": f"Memory tool '{name}' failed: {type(exc).__name__}: {exc}"})
        if result is None:
            return json.dumps({"success": False, "error": f"Unknown tool '{name}'"})
        if provider.name == BUILTIN and name == MEMORY_TOOL:
            self._last_memory_turn = self._turn
            self._notify_builtin_write(args, result)
        return result

    def _notify_builtin_write(self, args: Any, result: str) -> None:
        """Mirror a successful built-in write to the other providers, one call per operation."""
        try:
            outcome = json.loads(result)
        except (TypeError, ValueError):
            return
        if not isinstance(outcome, dict) or outcome.get("success") is not True or not isinstance(args, dict):
            return
        target = outcome.get("target") or args.get("target") or "memory"
        ops = args.get("operations") or [args]
        for op in ops if isinstance(ops, list) else ():
            if not isinstance(op, dict) or op.get("action") not in ("add", "replace", "remove"):
                continue
            content = op.get("content") or op.get("new_content") or op.get("new_text") or ""
            if op["action"] == "remove":
                content = op.get("old_text") or ""
            self.on_memory_write(op["action"], str(target), str(content))


def _normalize_schema(raw: Any) -> dict[str, Any] | None:
    """A bare ``{name, description, parameters}``; unwraps ``{"type": "function", ...}``."""
    if not isinstance(raw, dict):
        return None
    if raw.get("type") == "function" and isinstance(raw.get("function"), dict):
        return dict(raw["function"])
    return raw

"""The MemoryManager: the built-in provider plus at most one external one (seed 1.6).

Every provider hook fans out through the host, one isolated call per provider, so a
provider that raises never stops another provider or the turn. Two things keep a slow
provider from stalling a turn: external ``prefetch`` runs on its own thread with a
timeout (``memory.prefetch_timeout``), and ``sync_turn`` / ``queue_prefetch`` run on one
background worker, which keeps them in turn order. ``shutdown`` drains that worker for
at most :attr:`MemoryManager.drain_timeout` seconds before providers shut down.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_core.provider import MemoryProvider

if TYPE_CHECKING:
    from hermes_core.host import PluginHost

log = logging.getLogger("hermes_core.memory")

BUILTIN = "builtin"
BUILTIN_PLUGIN = f"memory:{BUILTIN}"
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


class _OrderedWorker:
    """One daemon thread that runs submitted tasks one at a time, in submission order.

    A daemon thread, not an executor: a provider stuck in a network call must not keep
    the interpreter from exiting.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.Queue[Callable[[], object] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.closed = False

    def submit(self, task: Callable[[], object]) -> bool:
        with self._lock:
            if self.closed:
                return False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._queue.put(task)
            return True

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            try:
                task()
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

    def close(self, timeout: float) -> int:
        """Stop accepting work, run what is queued for up to ``timeout``; return tasks dropped."""
        with self._lock:
            if self.closed:
                return 0
            self.closed = True
            thread = self._thread
            self._queue.put(None)
        if thread is None:
            return 0
        thread.join(timeout)
        if not thread.is_alive():
            return 0
        dropped = 0
        while True:
            try:
                task = self._queue.get_nowait()
            except queue.Empty:
                break
            if task is not None:
                dropped += 1
        self._queue.put(None)
        return dropped


class MemoryManager:
    """Orchestrates the active memory providers for one host."""

    #: Seconds ``shutdown`` waits for queued sync/prefetch work before giving up on it.
    drain_timeout: float = 5.0

    def __init__(self, host: PluginHost) -> None:
        self.host = host
        self.providers: list[MemoryProvider] = []
        self._tool_owner: dict[str, MemoryProvider] = {}
        self._warned: set[str] = set()
        self._prefetching: dict[str, threading.Thread] = {}
        self._worker = _OrderedWorker("hermes-memory-worker")
        self._turn = 0
        self._last_memory_turn = 0
        self._shut_down = False
        #: After shutdown: ``{"status": "drained" | "timed_out", "dropped": n}``.
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

    def initialize_all(self, session_id: str) -> None:
        """Start a session: providers load state (the built-in freezes its snapshot)."""
        self._turn = self._last_memory_turn = 0
        self._each("hermes_memory_initialize", session_id=session_id)

    def system_prompt_blocks(self) -> list[str]:
        return [b for b in self._each("hermes_memory_system_prompt_block") if isinstance(b, str) and b.strip()]

    def prefetch_all(self, query: str) -> str:
        """Recalled context for this turn, joined by blank lines.

        The built-in provider answers inline. Every other implementation runs on its own
        daemon thread; all of them share one deadline of ``memory.prefetch_timeout``
        seconds. A provider whose previous prefetch is still running is skipped.
        """
        hook = "hermes_memory_prefetch"
        kwargs = {"query": query}
        timeout = float(self.host.config.memory.prefetch_timeout)
        pending: list[tuple[Any, threading.Thread, list[tuple[bool, Any]]]] = []
        results: dict[str, Any] = {}
        impls = self.host.hookimpls(hook)
        for impl in impls:
            if impl.plugin_name == BUILTIN_PLUGIN:
                ok, value = self.host.invoke(impl, hook, kwargs)
                results[impl.plugin_name] = value if ok else None
                continue
            previous = self._prefetching.get(impl.plugin_name)
            if previous is not None and previous.is_alive():
                log.info("%s: previous prefetch still running; skipping it this turn",
                         self.host.origin(impl.plugin_name))
                continue
            box: list[tuple[bool, Any]] = []
            thread = threading.Thread(
                target=lambda impl=impl, box=box: box.append(self.host.invoke(impl, hook, kwargs)),
                name=f"hermes-prefetch-{impl.plugin_name}", daemon=True,
            )
            self._prefetching[impl.plugin_name] = thread
            thread.start()
            pending.append((impl, thread, box))
        deadline = time.monotonic() + timeout
        for impl, thread, box in pending:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                log.warning("%s: prefetch timed out after %.1fs; skipping it until the stuck call returns",
                            self.host.origin(impl.plugin_name), timeout)
            elif box and box[0][0]:
                results[impl.plugin_name] = box[0][1]
        ordered = (results.get(impl.plugin_name) for impl in impls)
        return "\n\n".join(r for r in ordered if isinstance(r, str) and r.strip())

    def queue_prefetch_all(self, query: str) -> None:
        """Warm the next turn, on the background worker after any queued sync."""
        self._submit("queue_prefetch", lambda: self._each("hermes_memory_queue_prefetch", query=query))

    def sync_all(self, user_content: str, assistant_content: str) -> None:
        """Persist a finished turn, on the background worker, in turn order."""
        self._submit("sync_turn", lambda: self._each(
            "hermes_memory_sync_turn", user_content=user_content, assistant_content=assistant_content))

    def _submit(self, what: str, task: Callable[[], Any]) -> None:
        if not self._worker.submit(task):
            log.warning("memory %s dropped: the memory manager is shut down", what)

    def flush_pending(self, timeout: float = 5.0) -> bool:
        """Wait until queued sync/prefetch work has run; ``False`` on timeout."""
        return self._worker.wait_idle(timeout)

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
        self._each("hermes_memory_on_session_end", session_id=session_id, messages=messages)

    def shutdown(self) -> None:
        """Drain queued work (bounded), then shut providers down in reverse order. Idempotent."""
        if self._shut_down:
            return
        self._shut_down = True
        dropped = self._worker.close(self.drain_timeout)
        still_running = self._worker.running()
        self.shutdown_state = {"status": "timed_out" if dropped or still_running else "drained", "dropped": dropped}
        if dropped or still_running:
            log.warning("memory shutdown: background work did not finish within %.1fs; %d queued task(s) dropped",
                        self.drain_timeout, dropped)
        for impl in reversed(self.host.hookimpls("hermes_memory_shutdown")):
            self.host.invoke(impl, "hermes_memory_shutdown", {})

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

"""The MemoryManager: the built-in provider plus at most one external one (seed 1.6).

Every provider hook fans out through the host, one isolated call per provider, so a
provider that raises never stops another provider or the turn. The built-in provider
always runs inline. Every other plugin gets one ordered worker thread, and everything
that must follow that plugin's turns runs there, in call order:

* ``sync_turn`` / ``queue_prefetch`` (fire and forget), so turn N lands before N+1;
* the session boundary: ``on_session_end`` (not waited for), then ``initialize`` of the
  next session and ``system_prompt_block`` (waited for up to
  :attr:`MemoryManager.hook_timeout`), so a turn always reaches the provider inside the
  session it belongs to (the reference's ``commit_session_boundary_async``);
* ``shutdown``, last.

External ``prefetch`` runs on its own thread, bounded by ``memory.prefetch_timeout``.
``shutdown`` waits :attr:`MemoryManager.drain_timeout` for queued turns, then
``hook_timeout`` for the boundary calls; what never ran is logged per provider and
counted in ``shutdown_state``. A provider still busy at the bound is never shut down
concurrently with its running call: its ``shutdown`` is skipped and reported.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from hermes_core.config.raw import BUILTIN_PROVIDER as BUILTIN
from hermes_core.memory.base import MemoryProvider

if TYPE_CHECKING:
    from hermes_core.plugin.host import PluginHost

log = logging.getLogger("hermes_core.memory")

BUILTIN_PLUGIN = f"memory:{BUILTIN}"
SYNC_HOOK = "hermes_memory_sync_turn"
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


_Task = tuple[str, Callable[[], object]]  # (kind: the hook's short name, the call)
BACKGROUND = frozenset({"sync_turn", "queue_prefetch"})  # what the drain_timeout part of a drain waits for


class _OrderedWorker:
    """One daemon thread that runs submitted tasks one at a time, in submission order.

    A daemon thread, not an executor: a provider stuck in a network call must not keep
    the interpreter from exiting.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._tasks: deque[_Task] = deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._running: str | None = None  # the kind of the task running now
        self._closed = False

    def submit(self, task: Callable[[], object], kind: str) -> bool:
        with self._cond:
            if self._closed:
                return False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._tasks.append((kind, task))
            self._cond.notify_all()
            return True

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._tasks or self._closed)
                if not self._tasks:
                    return
                self._running, task = self._tasks.popleft()
            try:
                task()
            except Exception:
                log.exception("memory background task failed")
            with self._cond:
                self._running = None
                self._cond.notify_all()

    def _kinds(self) -> list[str]:
        head = [self._running] if self._running is not None else []
        return head + [kind for kind, _ in self._tasks]

    def wait(self, until: Callable[[list[str]], bool], timeout: float) -> bool:
        """Wait until ``until(kinds of the running and queued tasks)``; ``False`` on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: until(self._kinds()), max(0.0, timeout))

    def close(self) -> tuple[Counter[str], str | None]:
        """Accept and start no more work: the kinds of the queued tasks dropped, and the kind still running."""
        with self._cond:
            self._closed = True
            dropped = Counter(kind for kind, _ in self._tasks)
            self._tasks.clear()
            self._cond.notify_all()
            return dropped, self._running


class _Call:
    """One queued hook call: its plugin, outcome (``host.invoke``'s pair) and completion."""

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        self.done = threading.Event()
        self.outcome: tuple[bool, Any] = (False, None)

    def run(self, call: Callable[[], tuple[bool, Any]]) -> None:
        try:
            self.outcome = call()
        finally:
            self.done.set()


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
        self._running: dict[tuple[str, str], threading.Thread] = {}  # (plugin, hook) -> its bounded prefetch
        self._workers: dict[str, _OrderedWorker] = {}  # plugin -> its ordered worker
        self._late: dict[str, threading.Event] = {}  # plugin -> completion of a call we stopped waiting for
        self._turn = 0
        self._last_memory_turn = 0
        self._shut_down = False
        #: After shutdown: ``{"status": "drained" | "timed_out", "dropped": tasks never run,
        #: "unsynced": {provider: turns it never received in full}, "shutdown_skipped": [provider]}``.
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

    def _bounded(self, hook: str, kwargs: dict[str, Any], timeout: float) -> list[Any]:
        """Results of ``hook``'s implementations that returned in time, in call order.

        The built-in provider runs inline. Every other implementation runs on its own
        daemon thread; all of them share one deadline of ``timeout`` seconds. One still
        stuck in its previous call of this hook is skipped rather than waited for again.
        """
        impls = self.host.hookimpls(hook)
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
                name=f"hermes-{short}-{name}",
                daemon=True,
            )
            self._running[(name, hook)] = thread
            thread.start()
            pending.append((name, thread, box))
        deadline = time.monotonic() + timeout
        for name, thread, box in pending:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                self._log_timeout(name, short, timeout)
            elif box and box[0][0]:
                results[name] = box[0][1]
        return [results[impl.plugin_name] for impl in impls if impl.plugin_name in results]

    def _log_timeout(self, plugin: str, short: str, timeout: float) -> None:
        log.warning(
            "memory provider %s: %s timed out after %.1fs; carrying on without it",
            self.host.origin(plugin),
            short,
            timeout,
        )

    def _worker(self, plugin: str) -> _OrderedWorker:
        worker = self._workers.get(plugin)
        if worker is None:
            worker = self._workers[plugin] = _OrderedWorker(f"hermes-memory-{plugin}")
        return worker

    def _submit(
        self, hook: str, kwargs: dict[str, Any], *, inline_builtin: bool = False, skip_late: bool = False
    ) -> list[_Call]:
        """Queue ``hook`` on each implementing plugin's worker, after that plugin's earlier work.

        ``inline_builtin`` runs the built-in provider here instead. ``skip_late`` skips a
        plugin still busy with a call we stopped waiting for (a read need not pile up).
        """
        short = hook.removeprefix("hermes_memory_")
        if self._shut_down:
            log.warning("memory %s dropped: the memory manager is shut down", short)
            return []
        calls = []
        for impl in self.host.hookimpls(hook):
            name = impl.plugin_name
            call = _Call(name)
            run = partial(call.run, partial(self.host.invoke, impl, hook, kwargs))
            late = self._late.get(name)
            if inline_builtin and name == BUILTIN_PLUGIN:
                run()
            elif skip_late and late is not None and not late.is_set():
                log.info(
                    "%s: still busy with a call that timed out; skipping %s this time", self.host.origin(name), short
                )
                continue
            elif not self._worker(name).submit(run, short):
                log.warning("memory %s for %s dropped: the memory manager is shut down", short, self.host.origin(name))
                continue
            calls.append(call)
        return calls

    def _ordered(self, hook: str, kwargs: dict[str, Any], *, skip_late: bool = False) -> list[Any]:
        """Run ``hook`` in order on each plugin's worker; the results that came within ``hook_timeout``."""
        calls = self._submit(hook, kwargs, inline_builtin=True, skip_late=skip_late)
        deadline = time.monotonic() + self.hook_timeout
        results = []
        for call in calls:
            if not call.done.wait(max(0.0, deadline - time.monotonic())):
                self._log_timeout(call.plugin, hook.removeprefix("hermes_memory_"), self.hook_timeout)
                self._late[call.plugin] = call.done
            elif call.outcome[0]:
                results.append(call.outcome[1])
        return results

    def initialize_all(self, session_id: str) -> None:
        """Start a session: providers load state (the built-in freezes its snapshot).

        An external provider initializes after its queued turns and session end, so they
        land in the session they belong to; waited for up to ``hook_timeout``.
        """
        self._turn = self._last_memory_turn = 0
        self._ordered("hermes_memory_initialize", {"session_id": session_id})

    def system_prompt_blocks(self) -> list[str]:
        """Each provider's block, read after its ``initialize``; waited for up to ``hook_timeout``."""
        blocks = self._ordered("hermes_memory_system_prompt_block", {}, skip_late=True)
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

    def flush_pending(self, timeout: float = 5.0) -> bool:
        """Wait until every provider's queued work has run; ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        idle = [w.wait(lambda kinds: not kinds, deadline - time.monotonic()) for w in list(self._workers.values())]
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
                self.host.invoke(
                    impl, "hermes_memory_on_memory_write", {"action": action, "target": target, "content": content}
                )

    def on_delegation(self, task: str, result: str) -> None:
        self._each("hermes_memory_on_delegation", task=task, result=result)

    def on_session_end(self, session_id: str, messages: list[Message]) -> None:
        """End a session without waiting: queued after each provider's pending turns."""
        self._submit(
            "hermes_memory_on_session_end", {"session_id": session_id, "messages": messages}, inline_builtin=True
        )

    def shutdown(self) -> None:
        """Queue each external ``shutdown`` after its pending work, drain (bounded), then the built-in. Idempotent."""
        if self._shut_down:
            return
        builtin = []
        for impl in reversed(self.host.hookimpls("hermes_memory_shutdown")):
            if impl.plugin_name == BUILTIN_PLUGIN:
                builtin.append(impl)
            else:
                self._worker(impl.plugin_name).submit(
                    partial(self.host.invoke, impl, "hermes_memory_shutdown", {}), "shutdown"
                )
        self._shut_down = True
        self.shutdown_state = self._drain()
        for impl in builtin:
            self.host.invoke(impl, "hermes_memory_shutdown", {})

    def _drain(self) -> dict[str, Any]:
        """Queued turns get ``drain_timeout``, then the boundary calls ``hook_timeout``; report the rest."""
        workers = list(self._workers.items())
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
        for plugin, worker in workers:
            kinds, running = worker.close()
            dropped += sum(kinds.values())
            if running is None and not kinds:
                continue
            stuck = True
            name, origin = plugin.removeprefix("memory:"), self.host.origin(plugin)
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
                self._log_timeout(plugin, running, self.hook_timeout)
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
                    self._warn_once(
                        f"memory provider '{provider.name}': tool '{name}' is already offered by "
                        f"'{owners[name].name}'; refused"
                    )
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

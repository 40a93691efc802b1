"""The plugin host: a façade over pluggy that discovers, selects, isolates and traces.

Core code never calls ``pm.hook`` directly; it calls the typed methods here. Build a host
with :func:`build_host`. Selection policy lives here, outside pluggy: exactly one context
engine (``context.engine``), the built-in memory provider plus at most one external one
(``memory.provider``).
"""

from __future__ import annotations

import difflib
import json
import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import pluggy

from hermes_core.config.migrations import apply_config_migrations
from hermes_core.config.models import (
    ConfigError,
    HermesConfig,
    validate_section,
    with_overrides,
)
from hermes_core.config.paths import hermes_home
from hermes_core.config.raw import BUILTIN_PROVIDER, env_flag, provider_names
from hermes_core.engine.base import ContextEngine
from hermes_core.engine.summarizer import Summarizer
from hermes_core.memory.base import MemoryProvider
from hermes_core.memory.manager import MemoryManager
from hermes_core.plugin.bridge import EngineHooks, ProviderHooks
from hermes_core.plugin.context import PluginContext
from hermes_core.plugin.discovery import Candidate, PluginLoadError, discover, iter_entry_points, load
from hermes_core.plugin.registration import RegistrationError, new_plugin_manager, register_checked
from hermes_core.records import (
    CompactionReport,
    PluginInfo,
    PluginKind,
    PromptContext,
    PromptSection,
)
from hermes_core.text.tokens import estimate_messages_tokens

log = logging.getLogger("hermes_core")
trace_log = logging.getLogger("hermes_core.trace")

DEFAULT_ENGINE = "compressor"

Message = dict[str, Any]


class SelectionError(ConfigError):
    """The config names an engine or provider that cannot be used."""


class PluginHost:
    """One configured set of plugins: the engine, the memory providers, general plugins."""

    def __init__(
        self,
        config: HermesConfig,
        home: Path,
        *,
        load_entrypoints: bool = True,
        plugins: Iterable[object] = (),
        engines: dict[str, type[ContextEngine]] | None = None,
        providers: dict[str, type[MemoryProvider]] | None = None,
        strict: bool | None = None,
        migrate_raw: dict[str, Any] | None = None,
        overrides: dict[str, Any] | None = None,
        config_source: str = "config",
    ) -> None:
        self.config_source = config_source  # named in errors about plugin sections
        self.overrides = dict(overrides or {})
        self.config = with_overrides(config, self.overrides)
        self.home = home
        self.strict = env_flag("HERMES_STRICT_PLUGINS") if strict is None else strict
        self.disabled = config.disabled_plugins()
        self.warnings: list[str] = []
        self.pm = new_plugin_manager()
        if env_flag("HERMES_TRACE_PLUGINS"):
            self._enable_tracing()
        self._infos: dict[tuple[str, str], PluginInfo] = {}
        self._origin: dict[str, str] = {}  # pluggy plugin name -> "name (distribution version)"
        self._engine_classes: dict[str, type[ContextEngine] | Candidate] = dict(engines or {})
        self._provider_classes: dict[str, type[MemoryProvider] | Candidate] = dict(providers or {})
        self._summarizer: Summarizer | None = None
        self._summarizers: dict[str, Summarizer] | None = None
        self.engine: ContextEngine
        self.memory = MemoryManager(self)

        if load_entrypoints:
            candidates, clash = discover(home)
            self.warnings.extend(clash)
        else:  # third parties off; hermes-core's own built-ins always load
            candidates = [cand for cand in iter_entry_points() if cand.builtin]
        for cand in candidates:
            if cand.kind == "plugin":
                self._register_candidate_plugin(cand)
            elif cand.kind == "context_engine":
                self._engine_classes.setdefault(cand.name, cand)
                self._set_info(cand, "disabled" if cand.blocked_by(self.disabled) else "available")
            else:
                self._provider_classes.setdefault(cand.name, cand)
                self._set_info(cand, "disabled" if cand.blocked_by(self.disabled) else "available")
        for index, plugin in enumerate(plugins):
            self.register_plugin(plugin, name=f"inline-{index}-{type(plugin).__name__}")
        if migrate_raw is not None:
            self._run_migrations(migrate_raw)
        self._collect_inprocess_registrations()
        self._select_engine()
        self._select_providers()

    # -- registration ---------------------------------------------------------------

    def register_plugin(self, plugin: object, name: str | None = None, origin: str = "in-process") -> str:
        """Register a general plugin (module or object with ``@hookimpl`` functions).

        Refused with :class:`PluginLoadError`: a hook name without a spec (a misspelling
        fails loudly instead of never firing), a hookimpl with arguments the spec lacks,
        an object already registered.
        """
        try:
            registered = register_checked(self.pm, plugin, name)
        except RegistrationError as exc:
            raise PluginLoadError(
                Candidate(name or "?", "plugin", origin, "", "in-process", name or ""), str(exc)
            ) from None
        self._origin[registered] = origin
        return registered

    def _register_candidate_plugin(self, cand: Candidate) -> None:
        if cand.blocked_by(self.disabled):
            self._set_info(cand, "disabled")
            return
        try:
            module = load(cand)
            self.register_plugin(module, name=f"plugin:{cand.name}", origin=cand.where)
        except PluginLoadError as exc:
            self._load_failed(cand, exc)
            return
        self._set_info(cand, "active")

    def _run_migrations(self, raw: dict[str, Any]) -> None:
        migrations = [m for _p, result in self.call_each("hermes_config_migrations") for m in result or ()]
        if migrations and apply_config_migrations(self.home, raw, migrations):
            from hermes_core.config.models import load_config

            self.config = with_overrides(load_config(None, home=self.home).config, self.overrides)
            self.disabled = self.config.disabled_plugins()

    def _collect_inprocess_registrations(self) -> None:
        for hook, table, kind, base in (
            ("hermes_register_context_engines", self._engine_classes, "context_engine", ContextEngine),
            ("hermes_register_memory_providers", self._provider_classes, "memory_provider", MemoryProvider),
        ):
            for plugin_name, result in self.call_each(hook):
                for name, cls in result or ():
                    if not (isinstance(cls, type) and issubclass(cls, base)):
                        self._warn(
                            f"{self.origin(plugin_name)} registered {kind} '{name}' that is not a {base.__name__}"
                        )
                    elif name in table:
                        self._warn(
                            f"{kind} '{name}' from {self.origin(plugin_name)} clashes with an existing one; ignored"
                        )
                    else:
                        table[name] = cls  # type: ignore[assignment]
                        self._infos[(kind, name)] = PluginInfo(
                            name, cast(PluginKind, kind), self.origin(plugin_name), "", source="in-process"
                        )

    # -- selection ------------------------------------------------------------------

    def _select_engine(self) -> None:
        wanted = self.config.context.engine or DEFAULT_ENGINE
        try:
            engine = self._instantiate("context_engine", wanted, self._engine_classes)
        except SelectionError:
            raise
        except PluginLoadError as exc:
            if self.strict or wanted == DEFAULT_ENGINE or DEFAULT_ENGINE not in self._engine_classes:
                raise
            self._warn(f"{exc}; falling back to the '{DEFAULT_ENGINE}' engine")
            engine = self._instantiate("context_engine", DEFAULT_ENGINE, self._engine_classes)
        self.engine = engine  # type: ignore[assignment]
        self.pm.register(EngineHooks(self.engine), name=f"engine:{self.engine.name}")
        self._origin[f"engine:{self.engine.name}"] = self._info_origin("context_engine", self.engine.name)

    def _select_providers(self) -> None:
        mem = self.config.memory
        for name in provider_names(mem.memory_enabled or mem.user_profile_enabled, self.config.external_providers()):
            if name == BUILTIN_PROVIDER and name not in self._provider_classes:
                self._warn("the built-in memory provider is not installed; memory is off")
                continue
            try:
                provider = self._instantiate("memory_provider", name, self._provider_classes)
            except (PluginLoadError, SelectionError) as exc:
                if name == BUILTIN_PROVIDER or not self.strict:
                    self._warn(str(exc))
                    continue
                raise
            try:
                ok, reason = provider.is_available()  # type: ignore[union-attr]
            except Exception as exc:
                ok, reason = False, f"is_available() raised {type(exc).__name__}: {exc}"
            if not ok:
                self._warn(f"memory provider '{name}' skipped: {reason}")
                self._infos[("memory_provider", name)].status = "available"
                self._infos[("memory_provider", name)].error = f"unavailable: {reason}"
                continue
            if self.memory.add_provider(provider):  # type: ignore[arg-type]
                plugin_name = f"memory:{name}"
                self.pm.register(ProviderHooks(provider), name=plugin_name)  # type: ignore[arg-type]
                self._origin[plugin_name] = self._info_origin("memory_provider", name)
            else:
                self._infos[("memory_provider", name)].status = "available"

    def _instantiate(self, kind: str, name: str, table: dict[str, Any]) -> ContextEngine | MemoryProvider:
        what = "context engine" if kind == "context_engine" else "memory provider"
        entry = table.get(name)
        if entry is None:
            raise SelectionError(self._unknown_message(what, name, table))
        if isinstance(entry, Candidate):
            if entry.blocked_by(self.disabled):
                raise SelectionError(f"{what} '{name}' is selected in config but disabled by plugins.disabled")
            try:
                cls = load(entry)
            except PluginLoadError as exc:
                self._load_failed(entry, exc)
                raise
            table[name] = cls
        else:
            cls = entry
        key = (kind, name)
        info = self._infos.setdefault(key, PluginInfo(name, kind, "in-process", "", source="in-process"))  # type: ignore[arg-type]
        try:
            settings = self._settings_for(name, cls)
            ctx = PluginContext(
                home=self.home,
                config=self.config,
                settings=settings,
                summarizer=self.summarizer,
                fallback_summarizer=self.fallback_summarizer,
                pre_compress=self.memory.on_pre_compress,
            )
            obj = cls(ctx)
        except ConfigError:
            raise
        except Exception as exc:
            info.status, info.error = "failed", f"{type(exc).__name__}: {exc}"
            err = PluginLoadError(
                Candidate(name, kind, info.distribution, info.version, info.source, info.target),  # type: ignore[arg-type]
                f"failed to start: {type(exc).__name__}: {exc}",
            )
            if self.strict:
                raise err from exc
            raise err from None
        obj = cast(ContextEngine | MemoryProvider, obj)
        if obj.name != name:
            self._warn(f"{what} registered as '{name}' reports its name as '{obj.name}'")
        info.status, info.error = "active", ""
        return obj

    def _settings_for(self, name: str, cls: type) -> Any:
        raw = self.config.plugins.section(name)
        model = getattr(cls, "config_model", None)
        if model is None:
            return raw
        return validate_section(model, raw, source=self.config_source, prefix=f"plugins.{name}")

    def _unknown_message(self, what: str, name: str, table: dict[str, Any]) -> str:
        choices = []
        for key, entry in sorted(table.items()):
            dist = entry.where if isinstance(entry, Candidate) else "in-process"
            choices.append(f"{key} ({dist})")
        listing = ", ".join(choices) if choices else "none installed"
        close = difflib.get_close_matches(name, list(table), n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        return f"unknown {what} '{name}'.{hint} Available: {listing}"

    # -- bookkeeping ----------------------------------------------------------------

    def _set_info(self, cand: Candidate, status: str, error: str = "") -> None:
        self._infos[(cand.kind, cand.name)] = cand.info(status, error)

    def _info_origin(self, kind: str, name: str) -> str:
        info = self._infos.get((kind, name))
        return f"{name} ({info.distribution} {info.version})".strip() if info else name

    def _load_failed(self, cand: Candidate, exc: PluginLoadError) -> None:
        self._set_info(cand, "failed", exc.reason)
        log.warning("%s", exc, exc_info=log.isEnabledFor(logging.DEBUG))
        if self.strict:
            raise exc

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        log.warning("%s", message)

    def origin(self, plugin_name: str) -> str:
        """A human name for a registered plugin: its name and distribution."""
        return self._origin.get(plugin_name, plugin_name)

    def plugin_infos(self) -> list[PluginInfo]:
        """Every known plugin with its status, sorted by kind and name."""
        return sorted(self._infos.values(), key=lambda i: (i.kind, i.name))

    @property
    def summarizer(self) -> Summarizer:
        """The summary backend selected by ``auxiliary.summarizer`` (resolved once)."""
        if self._summarizer is None:
            self._summarizer = self._resolve_summarizer()
        return self._summarizer

    @property
    def fallback_summarizer(self) -> Summarizer | None:
        """The offline ``deterministic`` summarizer, if a plugin registered one."""
        return self._summarizer_table().get("deterministic")

    def _summarizer_table(self) -> dict[str, Summarizer]:
        if self._summarizers is None:
            table: dict[str, Summarizer] = {}
            for plugin_name, result in self.call_each("hermes_register_summarizers", config=self.config):
                for name, summarizer in result or ():
                    if name in table:
                        self._warn(f"summarizer '{name}' from {self.origin(plugin_name)} clashes; ignored")
                    else:
                        table[name] = summarizer
            self._summarizers = table
        return self._summarizers

    def _resolve_summarizer(self) -> Summarizer:
        aux = self.config.auxiliary
        table = self._summarizer_table()
        wanted = aux.summarizer
        if wanted == "auto":
            wanted = "llm" if aux.base_url and aux.model else "deterministic"
        if wanted not in table:
            raise SelectionError(f"unknown summarizer '{wanted}'. Available: {', '.join(sorted(table))}")
        return table[wanted]  # type: ignore[no-any-return]

    # -- isolated calls ---------------------------------------------------------------

    def call_each(self, hook: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call every implementation of ``hook`` in registration order, each isolated.

        Returns ``(plugin name, result)`` for each implementation that returned without
        raising. A raising implementation is logged with its plugin's name and
        distribution; the others still run.
        """
        caller = getattr(self.pm.hook, hook)
        results = []
        for impl in caller.get_hookimpls():
            ok, result = self.invoke(impl, hook, kwargs)
            if ok:
                results.append((impl.plugin_name, result))
        return results

    def invoke(self, impl: Any, hook: str, kwargs: dict[str, Any]) -> tuple[bool, Any]:
        """Call one hook implementation with the arguments it accepts; never raises."""
        args = [kwargs[a] for a in impl.argnames]
        started = time.perf_counter()
        try:
            result = impl.function(*args)
        except Exception as exc:
            log.warning(
                "%s failed in %s: %s: %s",
                self.origin(impl.plugin_name),
                hook,
                type(exc).__name__,
                exc,
                exc_info=log.isEnabledFor(logging.DEBUG),
            )
            return False, None
        if self._tracing:
            trace_log.info(
                "%s <- %s(%s) = %r [%.3f ms]",
                impl.plugin_name,
                hook,
                _short(kwargs),
                _short(result),
                (time.perf_counter() - started) * 1000,
            )
        return True, result

    def hookimpls(self, hook: str) -> list[Any]:
        """The implementations of ``hook`` in registration order."""
        return list(getattr(self.pm.hook, hook).get_hookimpls())

    # -- tracing ----------------------------------------------------------------------

    _tracing = False

    def _enable_tracing(self) -> None:
        self._tracing = True
        local = threading.local()

        def before(hook_name: str, impls: Sequence[pluggy.HookImpl], kwargs: Mapping[str, Any]) -> None:
            local.__dict__.setdefault("stack", []).append(time.perf_counter())
            trace_log.info("-> %s(%s) impls=%s", hook_name, _short(kwargs), [i.plugin_name for i in impls])

        def after(
            outcome: pluggy.Result[Any], hook_name: str, impls: Sequence[pluggy.HookImpl], kwargs: Mapping[str, Any]
        ) -> None:
            started = local.stack.pop() if getattr(local, "stack", None) else time.perf_counter()
            shown = repr(outcome.exception) if outcome.exception else _short(outcome.get_result())
            trace_log.info("<- %s = %s [%.3f ms]", hook_name, shown, (time.perf_counter() - started) * 1000)

        self.pm.add_hookcall_monitoring(before, after)
        if not logging.getLogger().handlers and not trace_log.handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("[trace] %(message)s"))
            trace_log.addHandler(handler)
        trace_log.setLevel(logging.INFO)

    # -- the engine, through its hooks ---------------------------------------------------

    def _engine_call(self, hook: str, default: Any, **kwargs: Any) -> Any:
        try:
            result = getattr(self.pm.hook, hook)(**kwargs)
        except Exception as exc:
            log.warning(
                "context engine %s failed in %s: %s: %s",
                self.origin(f"engine:{self.engine.name}"),
                hook,
                type(exc).__name__,
                exc,
                exc_info=log.isEnabledFor(logging.DEBUG),
            )
            return default
        return default if result is None else result

    def update_from_response(self, usage: dict[str, Any] | None) -> None:
        self._engine_call("hermes_engine_update_from_response", None, usage=dict(usage or {}))

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        return bool(self._engine_call("hermes_engine_should_compress", False, prompt_tokens=prompt_tokens))

    def set_request_overhead(self, tokens: int) -> None:
        """Tell the engine what every request carries besides the messages (tool schemas)."""
        self.engine.request_overhead_tokens = max(0, int(tokens))

    def should_compress_preflight(self, messages: list[Message]) -> bool:
        return bool(self._engine_call("hermes_engine_should_compress_preflight", False, messages=messages))

    def compress(
        self,
        messages: list[Message],
        *,
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
        session_id: str = "",
        keep: Message | None = None,
    ) -> list[Message]:
        """Compact ``messages`` with the active engine and report it to observers.

        The engine gets its own copy of the list and of each message. If it raises, or returns something that
        would lose the conversation (not a list of messages, an empty list, a list without
        ``keep`` verbatim), the messages come back unchanged and the failure is logged with
        the engine's name. ``keep`` is the current real user message; the session passes
        it, since after a compaction the last user-role message may be the engine's own
        summary, which the engine may rewrite. It defaults to the last user message.
        """
        started = time.perf_counter()
        before = estimate_messages_tokens(messages)
        given = [dict(m) for m in messages]  # an engine that edits its input cannot touch the caller's
        result = self._engine_call(
            "hermes_engine_compress",
            given,
            messages=given,
            current_tokens=current_tokens,
            focus_topic=focus_topic,
            force=force,
        )
        if result is given or result == messages:
            return messages
        problem = unusable_compaction(messages, result, keep)
        if problem:
            log.warning(
                "context engine %s returned %s; the messages are kept as they were",
                self.origin(f"engine:{self.engine.name}"),
                problem,
            )
            return messages
        report = CompactionReport(
            engine=self.engine.name,
            session_id=session_id,
            tokens_before=before,
            tokens_after=estimate_messages_tokens(result),
            messages_before=len(messages),
            messages_after=len(result),
            summary_source=getattr(self.engine, "last_summary_source", "none"),
            duration_s=time.perf_counter() - started,
            forced=force,
            focus_topic=focus_topic,
            reason=getattr(self.engine, "last_compaction_note", ""),
        )
        self.call_each("hermes_compaction_finished", report=report)
        self.last_compaction = report
        return list(result)

    last_compaction: CompactionReport | None = None

    def engine_status(self) -> dict[str, Any]:
        return dict(self._engine_call("hermes_engine_get_status", {}))

    def on_session_start(self, session_id: str) -> None:
        self._engine_call("hermes_engine_on_session_start", None, session_id=session_id)

    def on_session_end(self, session_id: str, messages: list[Message]) -> None:
        self._engine_call("hermes_engine_on_session_end", None, session_id=session_id, messages=messages)

    def on_session_reset(self) -> None:
        self._engine_call("hermes_engine_on_session_reset", None)

    def update_model(self, model: str, context_length: int) -> None:
        self._engine_call("hermes_engine_update_model", None, model=model, context_length=context_length)

    # -- tools ----------------------------------------------------------------------------

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every tool the model may call: memory providers' first, then the engine's."""
        schemas = list(self.memory.tool_schemas())
        taken = {s.get("name") for s in schemas}
        for _plugin, result in self.call_each("hermes_engine_get_tool_schemas"):
            for schema in result or ():
                name = schema.get("name") if isinstance(schema, dict) else None
                if not name or name in taken:
                    self._warn(f"engine tool {name!r} is missing a name or shadows another tool; ignored")
                    continue
                taken.add(name)
                schemas.append(schema)
        return schemas

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str:
        """Route a tool call to the memory providers or the engine; always a JSON string."""
        if self.memory.has_tool(name):
            return self.memory.handle_tool_call(name, args)
        engine_tools = {
            schema.get("name")
            for _plugin, result in self.call_each("hermes_engine_get_tool_schemas")
            for schema in result or ()
            if isinstance(schema, dict)
        }
        if name in engine_tools:
            try:
                result = self.pm.hook.hermes_engine_handle_tool_call(name=name, args=args)
            except Exception as exc:
                log.warning("engine tool %s failed: %s: %s", name, type(exc).__name__, exc)
                return json.dumps({"error": f"Tool '{name}' failed: {type(exc).__name__}: {exc}"})
            if result is not None:
                return str(result)
        return json.dumps({"error": f"Unknown tool '{name}'"})

    # -- prompt sections -----------------------------------------------------------------

    def prompt_sections(self, ctx: PromptContext) -> list[PromptSection]:
        """Sections from every plugin, isolated, sorted by order (stable)."""
        sections: list[PromptSection] = []
        for plugin_name, result in self.call_each("hermes_system_prompt_sections", ctx=ctx):
            if result is None:
                continue
            for section in [result] if isinstance(result, PromptSection) else result:
                if isinstance(section, PromptSection):
                    sections.append(section)
                else:
                    self._warn(f"{self.origin(plugin_name)} returned a prompt section of type {type(section).__name__}")
        sections.sort(key=lambda s: s.order)
        return sections

    # -- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        """Drain memory work and shut providers down; safe to call twice."""
        self.memory.shutdown()


def unusable_compaction(messages: list[Message], result: Any, keep: Message | None = None) -> str:
    """Why an engine's result must not replace ``messages``, or ``""`` if it may."""
    if not isinstance(result, list) or not all(isinstance(m, dict) for m in result):
        return f"a {type(result).__name__} instead of a list of messages"
    if messages and not result:
        return "an empty list"
    if keep is None:
        keep = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    if keep is not None and not any(m == keep for m in result):
        return "a list without the current user message"
    return ""


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def build_host(
    config: HermesConfig | None = None,
    *,
    home: Path | None = None,
    config_path: Path | None = None,
    load_entrypoints: bool = True,
    plugins: Iterable[object] = (),
    engines: dict[str, type[ContextEngine]] | None = None,
    providers: dict[str, type[MemoryProvider]] | None = None,
    strict: bool | None = None,
    overrides: dict[str, Any] | None = None,
) -> PluginHost:
    """Build a host from ``config``, or from config.yaml (``config_path``, else in ``home``).

    When config comes from ``$HERMES_HOME/config.yaml``, plugins' one-time migrations run
    after general plugins load and before the engine and providers are selected.
    ``overrides`` are dotted keys applied on top (``{"context.engine": "lcm"}``), also
    after a migration re-read the file.
    """
    from hermes_core.config.models import load_config

    home = home or hermes_home()
    raw = None
    source = "config"
    if config is None:
        loaded = load_config(config_path, home=home)
        for warning in loaded.warnings:
            log.warning("%s", warning)
        config = loaded.config
        raw = loaded.raw if config_path is None else None
        source = str(loaded.path)
    return PluginHost(
        config,
        home,
        load_entrypoints=load_entrypoints,
        plugins=plugins,
        engines=engines,
        providers=providers,
        strict=strict,
        migrate_raw=raw,
        overrides=overrides,
        config_source=source,
    )

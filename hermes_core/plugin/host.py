"""The plugin host: the composition root that wires discovery, selection, bridges and guards.

Build one with :func:`build_host`. The parts it composes, each in its own module:

* :mod:`~hermes_core.plugin.discovery` finds candidates (the :data:`DEFAULT_PLUGINS`
  first, then entry points and drop-ins) and imports one defensively;
* :mod:`~hermes_core.plugin.registration` registers a general plugin and isolates each of
  its hookimpls in a :class:`~hermes_core.guard.Guard`;
* :mod:`~hermes_core.plugin.selection` is the one policy for the engine and providers;
* :mod:`~hermes_core.plugin.bridge` turns the engine and each provider into pluggy plugins;
* :class:`~hermes_core.memory.manager.MemoryManager` drives the providers through the hook
  relay; :mod:`~hermes_core.engine.runtime` runs and judges ``compress``.

Core code never calls a hook implementation itself: every call goes through ``pm.hook``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from hermes_core.config.migrations import MigrationReport, apply_config_migrations
from hermes_core.config.paths import hermes_home
from hermes_core.config.plain import apply_overrides, plain_config
from hermes_core.config.raw import BUILTIN_PROVIDER, ConfigError, env_flag
from hermes_core.engine.base import ContextEngine
from hermes_core.engine.runtime import run_compress
from hermes_core.engine.summarizer import Summarizer
from hermes_core.guard import Bounds, Guard
from hermes_core.guard.pool import configure_shared_pool
from hermes_core.memory.base import MemoryProvider
from hermes_core.memory.manager import MemoryManager
from hermes_core.plugin import selection as policy
from hermes_core.plugin.bridge import Bridge, EngineBridge, ProviderBridge
from hermes_core.plugin.context import PluginContext
from hermes_core.plugin.discovery import Candidate, PluginLoadError, default_candidates, discover, load
from hermes_core.plugin.registration import RegistrationError, isolate, new_plugin_manager, register_checked
from hermes_core.plugin.selection import DEFAULT_ENGINE, SelectionError
from hermes_core.plugin.summarizers import SummarizerTable
from hermes_core.plugin.tracing import enable_tracing
from hermes_core.records import CompactionResult, PluginInfo, PluginKind, PromptContext, PromptSection
from hermes_core.text.detectors import HostScanner

if TYPE_CHECKING:  # the models (and pydantic) load only when a config needs validating
    from hermes_core.config.models import HermesConfig

log = logging.getLogger("hermes_core")

__all__ = ["DEFAULT_ENGINE", "PluginHost", "SelectionError", "build_host"]

Message = dict[str, Any]


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
        save_migrations: bool = True,
    ) -> None:
        self.config_source = config_source  # named in errors about plugin sections
        self.save_migrations = save_migrations
        self.migration_report: MigrationReport | None = None
        self.overrides = dict(overrides or {})
        self.config = apply_overrides(config, self.overrides)
        self.home = home
        self.strict = env_flag("HERMES_STRICT_PLUGINS") if strict is None else strict
        self.disabled = self.config.disabled_plugins()
        self.warnings: list[str] = []
        self.pm = new_plugin_manager()
        if env_flag("HERMES_TRACE_PLUGINS"):
            enable_tracing(self.pm)
        self.bounds = self._bounds()
        configure_shared_pool(self.config.hooks.worker_pool_size)
        self._infos: dict[tuple[str, str], PluginInfo] = {}
        self._origin: dict[str, str] = {}  # pluggy plugin name -> "name (distribution version)"
        self._module_origin: dict[str, str] = {}  # a general plugin's module -> its origin
        self._engine_classes: dict[str, type[ContextEngine] | Candidate] = dict(engines or {})
        self._provider_classes: dict[str, type[MemoryProvider] | Candidate] = dict(providers or {})
        self._trusted: set[tuple[str, str]] = set()  # (kind, name) of hermes-core's own engine and provider
        self.summarizers = SummarizerTable(self.pm.hook, self.config, self._warn)
        self.engine: ContextEngine
        self._engine_bridge: Bridge
        self._focus: str | None = None  # the focus topic of the compaction running now

        if load_entrypoints:
            candidates, clash = discover(home)
            self.warnings.extend(clash)
        else:  # third parties off; hermes-core's own built-ins always load
            candidates = default_candidates()
        for cand in candidates:
            self._add_candidate(cand)
        for index, plugin in enumerate(plugins):
            self.register_plugin(plugin, name=f"inline-{index}-{type(plugin).__name__}")
        if migrate_raw is not None:
            self._run_migrations(migrate_raw)
        self.selection = policy.from_config(self.config)
        self.memory = MemoryManager(self.pm.hook, self.config, self.bounds, warn=self._warn)
        self._collect_inprocess_registrations()
        self._select_engine()
        self._select_providers()

    def _bounds(self) -> Bounds:
        return Bounds({"memory_prefetch": self.config.memory.prefetch_timeout, **self.config.hooks.timeouts})

    # -- registration ---------------------------------------------------------------

    def register_plugin(self, plugin: object, name: str | None = None, origin: str = "in-process") -> str:
        """Register a general plugin (module or object with ``@hookimpl`` functions).

        Refused with :class:`PluginLoadError`: a hook name without a spec (a misspelling
        fails loudly instead of never firing), a hookimpl with arguments the spec lacks,
        an object or a name already registered (the message names both plugins). Each
        hookimpl is isolated and bounded; hermes-core's own run inline.
        """
        try:
            registered = register_checked(self.pm, plugin, name, self.origin)
        except RegistrationError as exc:
            shown = (name or "?").removeprefix("plugin:")
            raise PluginLoadError(Candidate(shown, "plugin", origin, "", "in-process", name or ""), str(exc)) from None
        described = f"{registered.removeprefix('plugin:')} ({origin})" if origin != "in-process" else registered
        self._origin[registered] = described
        module = getattr(plugin, "__name__", None) or type(plugin).__module__
        self._module_origin.setdefault(module, described)
        isolate(self.pm, plugin, Guard(described, self.bounds, bounded=not origin.startswith("hermes-core ")))
        return registered

    def _add_candidate(self, cand: Candidate) -> None:
        status = "disabled" if cand.blocked_by(self.disabled) else "available"
        if cand.kind == "context_engine":
            self._engine_classes.setdefault(cand.name, cand)
        elif cand.kind == "memory_provider":
            self._provider_classes.setdefault(cand.name, cand)
        elif status == "available":
            try:
                module = load(cand)
                self.register_plugin(module, name=f"plugin:{cand.name}", origin=cand.where)
            except PluginLoadError as exc:
                self._load_failed(cand, exc)
                return
            status = "active"
        self._set_info(cand, status)

    def _run_migrations(self, raw: dict[str, Any]) -> None:
        answers = self.pm.hook.hermes_config_migrations()
        migrations = [m for answer in reversed(answers) for m in answer or ()]
        if not migrations:
            return
        report = apply_config_migrations(self.home, raw, migrations, save=self.save_migrations)
        self.migration_report = report
        if not report or (not report.saved and not report.changes):
            return  # nothing to do, or nothing but explicit values kept: no need to say so on every command
        config_log = logging.getLogger("hermes_core.config")
        if report.saved:
            config_log.warning("config migration(s) %s saved to %s: %s", ", ".join(report.applied), report.path,
                               "; ".join(report.lines()))
        else:
            config_log.warning("config.yaml has pending migration(s) %s (%s), applied in memory only; "
                               "run `hermes-core config migrate` to save them", ", ".join(report.applied),
                               "; ".join(report.lines()))
        from hermes_core.config.models import HermesConfig, validate_section

        self.config = apply_overrides(validate_section(HermesConfig, raw, source=self.config_source), self.overrides)
        self.disabled = self.config.disabled_plugins()
        self.bounds = self._bounds()
        configure_shared_pool(self.config.hooks.worker_pool_size)
        self.summarizers = SummarizerTable(self.pm.hook, self.config, self._warn)

    def _collect_inprocess_registrations(self) -> None:
        for hook, table, kind, base in (
            (self.pm.hook.hermes_register_context_engines, self._engine_classes, "context_engine", ContextEngine),
            (self.pm.hook.hermes_register_memory_providers, self._provider_classes, "memory_provider", MemoryProvider),
        ):
            for answer in reversed(hook()):  # registration order: earlier plugins claim names first
                for name, cls in answer or ():
                    where = self._module_origin.get(getattr(cls, "__module__", ""), "in-process")
                    if not (isinstance(cls, type) and issubclass(cls, base)):
                        self._warn(f"{where} registered {kind} '{name}' that is not a {base.__name__}")
                    elif name in table:
                        self._warn(f"{kind} '{name}' from {where} clashes with an existing one; ignored")
                    else:
                        table[name] = cls  # type: ignore[assignment]
                        self._infos[(kind, name)] = PluginInfo(
                            name, cast(PluginKind, kind), where, "", source="in-process"
                        )

    # -- selection ------------------------------------------------------------------

    def _select_engine(self) -> None:
        wanted = self.selection.engine
        try:
            engine = self._instantiate("context_engine", wanted, self._engine_classes)
        except SelectionError:
            raise
        except PluginLoadError as exc:
            if self.strict or wanted == DEFAULT_ENGINE or DEFAULT_ENGINE not in self._engine_classes:
                raise
            self._warn(f"{exc}; falling back to the '{DEFAULT_ENGINE}' engine")
            wanted = DEFAULT_ENGINE
            engine = self._instantiate("context_engine", wanted, self._engine_classes)
        self.engine = cast(ContextEngine, engine)
        self._engine_bridge = self._register_bridge(EngineBridge, self.engine, "context_engine", wanted)

    def _select_providers(self) -> None:
        for name in self.selection.refused:
            self._warn(f"memory provider '{name}' {self.selection.refusal(name)}")
            info = self._infos.get(("memory_provider", name))
            if info is not None:
                info.status, info.error = "available", self.selection.refusal(name)
        for name in self.selection.providers:
            if name == BUILTIN_PROVIDER and name not in self._provider_classes:
                self._warn("the built-in memory provider is not installed; memory is off")
                continue
            try:
                provider = cast(MemoryProvider, self._instantiate("memory_provider", name, self._provider_classes))
            except (PluginLoadError, SelectionError) as exc:
                if name == BUILTIN_PROVIDER or not self.strict:
                    self._warn(str(exc))
                    continue
                raise
            bridge = self._register_bridge(ProviderBridge, provider, "memory_provider", name)
            ok, reason = self._availability(bridge)
            if not ok:
                self._warn(f"memory provider '{name}' skipped: {reason}")
                self._infos[("memory_provider", name)].status = "available"
                self._infos[("memory_provider", name)].error = f"unavailable: {reason}"
                self.pm.unregister(bridge)
                continue
            if not self.memory.attach(provider, bridge):
                self.pm.unregister(bridge)
                self._infos[("memory_provider", name)].status = "available"

    def _availability(self, bridge: Bridge) -> tuple[bool, str]:
        """``is_available`` of one provider, through pluggy (observers see it) but only that bridge."""
        plugins = (plugin for _, plugin in self.pm.list_name_plugin())
        others = [plugin for plugin in plugins if isinstance(plugin, Bridge) and plugin is not bridge]
        answers = self.pm.subset_hook_caller("hermes_memory_is_available", remove_plugins=others)()
        if not answers:
            return False, f"is_available() failed ({bridge.guard.last_problem or 'no answer'})"
        ok, reason = answers[0]
        return bool(ok), str(reason)

    def _register_bridge(self, cls: type[Bridge], obj: Any, kind: str, name: str) -> Bridge:
        origin = self._info_origin(kind, name)
        trusted = (kind, name) in self._trusted
        bridge = cls(obj, Guard(origin, self.bounds, bounded=not trusted), trusted=trusted)
        plugin_name = f"{'engine' if kind == 'context_engine' else 'memory'}:{name}"
        self.pm.register(bridge, name=plugin_name)
        self._origin[plugin_name] = origin
        return bridge

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
            if entry.builtin:
                self._trusted.add((kind, name))
        else:
            cls = entry
        key = (kind, name)
        info = self._infos.setdefault(key, PluginInfo(name, kind, "in-process", "", source="in-process"))  # type: ignore[arg-type]
        try:
            ctx = PluginContext(
                home=self.home,
                config=self.config,
                settings=self._settings_for(name, cls),
                summarizer=self.summarizer,
                fallback_summarizer=self.fallback_summarizer,
                pre_compress=self.pre_compress,
                memory_written=self.memory.memory_written,
                scan=HostScanner(self),
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
        if obj.name != name:
            self._warn(f"{what} registered as '{name}' reports its name as '{obj.name}'")
        info.status, info.error = "active", ""
        return cast(ContextEngine | MemoryProvider, obj)

    def _settings_for(self, name: str, cls: type) -> Any:
        raw = self.config.plugins.section(name)
        model = getattr(cls, "config_model", None)
        if model is None:
            return raw
        from hermes_core.config.models import validate_section

        return validate_section(model, raw, source=self.config_source, prefix=f"plugins.{name}")

    def _unknown_message(self, what: str, name: str, table: dict[str, Any]) -> str:
        choices = []
        for key, entry in sorted(table.items()):
            dist = entry.where if isinstance(entry, Candidate) else "in-process"
            choices.append(f"{key} ({dist})")
        listing = ", ".join(choices) if choices else "none installed"
        import difflib  # only for an unknown name: keeps start-up short

        close = difflib.get_close_matches(name, list(table), n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        return f"unknown {what} '{name}'.{hint} Available: {listing}"

    # -- bookkeeping ----------------------------------------------------------------

    def _set_info(self, cand: Candidate, status: str, error: str = "") -> None:
        self._infos[(cand.kind, cand.name)] = cand.info(status, error)

    def _info_origin(self, kind: str, name: str) -> str:
        info = self._infos.get((kind, name))
        return f"{name} ({info.distribution} {info.version})".replace(" )", ")") if info else name

    def _load_failed(self, cand: Candidate, exc: PluginLoadError) -> None:
        self._set_info(cand, "failed", exc.reason)
        self.warnings.append(str(exc))
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
        return self.summarizers.selected

    @property
    def fallback_summarizer(self) -> Summarizer | None:
        """The offline ``deterministic`` summarizer, if a plugin registered one."""
        return self.summarizers.fallback

    # -- the engine, through its hooks ---------------------------------------------------

    def update_from_response(self, usage: dict[str, Any] | None) -> None:
        self.pm.hook.hermes_engine_update_from_response(usage=dict(usage or {}))

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        return bool(self.pm.hook.hermes_engine_should_compress(prompt_tokens=prompt_tokens))

    def set_request_overhead(self, tokens: int) -> None:
        """Tell the engine what every request carries besides the messages (tool schemas)."""
        self.engine.request_overhead_tokens = max(0, int(tokens))

    def should_compress_preflight(self, messages: list[Message]) -> bool:
        return bool(self.pm.hook.hermes_engine_should_compress_preflight(messages=messages))

    def compress(
        self,
        messages: list[Message],
        *,
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
        session_id: str = "",
        keep: Message | None = None,
    ) -> CompactionResult:
        """Compact ``messages`` with the active engine; the typed result, changed or not.

        The engine works on its own deep copy. ``result.changed`` is false when it declined,
        failed, or returned something that would lose the conversation (not a list of
        messages, an empty list, the current user message's content gone, an invalid list
        that repairing tool pairs cannot fix); ``result.note`` says why and
        ``result.messages`` is then ``messages`` itself. ``keep`` is the current real user
        message (the session passes it); it defaults to the last user message.
        """
        self._focus = focus_topic
        try:
            return run_compress(
                self.pm.hook, self.engine, self.origin(f"engine:{self.engine.name}"), messages,
                current_tokens=current_tokens, focus_topic=focus_topic, force=force, session_id=session_id, keep=keep,
            )
        finally:
            self._focus = None

    def pre_compress(self, messages: list[Message]) -> str:
        """What a summary of ``messages`` must keep: providers' ``on_pre_compress``, then general
        plugins' ``hermes_compaction_started``, joined (what ``ctx.pre_compress`` does)."""
        parts = [self.memory.on_pre_compress(messages)]
        parts += reversed(self.pm.hook.hermes_compaction_started(messages=messages, focus_topic=self._focus))
        return "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())

    def engine_status(self) -> dict[str, Any]:
        return dict(self.pm.hook.hermes_engine_get_status() or {})

    def on_session_start(self, session_id: str) -> None:
        self.pm.hook.hermes_engine_on_session_start(session_id=session_id)

    def on_session_end(self, session_id: str, messages: list[Message]) -> None:
        self.pm.hook.hermes_engine_on_session_end(session_id=session_id, messages=messages)

    def on_session_reset(self) -> None:
        self.pm.hook.hermes_engine_on_session_reset()

    def update_model(self, model: str, context_length: int, max_tokens: int | None = None) -> None:
        self.pm.hook.hermes_engine_update_model(model=model, context_length=context_length, max_tokens=max_tokens)

    # -- tools ----------------------------------------------------------------------------

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Every tool the model may call: memory providers' first, then the engine's."""
        schemas = list(self.memory.tool_schemas())
        taken = {s.get("name") for s in schemas}
        bridge = self._engine_bridge
        bridge.offered = []
        self.pm.hook.hermes_engine_get_tool_schemas()
        owned = set()
        for schema in bridge.offered:
            name = schema.get("name")
            if not name or name in taken:
                message = f"engine tool {name!r} is missing a name or shadows another tool; ignored"
                if message not in self.warnings:  # the tool list is rebuilt after every compaction
                    self._warn(message)
                continue
            taken.add(name)
            owned.add(name)
            schemas.append(schema)
        bridge.tools = frozenset(owned)
        return schemas

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str:
        """Route a tool call to the memory providers or the engine; always a JSON string."""
        if self.memory.has_tool(name):
            return self.memory.handle_tool_call(name, args)
        bridge = self._engine_bridge
        if not bridge.tools and not bridge.offered:
            self.tool_schemas()
        if name in bridge.tools:
            failures = bridge.guard.failures
            result = self.pm.hook.hermes_engine_handle_tool_call(name=name, args=args)
            if result is not None:
                return str(result)
            if bridge.guard.failures > failures:
                return json.dumps({"error": f"Tool '{name}' failed: {bridge.guard.last_problem}"})
        return json.dumps({"error": f"Unknown tool '{name}'"})

    # -- prompt sections -----------------------------------------------------------------

    def prompt_sections(self, ctx: PromptContext) -> list[PromptSection]:
        """Sections from every plugin, in pluggy's call order, then sorted by order (stable)."""
        sections: list[PromptSection] = []
        for result in self.pm.hook.hermes_system_prompt_sections(ctx=ctx):
            for section in [result] if isinstance(result, PromptSection) else _iterable(result):
                if isinstance(section, PromptSection):
                    sections.append(section)
                else:
                    self._warn(f"a plugin returned a prompt section of type {type(section).__name__}; ignored")
        sections.sort(key=lambda s: s.order)
        return sections

    # -- lifecycle ------------------------------------------------------------------------

    def turn_finished(self, turn: Any) -> None:
        """Tell ``hermes_turn_finished`` observers that a turn ended."""
        self.pm.hook.hermes_turn_finished(turn=turn)

    def close(self) -> None:
        """Drain memory work and shut providers down; safe to call twice."""
        self.memory.shutdown()


def _iterable(value: Any) -> Iterable[Any]:
    try:
        return list(value)
    except TypeError:
        return [value]


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
    save_migrations: bool = True,
    plain_defaults: bool = False,
) -> PluginHost:
    """Build a host from ``config``, or from config.yaml (``config_path``, else in ``home``).

    When config comes from ``$HERMES_HOME/config.yaml``, plugins' one-time migrations run
    after general plugins load and before the engine and providers are selected.
    ``overrides`` are dotted keys applied on top (``{"context.engine": "lcm"}``), also
    after a migration re-read the file. ``save_migrations=False`` (read-only commands)
    applies them in memory only and never writes. ``plain_defaults=True`` (short commands)
    skips pydantic while nothing needs the models: no config file, or one with only known keys
    and plainly valid values, and only overrides that are valid by construction
    (:mod:`hermes_core.config.plain`).
    """
    from hermes_core.config.paths import config_path as default_config_path

    home = home or hermes_home()
    raw: dict[str, Any] | None = None
    source = "config"
    path = config_path if config_path is not None else default_config_path(home)
    plain = plain_config(path) if config is None and plain_defaults else None
    if plain is not None:
        config, source = cast("HermesConfig", plain), str(path)  # it reads like one (PlainConfig)
        raw = plain.raw if config_path is None else None  # the plugins' migrations read the file's mapping
    if config is None:
        from hermes_core.config.models import load_config

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
        save_migrations=save_migrations,
    )

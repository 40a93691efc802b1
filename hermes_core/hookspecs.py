"""The hook specifications of hermes-core: the one place that says what a plugin can do.

There are three groups, each under its own banner:

* **Host hooks** (``hermes_*``) for general plugins: register engines, providers and
  summarizers in-process, contribute system-prompt sections, observe compactions,
  migrate config.
* **Context-engine hooks** (``hermes_engine_*``) mirror :class:`hermes_core.ContextEngine`.
  Exactly one engine is active; its methods are registered under these names by the host,
  so a ``hookwrapper`` in a general plugin can observe or adjust any engine call.
* **Memory-provider hooks** (``hermes_memory_*``) mirror :class:`hermes_core.MemoryProvider`.
  They fan out to every active provider, one call per provider, each isolated: a provider
  that raises is logged with its name and distribution and the others still run.

Engine and provider authors normally subclass the base classes and never touch these
names; general plugins implement them with ``@hermes_core.hookimpl``.

Call order is pluggy's: the most recently registered implementation runs first, and
``tryfirst``/``trylast`` override that. Built-ins register before external plugins.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig
    from hermes_core.engine.base import ContextEngine
    from hermes_core.engine.summarizer import Summarizer
    from hermes_core.memory.base import MemoryProvider
    from hermes_core.records import (
        CompactionReport,
        ConfigMigration,
        PromptContext,
        PromptSection,
    )

__all__ = ["PROJECT", "hookimpl", "hookspec"]

PROJECT = "hermes"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

Message = dict[str, Any]


# ---------------------------------------------------------------------------
# Host hooks
# ---------------------------------------------------------------------------


@hookspec
def hermes_register_context_engines() -> Iterable[tuple[str, type[ContextEngine]]]:  # type: ignore[empty-body]
    """Register context engines in-process, as ``(name, class)`` pairs.

    Fires once, when the host builds its engine registry. The name is what users write
    in ``context.engine``. Results from all plugins are merged; a name registered twice
    is an error naming both plugins. Entry points in ``hermes.context_engines`` are the
    usual way to publish an engine; this hook is for plugins that bundle several.
    """


@hookspec
def hermes_register_memory_providers() -> Iterable[tuple[str, type[MemoryProvider]]]:  # type: ignore[empty-body]
    """Register memory providers in-process, as ``(name, class)`` pairs.

    Same contract as :func:`hermes_register_context_engines`, for ``memory.provider``.
    """


@hookspec
def hermes_register_summarizers(config: HermesConfig) -> Iterable[tuple[str, Summarizer]]:  # type: ignore[empty-body]
    """Register summary backends, as ``(name, summarizer)`` pairs.

    Fires once, when the host builds its summarizer registry. :param config: the
    effective config (``auxiliary`` holds the model settings). ``auxiliary.summarizer``
    selects one by name; the built-ins (the default plugin ``hermes_summarizers``) are
    ``llm`` (the OpenAI-compatible client) and ``deterministic`` (offline, also every
    engine's ``ctx.fallback_summarizer``). Results are merged; a duplicate name is an error.
    """


@hookspec
def hermes_system_prompt_sections(ctx: PromptContext) -> Iterable[PromptSection] | None:  # type: ignore[empty-body]
    """Contribute sections to the system prompt.

    Fires each time the prompt is assembled (once per session, and again after a
    compaction). :param ctx: what the prompt depends on (cwd, platform, model, home,
    config). Return sections or ``None``. All results are collected and sorted by
    ``PromptSection.order``; ties keep plugin call order. A section must depend only on
    ``ctx`` and files, so the prompt stays byte-identical within a session.
    """


@hookspec
def hermes_compaction_finished(report: CompactionReport) -> None:
    """Observe a finished compaction with its before/after figures.

    Fires after every ``compress()`` that changed the messages, automatic or manual.
    :param report: tokens and message counts before and after, the summary source,
    duration. Return value ignored.
    """


@hookspec
def hermes_config_migrations() -> Iterable[ConfigMigration]:  # type: ignore[empty-body]
    """Offer one-time migrations of the raw config mapping.

    Fires when config is loaded from ``$HERMES_HOME``. Each migration has a stable
    ``id``; the host applies each id at most once per home, writes the changed config
    back atomically and records the id, so a migration never runs twice.
    """


# ---------------------------------------------------------------------------
# Context-engine hooks (mirror ContextEngine; exactly one engine is active)
# ---------------------------------------------------------------------------


@hookspec(firstresult=True)
def hermes_engine_update_from_response(usage: dict[str, Any]) -> None:
    """Record the token usage the model reported for the last call.

    Fires after every model response. :param usage: the response's ``usage`` mapping
    (``prompt_tokens``, ``completion_tokens``, ...), possibly empty.
    """


@hookspec(firstresult=True)
def hermes_engine_should_compress(prompt_tokens: int | None) -> bool:  # type: ignore[empty-body]
    """Whether the conversation must be compacted before the next call.

    Fires after each response. :param prompt_tokens: the real count, or ``None`` to use
    the engine's last recorded count. Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def hermes_engine_should_compress_preflight(messages: list[Message]) -> bool:  # type: ignore[empty-body]
    """Cheap check before a call, from a token estimate of ``messages``.

    Fires before each model call. Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def hermes_engine_compress(  # type: ignore[empty-body]
    messages: list[Message], current_tokens: int | None, focus_topic: str | None, force: bool
) -> list[Message]:
    """Return a new, API-valid message list that fits the context window.

    Fires when compaction is due, or when a user asks for it (``force=True``,
    optionally with a focus topic). Must not mutate ``messages``. Stops at the first
    non-None result.
    """


@hookspec(firstresult=True)
def hermes_engine_on_session_start(session_id: str) -> None:
    """A session starts: load any persistent state for ``session_id``."""


@hookspec(firstresult=True)
def hermes_engine_on_session_end(session_id: str, messages: list[Message]) -> None:
    """A session ends: flush and release resources."""


@hookspec(firstresult=True)
def hermes_engine_on_session_reset() -> None:
    """``/new`` or ``/reset``: forget per-session state such as the previous summary."""


@hookspec(firstresult=True)
def hermes_engine_update_model(model: str, context_length: int) -> None:
    """The model changed: recompute thresholds and budgets."""


@hookspec(firstresult=True)
def hermes_engine_get_status() -> dict[str, Any]:  # type: ignore[empty-body]
    """A JSON-able status mapping for display and logs. Stops at the first result."""


@hookspec
def hermes_engine_get_tool_schemas() -> list[dict[str, Any]]:  # type: ignore[empty-body]
    """Tool schemas (OpenAI function format) the engine offers to the model."""


@hookspec(firstresult=True)
def hermes_engine_handle_tool_call(name: str, args: dict[str, Any]) -> str | None:
    """Run one of the engine's tools and return its JSON result, or ``None`` if unknown."""


# ---------------------------------------------------------------------------
# Memory-provider hooks (mirror MemoryProvider; fan out to every provider)
# ---------------------------------------------------------------------------


@hookspec
def hermes_memory_is_available() -> tuple[bool, str]:  # type: ignore[empty-body]
    """Whether the provider can work here, and why not: ``(ok, reason)``."""


@hookspec
def hermes_memory_initialize(session_id: str) -> None:
    """Connect and load state. Fires once per session, before the first turn."""


@hookspec
def hermes_memory_system_prompt_block() -> str:  # type: ignore[empty-body]
    """Text for the system prompt (the frozen snapshot); ``""`` for none.

    Fires when the prompt is assembled. Results are joined in provider order.
    """


@hookspec
def hermes_memory_prefetch(query: str) -> str:  # type: ignore[empty-body]
    """Recalled context for the turn about to start; ``""`` for none.

    Fires at the start of each turn. External providers are called on a background
    thread with a timeout. Results are fenced in ``<memory-context>`` and appended to the
    current user message of the request only.
    """


@hookspec
def hermes_memory_queue_prefetch(query: str) -> None:
    """Start fetching what the next turn will probably need, in the background."""


@hookspec
def hermes_memory_sync_turn(user_content: str, assistant_content: str) -> None:
    """A turn finished: persist it. Fires in turn order on one background worker."""


@hookspec
def hermes_memory_on_turn_start(turn_number: int, message: str) -> None:
    """A turn starts. :param turn_number: 1-based within the session."""


@hookspec
def hermes_memory_on_pre_compress(messages: list[Message]) -> str:  # type: ignore[empty-body]
    """About to compact ``messages``: return text the summary must keep, or ``""``.

    Results from all providers are joined and folded into the summary input.
    """


@hookspec
def hermes_memory_on_memory_write(action: str, target: str, content: str) -> None:
    """The built-in store changed (``add``/``replace``/``remove`` on ``memory``/``user``)."""


@hookspec
def hermes_memory_on_delegation(task: str, result: str) -> None:
    """A subagent finished a delegated ``task`` with ``result``."""


@hookspec
def hermes_memory_on_session_end(session_id: str, messages: list[Message]) -> None:
    """The session ended; ``messages`` is its final list."""


@hookspec
def hermes_memory_get_tool_schemas() -> list[dict[str, Any]]:  # type: ignore[empty-body]
    """Tool schemas the provider offers. A name that shadows a core tool is refused."""


@hookspec
def hermes_memory_handle_tool_call(name: str, args: dict[str, Any]) -> str | None:
    """Run one of the provider's tools; return its JSON result, or ``None`` if unknown."""


@hookspec
def hermes_memory_get_status(probe: bool) -> dict[str, Any]:  # type: ignore[empty-body]
    """The provider's health: ``state`` (ok/starting/degraded/unavailable) and ``summary``.

    Fires when ``doctor`` or a status display asks. ``probe=True`` allows one bounded
    request. Results are collected, one per provider.
    """


@hookspec
def hermes_memory_shutdown() -> None:
    """Release connections. Fires once, after pending work was drained."""

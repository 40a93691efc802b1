"""The hook specifications of hermes-core: the one place that says what a plugin can do.

There are four groups, each under its own banner:

* **Host hooks** (``hermes_*``) for general plugins: register engines, providers and
  summarizers in-process, contribute system-prompt sections and what a summary must keep,
  observe compactions and turns, migrate config.
* **Context-engine hooks** (``hermes_engine_*``) mirror :class:`hermes_core.ContextEngine`.
  Exactly one engine is active; the host registers one bridge for it whose hookimpls call
  the engine's methods.
* **Scanner hooks** (``hermes_scan_text``): injection detectors; their findings combine.
* **Memory-provider hooks** (``hermes_memory_*``) mirror :class:`hermes_core.MemoryProvider`.
  Each active provider (the built-in one plus at most one external) gets its own bridge.

Every call goes through pluggy's own hook caller, so order and wrappers are pluggy's:
implementations run last-registered first (built-ins register before external plugins,
engine and provider bridges after every general plugin), ``tryfirst``/``trylast`` move an
implementation to the front or the back, and ``wrapper=True`` / ``hookwrapper=True``
implementations run around all the others. ``firstresult`` hooks stop at the first
non-None answer.

Each implementation is isolated and bounded where it is registered: an exception of any
kind (``SystemExit`` included; only a real Ctrl-C of the main thread passes) or a call
that overruns its time bound is logged with the plugin's name and distribution, and the
call carries on as if that implementation had returned ``None``.

A general plugin that implements a ``hermes_engine_*`` or ``hermes_memory_*`` hook is an
**observer**: it is called in pluggy order and sees the arguments, but its return value is
dropped and a wrapper's replacement result is ignored, so it never contributes recall,
tools, prompt blocks or an engine decision. Memory comes from the built-in provider plus
at most one external provider chosen by ``memory.provider``; there is no other way in.
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
        CompactionResult,
        ConfigMigration,
        PromptContext,
        PromptSection,
        TurnReport,
    )
    from hermes_core.text.scanning import Finding

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
    ``ctx`` and files, so the prompt stays byte-identical within a session. A wrapper may
    replace the collected list.
    """


@hookspec
def hermes_compaction_started(messages: list[Message], focus_topic: str | None) -> str | None:
    """The span ``messages`` is about to be summarized: return text the summary must keep.

    Fires when the engine asks what to keep (``ctx.pre_compress(span)``), right before it
    summarizes, next to the providers' ``on_pre_compress``. :param messages: a deep copy of
    the span leaving the window; :param focus_topic: the user's ``/compact`` focus, if any.
    Return text (pinned facts, decisions, ids) or ``None``; every answer is joined into the
    summary input, in call order.
    """


@hookspec
def hermes_compaction_finished(report: CompactionResult) -> None:
    """Observe a finished compaction with its before/after figures.

    Fires after every ``compress()`` that changed the messages, automatic or manual.
    :param report: the :class:`~hermes_core.records.CompactionResult` (messages, summary,
    summary source, note, tokens and message counts, duration). Return value ignored.
    """


@hookspec
def hermes_turn_finished(turn: TurnReport) -> None:
    """Observe a finished turn: the model replied without asking for tools.

    Fires once per turn, after the providers' ``sync_turn`` was queued. :param turn: the
    session id, turn number, user and assistant text, tool calls made, last usage.
    Return value ignored.
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


@hookspec
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
) -> CompactionResult | list[Message]:
    """Return a new, API-valid message list that fits the context window.

    Fires when compaction is due, or when a user asks for it (``force=True``,
    optionally with a focus topic). ``messages`` is the engine's own deep copy. Return a
    :class:`~hermes_core.records.CompactionResult` (or a bare list). Stops at the first
    non-None result.
    """


@hookspec
def hermes_engine_on_session_start(session_id: str) -> None:
    """A session starts: load any persistent state for ``session_id``."""


@hookspec
def hermes_engine_on_session_end(session_id: str, messages: list[Message]) -> None:
    """A session ends: flush and release resources."""


@hookspec
def hermes_engine_on_session_reset() -> None:
    """``/new`` or ``/reset``: forget per-session state such as the previous summary."""


@hookspec
def hermes_engine_update_model(model: str, context_length: int, max_tokens: int | None) -> None:
    """The model changed: recompute thresholds and budgets.

    Fires when the agent switches model (:meth:`Session.update_model`). :param
    context_length: the new window; :param max_tokens: the most the model may write in
    one reply (reserve it when budgeting), or ``None`` when unknown.
    """


@hookspec(firstresult=True)
def hermes_engine_get_status() -> dict[str, Any]:  # type: ignore[empty-body]
    """A JSON-able status mapping for display and logs. Stops at the first result."""


@hookspec
def hermes_engine_get_tool_schemas() -> list[dict[str, Any]]:  # type: ignore[empty-body]
    """Tool schemas (OpenAI function format) the engine offers to the model.

    Fires when the tool list is built (session start, reset, after a compaction). A name
    a memory provider already offers is refused: memory tools come first.
    """


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


@hookspec(firstresult=True)
def hermes_memory_handle_tool_call(name: str, args: dict[str, Any]) -> str | None:
    """Run one of the provider's tools; return its JSON result, or ``None`` if unknown.

    Fires when the model calls a tool a provider offered; only the provider that offered
    ``name`` answers. Stops at the first non-None result.
    """


@hookspec
def hermes_memory_get_status(probe: bool) -> dict[str, Any]:  # type: ignore[empty-body]
    """The provider's health: ``state`` (ok/starting/degraded/unavailable) and ``summary``.

    Fires when ``doctor`` or a status display asks. ``probe=True`` allows one bounded
    request. Results are collected, one per provider.
    """


@hookspec
def hermes_memory_shutdown() -> None:
    """Release connections. Fires once, after pending work was drained."""


# ---------------------------------------------------------------------------
# Scanner hooks (injection detectors)
# ---------------------------------------------------------------------------


@hookspec
def hermes_scan_text(text: str, source: str) -> Iterable[Finding | dict[str, Any]] | None:
    """Report prompt-injection findings in ``text`` before it reaches the model.

    Fires for every context file the prompt loads (SOUL.md, AGENTS.md, ...), for
    ``hermes-core scan`` and for memory writes. :param text: the file's text or the entry.
    :param source: where it came from (a path, or ``memory:<target>`` for a memory write).
    Return :class:`hermes_core.text.scanning.Finding` objects, or dicts with ``pattern_id``,
    ``line`` (1-based) and ``excerpt``; ``None`` or ``[]`` when clean. The built-in rules are
    the default plugin ``hermes_scanner`` and the built-in model ``hermes_injection_model``;
    a classifier or a remote guard adds its own findings beside them. Results from all
    detectors combine; a detector that raises or returns garbage is logged with its plugin's
    name and skipped, and never blocks the prompt build. Keep it fast: it runs once per file
    version.
    """

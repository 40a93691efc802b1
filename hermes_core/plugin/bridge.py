"""Turn engine and provider objects into pluggy plugins.

Authors subclass :class:`~hermes_core.ContextEngine` or :class:`~hermes_core.MemoryProvider`
and override plain methods. The host registers one of these adapters per object, so the
object's methods answer the ``hermes_engine_*`` / ``hermes_memory_*`` hooks and general
plugins can wrap or observe them like any other hook.
"""

from __future__ import annotations

from typing import Any

from hermes_core.engine.base import ContextEngine
from hermes_core.hookspecs import hookimpl
from hermes_core.memory.base import MemoryProvider

Message = dict[str, Any]


class EngineHooks:
    """The active engine, as the implementation of every ``hermes_engine_*`` hook."""

    def __init__(self, engine: ContextEngine) -> None:
        self.engine = engine

    @hookimpl
    def hermes_engine_update_from_response(self, usage: dict[str, Any]) -> None:
        self.engine.update_from_response(usage)

    @hookimpl
    def hermes_engine_should_compress(self, prompt_tokens: int | None) -> bool:
        return bool(self.engine.should_compress(prompt_tokens))

    @hookimpl
    def hermes_engine_should_compress_preflight(self, messages: list[Message]) -> bool:
        return bool(self.engine.should_compress_preflight(messages))

    @hookimpl
    def hermes_engine_compress(
        self, messages: list[Message], current_tokens: int | None, focus_topic: str | None, force: bool
    ) -> list[Message]:
        return self.engine.compress(messages, current_tokens=current_tokens, focus_topic=focus_topic, force=force)

    @hookimpl
    def hermes_engine_on_session_start(self, session_id: str) -> None:
        self.engine.on_session_start(session_id)

    @hookimpl
    def hermes_engine_on_session_end(self, session_id: str, messages: list[Message]) -> None:
        self.engine.on_session_end(session_id, messages)

    @hookimpl
    def hermes_engine_on_session_reset(self) -> None:
        self.engine.on_session_reset()

    @hookimpl
    def hermes_engine_update_model(self, model: str, context_length: int) -> None:
        self.engine.update_model(model, context_length)

    @hookimpl
    def hermes_engine_get_status(self) -> dict[str, Any]:
        return self.engine.get_status()

    @hookimpl
    def hermes_engine_get_tool_schemas(self) -> list[dict[str, Any]]:
        return list(self.engine.get_tool_schemas())

    @hookimpl
    def hermes_engine_handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        return self.engine.handle_tool_call(name, args)


class ProviderHooks:
    """One memory provider, as an implementation of every ``hermes_memory_*`` hook."""

    def __init__(self, provider: MemoryProvider) -> None:
        self.provider = provider

    @hookimpl
    def hermes_memory_is_available(self) -> tuple[bool, str]:
        return self.provider.is_available()

    @hookimpl
    def hermes_memory_initialize(self, session_id: str) -> None:
        self.provider.initialize(session_id)

    @hookimpl
    def hermes_memory_system_prompt_block(self) -> str:
        return self.provider.system_prompt_block()

    @hookimpl
    def hermes_memory_prefetch(self, query: str) -> str:
        return self.provider.prefetch(query)

    @hookimpl
    def hermes_memory_queue_prefetch(self, query: str) -> None:
        self.provider.queue_prefetch(query)

    @hookimpl
    def hermes_memory_sync_turn(self, user_content: str, assistant_content: str) -> None:
        self.provider.sync_turn(user_content, assistant_content)

    @hookimpl
    def hermes_memory_on_turn_start(self, turn_number: int, message: str) -> None:
        self.provider.on_turn_start(turn_number, message)

    @hookimpl
    def hermes_memory_on_pre_compress(self, messages: list[Message]) -> str:
        return self.provider.on_pre_compress(messages)

    @hookimpl
    def hermes_memory_on_memory_write(self, action: str, target: str, content: str) -> None:
        self.provider.on_memory_write(action, target, content)

    @hookimpl
    def hermes_memory_on_delegation(self, task: str, result: str) -> None:
        self.provider.on_delegation(task, result)

    @hookimpl
    def hermes_memory_on_session_end(self, session_id: str, messages: list[Message]) -> None:
        self.provider.on_session_end(session_id, messages)

    @hookimpl
    def hermes_memory_get_tool_schemas(self) -> list[dict[str, Any]]:
        return list(self.provider.get_tool_schemas())

    @hookimpl
    def hermes_memory_handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        return self.provider.handle_tool_call(name, args)

    @hookimpl
    def hermes_memory_get_status(self, probe: bool) -> dict[str, Any]:
        return self.provider.get_status(probe=probe)

    @hookimpl
    def hermes_memory_shutdown(self) -> None:
        self.provider.shutdown()

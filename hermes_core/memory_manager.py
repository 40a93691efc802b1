"""The MemoryManager: the built-in provider plus at most one external one (seed 1.6).

Every provider hook fans out through the host, one isolated call per provider, so a
provider that raises never stops another provider or the turn.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from hermes_core.provider import MemoryProvider

if TYPE_CHECKING:
    from hermes_core.host import PluginHost

log = logging.getLogger("hermes_core.memory")

BUILTIN = "builtin"
Message = dict[str, Any]


class MemoryManager:
    """Orchestrates the active memory providers for one host."""

    def __init__(self, host: PluginHost) -> None:
        self.host = host
        self.providers: list[MemoryProvider] = []
        self._tool_owner: dict[str, MemoryProvider] = {}
        self._schemas: list[dict[str, Any]] = []

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
        return True

    # -- fan-out ----------------------------------------------------------------------

    def _each(self, hook: str, **kwargs: Any) -> list[Any]:
        return [result for _name, result in self.host.call_each(hook, **kwargs)]

    def initialize_all(self, session_id: str) -> None:
        self._each("hermes_memory_initialize", session_id=session_id)

    def system_prompt_blocks(self) -> list[str]:
        return [b for b in self._each("hermes_memory_system_prompt_block") if isinstance(b, str) and b.strip()]

    def prefetch_all(self, query: str) -> str:
        return "\n\n".join(r for r in self._each("hermes_memory_prefetch", query=query) if isinstance(r, str) and r)

    def queue_prefetch_all(self, query: str) -> None:
        self._each("hermes_memory_queue_prefetch", query=query)

    def sync_all(self, user_content: str, assistant_content: str) -> None:
        self._each("hermes_memory_sync_turn", user_content=user_content, assistant_content=assistant_content)

    def on_turn_start(self, turn_number: int, message: str) -> None:
        self._each("hermes_memory_on_turn_start", turn_number=turn_number, message=message)

    def on_pre_compress(self, messages: list[Message]) -> str:
        parts = self._each("hermes_memory_on_pre_compress", messages=messages)
        return "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())

    def on_memory_write(self, action: str, target: str, content: str) -> None:
        for impl in self.host.hookimpls("hermes_memory_on_memory_write"):
            if impl.plugin_name != f"memory:{BUILTIN}":
                self.host.invoke(impl, "hermes_memory_on_memory_write",
                                 {"action": action, "target": target, "content": content})

    def on_delegation(self, task: str, result: str) -> None:
        self._each("hermes_memory_on_delegation", task=task, result=result)

    def on_session_end(self, session_id: str, messages: list[Message]) -> None:
        self._each("hermes_memory_on_session_end", session_id=session_id, messages=messages)

    def shutdown(self) -> None:
        self._each("hermes_memory_shutdown")

    # -- tools ------------------------------------------------------------------------

    def tool_schemas(self) -> list[dict[str, Any]]:
        self._tool_owner.clear()
        schemas = []
        for provider in self.providers:
            try:
                offered = list(provider.get_tool_schemas())
            except Exception as exc:  # noqa: BLE001
                log.warning("memory provider %s failed in get_tool_schemas: %s", provider.name, exc)
                continue
            for schema in offered:
                name = schema.get("name") if isinstance(schema, dict) else None
                if not name or name in self._tool_owner:
                    log.warning("memory provider %s: tool %r refused (missing or duplicate name)", provider.name, name)
                    continue
                self._tool_owner[name] = provider
                schemas.append(schema)
        self._schemas = schemas
        return schemas

    def has_tool(self, name: str) -> bool:
        if not self._tool_owner:
            self.tool_schemas()
        return name in self._tool_owner

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str:
        provider = self._tool_owner.get(name)
        if provider is None:
            return json.dumps({"error": f"No memory provider handles tool '{name}'"})
        try:
            result = provider.handle_tool_call(name, args)
        except Exception as exc:  # noqa: BLE001
            log.warning("memory tool %s failed: %s: %s", name, type(exc).__name__, exc)
            return json.dumps({"error": f"Memory tool '{name}' failed: {type(exc).__name__}: {exc}"})
        return result if result is not None else json.dumps({"error": f"Unknown tool '{name}'"})

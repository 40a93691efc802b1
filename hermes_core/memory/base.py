"""The base class every memory provider derives from (seed section 1.6)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from pydantic import BaseModel

    from hermes_core.plugin.context import PluginContext

Message = dict[str, Any]


class MemoryProvider(ABC):
    """Remembers across sessions.

    The built-in provider (``builtin``) is always active when memory is enabled; at most
    one external provider joins it, chosen by ``memory.provider``. Subclass this, override
    what you need, and publish the class under the ``hermes.memory_providers`` entry
    point. Every hook is called in isolation: an exception is logged with the provider's
    name and the turn goes on, but hooks should still catch what they expect.
    """

    config_model: ClassVar[type[BaseModel] | None] = None

    def __init__(self, ctx: PluginContext | None = None) -> None:
        if ctx is None:
            from hermes_core.plugin.context import PluginContext

            ctx = PluginContext.default()
        self.ctx = ctx

    # -- required -------------------------------------------------------------------

    @property
    @abstractmethod
    def name(self) -> str:
        """The name users write in ``memory.provider``."""

    @abstractmethod
    def is_available(self) -> tuple[bool, str]:
        """``(True, "")`` if configured and importable here, else ``(False, reason)``.

        Called before ``initialize``; must not touch the network.
        """

    @abstractmethod
    def initialize(self, session_id: str) -> None:
        """Connect and load state for a session."""

    # -- optional, with defaults -----------------------------------------------------

    def system_prompt_block(self) -> str:
        """Static text for the system prompt (a frozen snapshot)."""
        return ""

    def prefetch(self, query: str) -> str:
        """Recalled context for this turn; fast, served from background work."""
        return ""

    def queue_prefetch(self, query: str) -> None:
        """Start fetching what the next turn will need."""

    def sync_turn(self, user_content: str, assistant_content: str) -> None:
        """Persist a finished turn."""

    def on_turn_start(self, turn_number: int, message: str) -> None:
        """A turn starts."""

    def on_pre_compress(self, messages: list[Message]) -> str:
        """Text the summary of ``messages`` must keep."""
        return ""

    def on_memory_write(self, action: str, target: str, content: str) -> None:
        """The built-in store changed."""

    def on_delegation(self, task: str, result: str) -> None:
        """A subagent finished a delegated task."""

    def on_session_end(self, session_id: str, messages: list[Message]) -> None:
        """The session ended."""

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """Tools offered to the model (OpenAI function schemas)."""
        return []

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        """Run one of the provider's tools; ``None`` means "not mine"."""
        return None

    def get_status(self, probe: bool = False) -> dict[str, Any]:
        """Health for ``hermes-core doctor`` and logs.

        At least ``state`` (``ok``, ``starting``, ``degraded`` or ``unavailable``) and a
        one-line ``summary``. ``probe=True`` may make one bounded request, so a provider
        that was never initialised (as in ``doctor``) still reports reachability.
        """
        return {"provider": self.name, "state": "ok", "summary": f"{self.name}: ok"}

    def shutdown(self) -> None:
        """Release connections."""

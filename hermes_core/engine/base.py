"""The base class every context engine derives from (seed section 4.1)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from hermes_core.text.tokens import estimate_messages_tokens

if TYPE_CHECKING:
    from pydantic import BaseModel

    from hermes_core.plugin.context import PluginContext
    from hermes_core.records import SummarySource

from hermes_core.records import CompactionResult

Message = dict[str, Any]


class ContextEngine(ABC):
    """Keeps one conversation inside the context window.

    Subclass it, override the abstract members, and publish the class under the
    ``hermes.context_engines`` entry point; no decorator and no pluggy import is needed.
    The host reads the standard attributes below directly, so keep them current.

    ``config_model`` may name a pydantic model for the engine's own section of
    config.yaml (``plugins.<name>``); the validated section arrives as ``ctx.settings``.
    """

    config_model: ClassVar[type[BaseModel] | None] = None

    #: Share of the context length at which compaction starts. The base class takes
    #: ``context.threshold_percent`` from config; a subclass may set its own.
    threshold_percent: float = 0.50

    def __init__(self, ctx: PluginContext | None = None) -> None:
        if ctx is None:
            from hermes_core.plugin.context import PluginContext

            ctx = PluginContext.default()
        self.ctx = ctx
        if type(self).threshold_percent == ContextEngine.threshold_percent:  # not set by the subclass
            self.threshold_percent = ctx.config.context.threshold_percent
        self.last_prompt_tokens: int = 0
        self.last_completion_tokens: int = 0
        self.last_total_tokens: int = 0
        self.compression_count: int = 0
        #: The engine's own record of its last compaction, shown by :meth:`get_status`. The
        #: host reads what ``compress`` returns, never these (see :meth:`result`).
        self.last_summary_source: SummarySource = "none"
        self.last_compaction_note: str = ""
        #: Tokens every request carries outside the messages (tool schemas); set by the
        #: session so estimate-based checks see the whole request.
        self.request_overhead_tokens: int = 0
        self.model: str = ""
        self.context_length: int = 0
        self.max_tokens: int | None = None
        self.threshold_tokens: int = 0
        self.update_model(ctx.model, ctx.context_length)

    # -- required -------------------------------------------------------------------

    @property
    @abstractmethod
    def name(self) -> str:
        """The name users write in ``context.engine``."""

    @abstractmethod
    def update_from_response(self, usage: dict[str, Any]) -> None:
        """Record the usage the model reported after every call."""

    @abstractmethod
    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        """Whether to compact now, from real prompt tokens (or the last recorded)."""

    @abstractmethod
    def compress(
        self,
        messages: list[Message],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
    ) -> CompactionResult | list[Message]:
        """Return the compacted, API-valid messages; ``messages`` is the engine's own copy.

        Return ``self.result(new_messages, summary=..., summary_source=..., note=...)``; a bare
        list is accepted too (its summary source and note are then taken from
        ``last_summary_source`` / ``last_compaction_note``). The host keeps the old
        messages when the result loses the current user message's content or is not
        API-valid, and says so in the result's note.
        """

    # -- optional, with defaults -----------------------------------------------------

    def should_compress_preflight(self, messages: list[Message]) -> bool:
        """Cheap check before a call: the rough estimate of the request reaches the threshold."""
        if not self.threshold_tokens:
            return False
        return estimate_messages_tokens(messages) + self.request_overhead_tokens >= self.threshold_tokens

    def on_session_start(self, session_id: str) -> None:
        """Load persistent state for a session."""

    def on_session_end(self, session_id: str, messages: list[Message]) -> None:
        """Flush and release what the session held."""

    def on_session_reset(self) -> None:
        """Forget per-session counters (``/new``, ``/reset``)."""
        self.last_prompt_tokens = self.last_completion_tokens = self.last_total_tokens = 0
        self.compression_count = 0

    def update_model(self, model: str, context_length: int, max_tokens: int | None = None) -> None:
        """Recompute the threshold for a new model, context length and reply budget."""
        self.model = model
        self.context_length = int(context_length)
        self.max_tokens = max_tokens
        self.threshold_tokens = int(self.context_length * self.threshold_percent)

    def get_status(self) -> dict[str, Any]:
        """A JSON-able status mapping for display and logs."""
        last = max(self.last_prompt_tokens, 0)
        return {
            "engine": self.name,
            "last_prompt_tokens": last,
            "threshold_tokens": self.threshold_tokens,
            "context_length": self.context_length,
            "usage_percent": min(100.0, last / self.context_length * 100) if self.context_length else 0.0,
            "compression_count": self.compression_count,
            "last_summary_source": self.last_summary_source,
            "note": self.last_compaction_note,
        }

    def result(
        self,
        messages: list[Message],
        *,
        summary: str = "",
        summary_source: SummarySource = "none",
        note: str = "",
    ) -> CompactionResult:
        """What ``compress`` returns: the messages, the summary text, where it came from, why.

        Also records ``last_summary_source`` and ``last_compaction_note`` for :meth:`get_status`.
        """
        self.last_summary_source, self.last_compaction_note = summary_source, note
        return CompactionResult(messages=messages, summary=summary, summary_source=summary_source, note=note)

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """Tools the engine offers the model (OpenAI function schemas)."""
        return []

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        """Run one of the engine's tools; ``None`` means "not mine"."""
        return None

"""An example context engine: keep the system prompt and the newest messages.

Everything a third-party engine needs is here: a ContextEngine subclass with no
decorators, a pydantic model for its own config section, and the standard attributes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from hermes_core import ContextEngine
from hermes_core.messages import sanitize_tool_pairs
from hermes_core.tokens import estimate_messages_tokens


class ExampleSettings(BaseModel):
    """``plugins.example`` in config.yaml."""

    keep_last: int = Field(12, ge=2, description="how many of the newest messages to keep")


class ExampleEngine(ContextEngine):
    config_model = ExampleSettings

    @property
    def name(self) -> str:
        return "example"

    def update_from_response(self, usage: dict[str, Any]) -> None:
        self.last_prompt_tokens = int(usage.get("prompt_tokens") or 0)
        self.last_completion_tokens = int(usage.get("completion_tokens") or 0)

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        return tokens >= self.threshold_tokens > 0

    def compress(
        self,
        messages: list[dict[str, Any]],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
    ) -> list[dict[str, Any]]:
        tokens = current_tokens if current_tokens is not None else estimate_messages_tokens(messages)
        if not force and tokens + self.request_overhead_tokens < self.threshold_tokens:
            return messages  # below the threshold nothing changes
        keep = self.ctx.settings.keep_last if isinstance(self.ctx.settings, ExampleSettings) else 12
        head = messages[:1] if messages and messages[0].get("role") == "system" else []
        users = [i for i, m in enumerate(messages) if m.get("role") == "user" and i >= len(head)]
        if not users:
            self.last_compaction_note = "no user turn to keep: nothing was dropped"
            return messages
        # start at the first user turn inside the newest `keep` messages (never inside a
        # tool-call group), or at the newest user turn if the window holds none
        window = len(messages) - keep
        start = next((i for i in users if i >= window), users[-1])
        if start <= len(head):
            self.last_compaction_note = "the newest user turn opens the conversation: nothing to drop"
            return messages
        self.compression_count += 1
        self.last_summary_source = "none"
        dropped = start - len(head)
        # Kept messages are never edited (the newest user turn must stay verbatim); the note
        # and a short acknowledgement keep roles alternating before the tail's user turn.
        note = {"role": "user", "content": f"[{dropped} earlier messages were dropped to save context space]"}
        ack = {"role": "assistant", "content": "Understood; continuing from the newest turns."}
        result = sanitize_tool_pairs([*head, note, ack, *messages[start:]])
        over = estimate_messages_tokens(result) + self.request_overhead_tokens >= self.threshold_tokens
        self.last_compaction_note = (
            "the kept turns alone exceed the threshold (this engine drops, it does not summarize)" if over else ""
        )
        return result

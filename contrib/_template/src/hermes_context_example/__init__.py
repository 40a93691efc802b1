"""An example context engine: keep the system prompt and the newest messages.

Everything a third-party engine needs is here: a ContextEngine subclass with no
decorators, a pydantic model for its own config section, and the standard attributes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from hermes_core import ContextEngine
from hermes_core.messages import sanitize_tool_pairs


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
        keep = self.ctx.settings.keep_last if isinstance(self.ctx.settings, ExampleSettings) else 12
        head = messages[:1] if messages and messages[0].get("role") == "system" else []
        start = max(len(head), len(messages) - keep)
        # never start inside a tool-call group, and start the kept part with a user turn
        while start < len(messages) and messages[start].get("role") != "user":
            start += 1
        if start >= len(messages) or start <= len(head):
            return messages
        self.compression_count += 1
        self.last_summary_source = "none"
        dropped = start - len(head)
        note = {"role": "user", "content": f"[{dropped} earlier messages were dropped to save context space]"}
        tail = [dict(m) for m in messages[start:]]
        if tail[0].get("role") == "user":  # keep roles alternating: merge the note into it
            tail[0]["content"] = f"{note['content']}\n\n{tail[0].get('content') or ''}"
            return sanitize_tool_pairs([*head, *tail])
        return sanitize_tool_pairs([*head, note, *tail])

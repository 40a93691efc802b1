"""The rough token estimate every engine shares: 4 chars/token + 10 per message."""

from __future__ import annotations

import json
from typing import Any

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 10
IMAGE_TOKENS = 1000  # a flat charge per image part; real costs vary by provider and size


def content_chars(content: Any) -> tuple[int, int]:
    """``(text characters, image parts)`` of a message ``content`` (string, parts or None)."""
    if content is None:
        return 0, 0
    if isinstance(content, str):
        return len(content), 0
    if isinstance(content, list):
        chars = images = 0
        for part in content:
            if isinstance(part, dict):
                kind = part.get("type")
                if kind in ("image_url", "image", "input_image"):
                    images += 1
                else:
                    text = part.get("text")
                    chars += len(text) if isinstance(text, str) else len(str(part))
            else:
                chars += len(str(part))
        return chars, images
    return len(str(content)), 0


def estimate_message_tokens(message: dict[str, Any]) -> int:
    """Estimate one message: content, tool-call arguments, images, plus overhead."""
    chars, images = content_chars(message.get("content"))
    for call in message.get("tool_calls") or ():
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            args = fn.get("arguments")
            chars += len(args) if isinstance(args, str) else len(json.dumps(args, default=str))
            chars += len(str(fn.get("name") or ""))
    return chars // CHARS_PER_TOKEN + images * IMAGE_TOKENS + MESSAGE_OVERHEAD_TOKENS


def estimate_messages_tokens(messages: list[dict[str, Any]]) -> int:
    """Estimate a whole list; linear in its size."""
    return sum(estimate_message_tokens(m) for m in messages)


def estimate_text_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN

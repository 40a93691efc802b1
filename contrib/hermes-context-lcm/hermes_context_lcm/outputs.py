"""Large tool outputs: kept whole in the store, shown in the context as a reference.

The reference carries the stored message's id and a short deterministic description
(size, lines, what it looks like, its first line) so the model knows whether to page it
back in with ``lcm_expand``.
"""

from __future__ import annotations

import json
from typing import Any

Message = dict[str, Any]


def describe_text(text: str) -> str:
    """What a blob of text is, in one line, without a model."""
    stripped = text.strip()
    lines = text.count("\n") + 1 if text else 0
    kind = "text"
    if stripped[:1] in "{[":
        try:
            data = json.loads(stripped)
        except ValueError:
            pass
        else:
            if isinstance(data, dict):
                kind = "JSON object with keys " + ", ".join(list(map(str, data))[:8])
            elif isinstance(data, list):
                kind = f"JSON list of {len(data)} items"
    if kind == "text":
        if stripped.startswith(("diff --git", "--- ", "@@ ")):
            kind = "diff"
        elif any(tok in stripped[:2000] for tok in ("def ", "class ", "import ", "function ", "defmodule ")):
            kind = "code or code listing"
        elif "Traceback (most recent call last)" in stripped or "Error" in stripped[-2000:]:
            kind = "output with errors"
    first = next((ln.strip() for ln in stripped.splitlines() if ln.strip()), "")
    if len(first) > 100:
        first = first[:97] + "..."
    return f"{len(text):,} chars, {lines:,} lines, {kind}; starts: {first!r}"


def page_count(content: Any, page_chars: int) -> int:
    """Pages ``lcm_expand`` needs for a message content (a non-string content is one page)."""
    return max(1, -(-len(content) // page_chars)) if isinstance(content, str) else 1


def reference_text(message_id: int, text: str, page_chars: int) -> str:
    pages = page_count(text, page_chars)
    return (f"[LCM stored output msg_{message_id}: {describe_text(text)}. It is kept in full: read it with "
            f"lcm_expand(id=\"msg_{message_id}\", page=1..{pages}).]")


def externalize(message: Message, message_id: int, threshold: int, page_chars: int) -> Message:
    """``message`` itself, or a copy whose oversized tool output became a reference."""
    content = message.get("content")
    if message.get("role") != "tool" or not isinstance(content, str) or len(content) <= threshold:
        return message
    return {**message, "content": reference_text(message_id, content, page_chars)}


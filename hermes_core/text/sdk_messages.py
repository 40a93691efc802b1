"""Messages as agent code has them: dicts, or OpenAI / Anthropic SDK objects, duck-typed.

``openai`` returns pydantic models (``ChatCompletion``, ``ChatCompletionMessage``) and
``anthropic`` returns ``Message`` with content blocks; neither SDK is a dependency. Anything
with ``model_dump()`` (or ``dict()``, or a mapping) is turned into the OpenAI chat dict the
session works with: a whole completion gives its first choice's message, Anthropic
``text`` / ``tool_use`` blocks become ``content`` and ``tool_calls``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["as_chat_message", "usage_of"]


def _plain(obj: Any) -> Any:
    """A dict/list/scalar view of ``obj``: ``model_dump()``, ``dict()``, a mapping, or itself."""
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if isinstance(obj, Mapping):
        return {k: v for k, v in obj.items() if v is not None}
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        return {k: v for k, v in dump(exclude_none=True).items()} if _accepts_exclude(dump) else dump()
    to_dict = getattr(obj, "to_dict", None) or getattr(obj, "dict", None)
    if callable(to_dict):
        return to_dict()
    return obj


def _accepts_exclude(dump: Any) -> bool:
    try:
        dump(exclude_none=True)
    except TypeError:
        return False
    return True


def as_chat_message(obj: Any) -> Any:
    """``obj`` as an OpenAI chat message dict; a str or anything unrecognised is returned as it is."""
    data = _plain(obj)
    if not isinstance(data, dict):
        return data
    choices = data.get("choices")
    if isinstance(choices, list) and choices and "role" not in data:  # a whole ChatCompletion
        first = _plain(choices[0])
        data = _plain(first.get("message")) if isinstance(first, dict) else {}
        if not isinstance(data, dict):
            return data
    content = data.get("content")
    if data.get("type") == "message" or (isinstance(content, list) and any(
            isinstance(_plain(b), dict) and _plain(b).get("type") == "tool_use" for b in content)):
        return _from_anthropic(data)
    calls = data.get("tool_calls")
    if isinstance(calls, list):
        data = {**data, "tool_calls": [_plain(c) for c in calls]}
    return {k: v for k, v in data.items() if k not in ("function_call", "audio", "refusal") or v}


def _from_anthropic(data: dict[str, Any]) -> dict[str, Any]:
    texts, calls = [], []
    for block in data.get("content") or ():
        block = _plain(block)
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
        elif block.get("type") == "tool_use":
            calls.append({"id": str(block.get("id") or ""), "type": "function",
                          "function": {"name": str(block.get("name") or ""),
                                       "arguments": json.dumps(block.get("input") or {})}})
    message: dict[str, Any] = {"role": data.get("role") or "assistant", "content": "\n\n".join(texts) or None}
    if calls:
        message["tool_calls"] = calls
    return message


def usage_of(obj: Any) -> dict[str, Any] | None:
    """The ``usage`` of a completion object as ``prompt_tokens``/``completion_tokens``, if it has one.

    Anthropic's ``input_tokens`` (plus cache reads and writes, which also fill the window)
    count as prompt tokens.
    """
    data = _plain(obj)
    usage = _plain(data.get("usage")) if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return None
    if "prompt_tokens" in usage:
        return usage
    if "input_tokens" in usage:
        prompt = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens",
                                                       "cache_creation_input_tokens"))
        return {"prompt_tokens": prompt, "completion_tokens": int(usage.get("output_tokens") or 0)}
    return None

"""JSON with a nesting limit: deep input gets one clear error, never a ``RecursionError``.

``json.loads`` recurses once per level, so ``[[[[...]]]]`` from a model's tool call or a
hand-made transcript can exhaust the stack, and code that walks the result (validation,
``json.dumps``) can fail later still. :func:`loads_bounded` parses and checks the depth;
:func:`check_depth` checks an object already parsed (tool arguments given as a dict).
"""

from __future__ import annotations

import json
from typing import Any

MAX_JSON_DEPTH = 64  # tool arguments and config; real ones are a few levels deep
MAX_TRANSCRIPT_DEPTH = 128  # messages with content parts and tool calls

__all__ = ["MAX_JSON_DEPTH", "MAX_TRANSCRIPT_DEPTH", "JSONTooDeep", "check_depth", "loads_bounded"]


class JSONTooDeep(json.JSONDecodeError):
    """Nested deeper than the limit. A ``JSONDecodeError``, so handlers of bad JSON handle it too."""

    def __init__(self, what: str, max_depth: int, doc: str = "") -> None:
        super().__init__(f"{what} is nested deeper than {max_depth} levels", doc, 0)


def depth_exceeds(value: Any, max_depth: int) -> bool:
    """Whether lists/dicts in ``value`` nest deeper than ``max_depth``; iterative, no recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children: Any
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth > max_depth:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))
    return False


def check_depth(value: Any, what: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``value`` unchanged, or :class:`JSONTooDeep` naming ``what``."""
    if depth_exceeds(value, max_depth):
        raise JSONTooDeep(what, max_depth)
    return value


def loads_bounded(text: str | bytes, what: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that raises :class:`JSONTooDeep` instead of recursing past ``max_depth``."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(what, max_depth) from None
    return check_depth(value, what, max_depth)

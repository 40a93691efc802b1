"""Reading the plain shape of config.yaml without PyYAML, for short commands.

Importing PyYAML costs a short command such as ``hermes-core compact`` about as much as
the rest of its config handling. A config file is almost always nested ``key: value``
lines with simple scalars and comments, like the one README.md documents; for exactly
that subset :func:`parse_simple_yaml` returns what ``yaml.safe_load`` would, and for
anything else (lists in block style, anchors, tags, escapes, non-ASCII text, yes/no words,
numbers YAML reads in other bases, a line it cannot place) it returns None and the caller
uses PyYAML, whose answers and error messages are then the ones users get.
``tests/host/test_simple_yaml.py`` holds the two equal on generated documents.
"""

from __future__ import annotations

import re
from typing import Any

_LINE = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?")
_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,30})")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]{0,30})\.[0-9]{1,30}")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# words a YAML 1.1 loader reads as booleans or null (only true/false are taken here)
_SPECIAL = frozenset({"yes", "no", "on", "off", "true", "false", "null", "y", "n"})
_OPEN = object()  # "key:" with nothing after it: a nested mapping, or null if none follows
_NO = object()


def _scalar(text: str) -> Any:
    """The value of one plain or quoted scalar (no comment), or ``_NO`` outside the subset."""
    if text in ("true", "false"):
        return text == "true"
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _WORD.fullmatch(text):
        return text if text.lower() not in _SPECIAL else _NO
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and text[0] not in text[1:-1] \
            and "\\" not in text:
        return text[1:-1]
    return _NO


def _value(rest: str) -> Any:
    """What follows ``key: `` on a line: a scalar, ``[]``/``[a, b]``, ``{}``, or ``_OPEN``."""
    rest = rest.strip(" ")
    if not rest or rest.startswith("#"):
        return _OPEN
    if rest[0] in "\"'":
        close = rest.find(rest[0], 1)
        after = rest[close + 1:].lstrip(" ") if close > 0 else "x"
        if after and (not after.startswith("#") or after == rest[close + 1:]):
            return _NO  # something other than a comment (after a blank) follows the string
        return _scalar(rest[: close + 1])
    hash_at = rest.find(" #")
    text = (rest[:hash_at] if hash_at >= 0 else rest).rstrip(" ")
    if "#" in text:
        return _NO
    if text in ("[]", "{}"):
        return [] if text == "[]" else {}
    if text.startswith("[") and text.endswith("]"):
        items = [_scalar(item.strip(" ")) for item in text[1:-1].split(",")]
        return _NO if any(item is _NO or type(item) is not str for item in items) else items
    return _scalar(text)


def parse_simple_yaml(text: str) -> dict[str, Any] | None:
    """``yaml.safe_load(text) or {}`` for a document of nested ``key: value`` lines with
    simple scalars, flow ``[]`` lists of words and comments; None for anything else."""
    if not text.isascii() or any(ch < " " and ch != "\n" for ch in text) or "\x7f" in text:
        return None
    root: dict[str, Any] = {}
    stack: list[tuple[int, dict[str, Any]]] = [(0, root)]  # (indent, mapping) of the open mappings
    pending: tuple[dict[str, Any], str] | None = None  # a "key:" waiting for its nested mapping
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            return None
        indent, key, rest = len(m.group(1)), m.group(2), m.group(3) or ""
        if key.lower() in _SPECIAL:
            return None  # YAML reads "on:" or "null:" as a boolean or null key
        if pending is not None and indent > stack[-1][0]:
            child: dict[str, Any] = {}
            pending[0][pending[1]] = child
            stack.append((indent, child))
        else:
            while stack and indent < stack[-1][0]:
                stack.pop()
            if not stack or indent != stack[-1][0]:
                return None  # between two levels: YAML reports it
        pending = None
        mapping = stack[-1][1]
        if key in mapping:
            return None  # a repeated key: left to PyYAML
        value = _value(rest)
        if value is _NO:
            return None
        if value is _OPEN:
            mapping[key] = None
            pending = (mapping, key)
        else:
            mapping[key] = value
    return root

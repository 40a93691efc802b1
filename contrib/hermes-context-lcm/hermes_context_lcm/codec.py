"""How a message becomes two storable values, and back, exactly, whatever an agent produced.

SQLite TEXT (and PostgreSQL ``text``) must be valid UTF-8, ``json`` recurses once per nesting
level, and a tool output can hold anything ``os.listdir`` returns. The encoding:

* ``content`` (a string content) is stored as TEXT; a string that is not valid UTF-8 (it
  holds lone surrogates, e.g. an undecodable file name) is stored as a BLOB of
  ``content.encode("utf-8", "surrogatepass")`` and decoded the same way. NUL is kept.
* ``meta`` (every other key, with ``content`` as a ``null`` placeholder so key order
  survives) is JSON text: ``ensure_ascii=False``, or with ``\\uXXXX`` escapes when the text
  would hold lone surrogates. A value nested deeper than the recursion limit is written and
  read by the iterative codec below: the same JSON text, no recursion.
* A non-JSON Python value (it cannot come from a JSON transcript) is stored as ``str(value)``.

A non-string content (a list of parts, a number, null) lives in ``meta`` whole.

A **key** (a session id, a role: a column searched by equality) is stored as it is, or, when
the column cannot hold it, as ``KEY_ESCAPE`` and base64 of its ``surrogatepass`` UTF-8 (see
:func:`escape_key`): one reversible text form for both stores, so keys round-trip exactly.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

Message = dict[str, Any]
_PLAIN_META: dict[str, str] = {}
_SURROGATE = re.compile("[\ud800-\udfff]")


def is_utf8(text: str) -> bool:
    """Whether ``text`` can be stored as UTF-8 (holds no lone surrogate)."""
    return text.isascii() or _SURROGATE.search(text) is None


def storable_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD: for indexes and snippets only."""
    return text if is_utf8(text) else _SURROGATE.sub("\ufffd", text)


#: Marks a key stored escaped; a key that itself starts with it is escaped too, so no two keys collide.
KEY_ESCAPE = "\x01b64:"


def escape_key(value: str, *, nul: bool = True) -> str:
    """``value`` as a key column holds it: itself, or - when it holds a lone surrogate, starts
    with ``KEY_ESCAPE`` or (``nul``, for PostgreSQL ``text``) holds NUL - ``KEY_ESCAPE`` and base64
    of its UTF-8. SQLite TEXT takes NUL, so the SQLite store passes ``nul=False`` (files written
    before keep their ids)."""
    if value.startswith(KEY_ESCAPE) or not is_utf8(value) or (nul and "\x00" in value):
        return KEY_ESCAPE + base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii")
    return value


def unescape_key(text: str) -> str:
    """The key :func:`escape_key` stored as ``text``."""
    if text.startswith(KEY_ESCAPE):
        return base64.b64decode(text[len(KEY_ESCAPE):]).decode("utf-8", "surrogatepass")
    return text


def dumps(value: Any) -> str:
    """JSON text for ``value``, valid UTF-8, at any nesting depth."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (RecursionError, TypeError):  # too deep, or a key json refuses
        return _deep_dumps(value)
    if is_utf8(text):
        return text
    return json.dumps(value, ensure_ascii=True, default=str)


def loads(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        return _deep_loads(text)


def encode_message(msg: Message) -> tuple[str | bytes | None, str]:
    """``(content, meta)`` as stored: see the module docstring."""
    content = msg.get("content")
    if isinstance(content, str):
        stored: str | bytes = content if is_utf8(content) else content.encode("utf-8", "surrogatepass")
        role = msg.get("role")
        if len(msg) == 2 and isinstance(role, str) and next(iter(msg)) == "role" and is_utf8(role):
            meta = _PLAIN_META.get(role)  # the common shape, cached
            if meta is None:
                meta = _PLAIN_META.setdefault(role, json.dumps({"role": role, "content": None}, ensure_ascii=False))
            return stored, meta
        return stored, dumps({**msg, "content": None})
    return None, dumps(msg)


def decode_message(content: str | bytes | None, meta: str) -> Message:
    """The original message dict (same keys, same order, same strings)."""
    msg: Message = loads(meta)
    if content is not None:
        msg["content"] = content.decode("utf-8", "surrogatepass") if isinstance(content, bytes) else content
    return msg


# -- the iterative JSON codec, for values deeper than the recursion limit ---------------------

_ENCODER = json.JSONEncoder(ensure_ascii=True, allow_nan=True)


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _ENCODER.encode(value)
    if value is None or isinstance(value, bool | int | float):
        return _ENCODER.encode(value)
    return _ENCODER.encode(str(value))


def _deep_dumps(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=True)`` without recursion."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif isinstance(item, dict):
            out.append("{")
            entries = list(item.items())
            parts: list[Any] = []
            for i, (key, val) in enumerate(entries):
                parts.append(_Raw(("" if i == 0 else ", ") + _ENCODER.encode(_key(key)) + ": "))
                parts.append(val)
            parts.append(_Raw("}"))
            stack.extend(reversed(parts))
        elif isinstance(item, list | tuple):
            out.append("[")
            parts = []
            for i, val in enumerate(item):
                if i:
                    parts.append(_Raw(", "))
                parts.append(val)
            parts.append(_Raw("]"))
            stack.extend(reversed(parts))
        else:
            out.append(_scalar(item))
    return "".join(out)


def _key(key: Any) -> str:
    """A dict key as ``json`` writes it (and ``str()`` for the keys it would refuse)."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return _ENCODER.encode(key)
    if isinstance(key, int | float):
        return _ENCODER.encode(key) if isinstance(key, float) else str(int(key))
    return str(key)


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None, "NaN": float("nan"),
             "Infinity": float("inf"), "-Infinity": float("-inf")}


def _deep_loads(text: str) -> Any:
    """``json.loads(text)`` without recursion (objects keep their key order)."""
    scanstring = json.decoder.scanstring  # type: ignore[attr-defined]
    stack: list[tuple[Any, str | None]] = []  # (container, pending key of a dict)
    pos = 0
    result: Any = None
    have_result = False

    def put(value: Any) -> None:
        nonlocal result, have_result
        if not stack:
            result, have_result = value, True
            return
        container, key = stack[-1]
        if isinstance(container, list):
            container.append(value)
        else:
            container[key] = value
            stack[-1] = (container, None)

    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            break
        ch = text[pos]
        if ch in ",:":
            pos += 1
            continue
        if ch == "{" or ch == "[":
            container: Any = {} if ch == "{" else []
            put(container)
            stack.append((container, None))
            pos += 1
        elif ch == "}" or ch == "]":
            stack.pop()
            pos += 1
        elif ch == '"':
            value, pos = scanstring(text, pos + 1, True)
            if stack and isinstance(stack[-1][0], dict) and stack[-1][1] is None and _is_key(text, pos):
                stack[-1] = (stack[-1][0], value)
            else:
                put(value)
        else:
            for word, literal in _LITERALS.items():
                if text.startswith(word, pos):
                    put(literal)
                    pos += len(word)
                    break
            else:
                match = _NUMBER.match(text, pos)
                if not match:
                    raise ValueError(f"bad JSON at offset {pos}")
                number = match.group()
                put(float(number) if any(c in number for c in ".eE") else int(number))
                pos = match.end()
        if have_result and not stack:
            break
    return result


def _is_key(text: str, pos: int) -> bool:
    at = _WS.match(text, pos).end()  # type: ignore[union-attr]
    return text[at : at + 1] == ":"

"""Adding keys to a block-style YAML file line by line, so comments and layout survive.

A full ``yaml.safe_dump`` of a migrated mapping drops every comment the user wrote.
Migrations only ever add keys (they may not override explicit values), so an edit that
inserts ``key: value`` lines into the right block is enough. The result is re-parsed and
compared with the mapping it must produce; anything this editor does not understand
(flow-style parents, anchors, odd indentation) makes it return ``None`` and the caller
falls back to a full rewrite, saying that comments were not kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _key_text(key: str) -> str:
    return key if _PLAIN_KEY.match(key) else json.dumps(key)


def _block_end(lines: list[str], start: int, end: int, indent: int) -> int:
    """Index after the last content line of the block opened at ``start - 1`` (indent ``indent``)."""
    last = start
    for i in range(start, end):
        if not _is_content(lines[i]):
            continue
        if _indent(lines[i]) <= indent:
            break
        last = i + 1
    return last


def _find_key(lines: list[str], start: int, end: int, indent: int | None, key: str) -> int | None:
    """Line index of ``key:`` as a direct child in ``lines[start:end]`` (at ``indent``)."""
    pattern = re.compile(rf"^(\s*)(?:{re.escape(key)}|{re.escape(json.dumps(key))}|'{re.escape(key)}'):(\s.*)?$")
    for i in range(start, end):
        line = lines[i]
        if not _is_content(line):
            continue
        if indent is not None and _indent(line) != indent:
            continue
        if pattern.match(line):
            return i
    return None


def add_key(text: str, path: Sequence[str], value: Any) -> str | None:
    """``text`` with ``path`` (which must not exist yet) set to ``value``; ``None`` if unsure."""
    lines = text.split("\n")
    start, end, indent = 0, len(lines), -1
    child_indent: int | None = 0
    for depth, key in enumerate(path[:-1]):
        found = _find_key(lines, start, end, child_indent, key)
        if found is None:
            at = _block_end(lines, start, end, indent) if depth else _last_content(lines) + 1
            pad = (child_indent if child_indent is not None else indent + 2) if depth else 0
            return _insert(lines, at, path[depth:], value, pad)
        rest = lines[found].split(":", 1)[1].split(" #", 1)[0].strip()
        if rest not in ("", "null", "~"):
            return None  # an inline value or flow mapping: not ours to edit
        if rest:
            lines[found] = lines[found].replace(rest, "", 1).rstrip()
        indent = _indent(lines[found])
        start, end = found + 1, _block_end(lines, found + 1, end, indent)
        children = [_indent(lines[i]) for i in range(start, end) if _is_content(lines[i])]
        child_indent = children[0] if children else None
    if _find_key(lines, start, end, child_indent, path[-1]) is not None:
        return None
    at = end if path[:-1] else _last_content(lines) + 1
    return _insert(lines, at, path[-1:], value, child_indent if child_indent is not None else indent + 2)


def _last_content(lines: list[str]) -> int:
    for i in range(len(lines) - 1, -1, -1):
        if _is_content(lines[i]):
            return i
    return -1


def _insert(lines: list[str], at: int, path: Sequence[str], value: Any, indent: int) -> str:
    step = 2
    new = []
    for n, key in enumerate(path):
        pad = " " * (indent + n * step)
        if n < len(path) - 1:
            new.append(f"{pad}{_key_text(key)}:")
        else:
            new.append(f"{pad}{_key_text(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join([*lines[:at], *new, *lines[at:]])

"""YAML front matter of SKILL.md / DESCRIPTION.md: a fast path for flat ``key: value`` blocks.

Indexing 1,000 skills cold must take milliseconds, and PyYAML costs far more per file
than reading it. Nearly every skill header is flat ``key: value`` lines, so those are
parsed by hand; anything richer (block scalars, nested maps, escapes, anchors) goes to
``yaml.safe_load``, so the result is always what YAML would say.
"""

from __future__ import annotations

import functools
import re
from typing import Any


class FrontMatterError(ValueError):
    """The front matter is present but unusable (unterminated, invalid YAML, not a mapping)."""


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
# Plain scalars starting with an indicator or blank are left to YAML itself.
_INDICATOR = re.compile(r"[-?:,\[\]{}#&*!|>'\"%@`\s]")


@functools.cache
def _implicit_resolvers() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    import yaml

    return yaml.resolver.Resolver.yaml_implicit_resolvers  # type: ignore[no-any-return]


def _typed(value: str) -> bool:
    """Whether YAML reads this plain scalar as a non-string (number, date, bool, null...)."""
    candidates = _implicit_resolvers().get(value[0], ())
    return any(tag != "tag:yaml.org,2002:str" and rx.match(value) for tag, rx in candidates)


def split(text: str) -> tuple[str | None, str]:
    """``(front matter block or None, body)``; raises when a block is opened but never closed."""
    if not text.startswith("---"):
        return None, text
    first_nl = text.find("\n")
    if first_nl < 0 or text[3:first_nl].strip():
        return None, text
    pos = first_nl + 1
    while True:
        nl = text.find("\n", pos)
        line = text[pos:] if nl < 0 else text[pos:nl]
        if line.rstrip() in ("---", "..."):
            return text[first_nl + 1 : pos], ("" if nl < 0 else text[nl + 1 :])
        if nl < 0:
            raise FrontMatterError("front matter opened with '---' but never closed")
        pos = nl + 1


def _plain(value: str) -> bool:
    """A plain scalar YAML reads as this very string."""
    return not (_INDICATOR.match(value) or value[-1].isspace() or ": " in value or "#" in value
                or value.endswith(":") or _typed(value))


def _scalar(value: str) -> str | list[str] | None:
    """A plain or simply-quoted string, or a flat ``[a, b]`` list of them; None means 'ask YAML'."""
    if not value:
        return None
    if value[0] in "\"'":
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != value[0] or value[0] in inner or "\\" in inner or not inner.isprintable():
            return None
        return inner
    if value[0] == "[":
        items = [item.strip() for item in value[1:-1].split(",")]
        if not value.endswith("]") or not all(item and _plain(item) and "]" not in item for item in items):
            return None
        return items
    return value if _plain(value) else None


def parse(block: str) -> dict[str, Any]:
    """The front matter block as a mapping."""
    result: dict[str, Any] = {}
    for line in block.replace("\r\n", "\n").split("\n"):
        stripped = line.strip(" \t")  # YAML's blanks, not Python's whitespace
        if not stripped or stripped.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        ok = sep and line.isprintable() and _KEY.match(key) and not _typed(key) and (not value or value[0] == " ")
        scalar = _scalar(value.strip(" ")) if ok else None
        if scalar is None:
            return _parse_yaml(block)
        result[key] = scalar
    return result


def _parse_yaml(block: str) -> dict[str, Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(block, Loader=loader)  # a safe loader (C if available)
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"invalid YAML: {' '.join(str(exc).split())[:160]}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterError(f"front matter is a {type(data).__name__}, not a mapping")
    return data

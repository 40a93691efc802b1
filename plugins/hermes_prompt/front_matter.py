"""YAML front matter of SKILL.md / DESCRIPTION.md: a fast path for flat ``key: value`` blocks.

Indexing 1,000 skills cold must take milliseconds, and PyYAML costs far more per file
than reading it. Nearly every skill header is flat ``key: value`` lines, so those are
parsed by hand; anything richer (block scalars, nested maps, escapes, anchors) goes to
``yaml.safe_load``, so the result is always what YAML would say.
"""

from __future__ import annotations

from typing import Any


class FrontMatterError(ValueError):
    """The front matter is present but unusable (unterminated, invalid YAML, not a mapping)."""


_SPECIAL_START = ("|", ">", "&", "*", "!", "{", "%", "@", "`")


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


def _scalar(value: str) -> str | list[str] | None:
    """A plain or simply-quoted scalar, or a flat ``[a, b]`` list; None means 'ask YAML'."""
    if not value:
        return ""
    if value.startswith(_SPECIAL_START) or ": " in value or " #" in value:
        return None
    if value[0] in "\"'":
        quote = value[0]
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != quote or quote in inner or "\\" in inner:
            return None
        return inner
    if value[0] == "[":
        if not value.endswith("]") or any(c in value[1:-1] for c in "[]{}\"'"):
            return None
        return [item.strip() for item in value[1:-1].split(",") if item.strip()]
    return value


def parse(block: str) -> dict[str, Any]:
    """The front matter block as a mapping."""
    result: dict[str, Any] = {}
    for line in block.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        scalar = _scalar(value.strip()) if sep and not line[0].isspace() and key.strip() == key else None
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

"""How agent concepts map to Honcho ids: session names per strategy, message chunks."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from hermes_memory_honcho.settings import SessionStrategy

MAX_ID = 100
CONTINUED = "[continued] "
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def safe_id(raw: str, fallback: str = "hermes") -> str:
    """A Honcho-safe id: ``[A-Za-z0-9_-]``, at most 100 chars, stable and collision-aware.

    When sanitising changed the text, an 8-hex hash of the original is appended, so
    ``a/b`` and ``a_b`` stay distinct.
    """
    clean = _UNSAFE.sub("_", raw).strip("_") or fallback
    if clean == raw and len(clean) <= MAX_ID:
        return clean
    digest = hashlib.sha256(raw.encode()).hexdigest()[:8]
    return f"{clean[: MAX_ID - 9]}-{digest}"


def _path_id(path: Path) -> str:
    """Directory basename plus a hash of its full path: two ``src`` dirs stay apart."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    return safe_id(f"{path.name or 'root'}-{digest}")


def git_root(start: Path) -> Path | None:
    for path in (start, *start.parents):
        if (path / ".git").exists():
            return path
    return None


def session_name(strategy: SessionStrategy, session_id: str, cwd: Path, workspace: str) -> str:
    """The Honcho session id for this agent session under ``strategy``."""
    if strategy == "per-session":
        return safe_id(session_id)
    if strategy == "global":
        return safe_id(f"{workspace}-global")
    cwd = cwd.resolve()
    if strategy == "per-repo":
        root = git_root(cwd)
        if root is not None:
            return _path_id(root)
    return _path_id(cwd)


def split_message(text: str, limit: int) -> list[str]:
    """Split ``text`` into chunks of at most ``limit`` chars, preferring line/word breaks.

    Every chunk after the first starts with ``[continued] `` so a reader of the stored
    messages sees they belong together.
    """
    if len(text) <= limit:
        return [text]
    chunks: list[str] = []
    rest = text
    while rest:
        room = limit - (len(CONTINUED) if chunks else 0)
        if len(rest) <= room:
            piece, rest = rest, ""
        else:
            cut = max(rest.rfind("\n", room // 2, room), rest.rfind(" ", room // 2, room))
            cut = cut + 1 if cut > 0 else room
            piece, rest = rest[:cut], rest[cut:]
        chunks.append((CONTINUED if chunks else "") + piece)
    return chunks


def clip(text: str, limit: int) -> str:
    """Cut at a word boundary within ``limit`` chars, marking the cut with `` …``."""
    if len(text) <= limit:
        return text
    head = text[: max(0, limit - 2)]
    space = head.rfind(" ", len(head) // 2)
    return (head[:space] if space > 0 else head).rstrip() + " …"

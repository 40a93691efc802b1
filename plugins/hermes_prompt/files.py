"""Reading user-supplied text files for the prompt: safely, and saying why one was skipped.

SOUL.md and project context files come from disk the agent does not control. Every
way they can be bad (missing permission, binary, not UTF-8, enormous, a directory)
becomes a ``Skip`` with a reason instead of an exception, so the prompt still builds.
"""

from __future__ import annotations

import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_core.text.files import FileRefused, read_bytes_file
from hermes_core.text.scanning import Finding, blocked_notice, pattern_ids, scan_text

from . import front_matter

MAX_READ_BYTES = 4 * 1024 * 1024  # larger files are not project instructions
CACHE_SIZE = 32
HEAD_RATIO = 0.7
TAIL_RATIO = 0.2


@dataclass(frozen=True)
class Skip:
    """A file that was found but not used, and why."""

    path: Path
    reason: str

    def finding(self) -> dict[str, Any]:
        return {"kind": "skipped", "path": str(self.path), "reason": self.reason}


def not_regular(mode: int) -> str:
    """The skip reason for a path that is not a regular file, naming what it is."""
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return f"not a regular file ({next((kind for test, kind in kinds if test(mode)), 'special')})"


def read_text(path: Path, max_bytes: int = MAX_READ_BYTES, within: Path | None = None) -> str | Skip:
    """The file's text without a byte-order mark, or a ``Skip`` saying what is wrong.

    Only regular files are opened: opening a FIFO blocks until a writer comes, and a device
    such as /dev/zero never ends. The open is non-blocking and re-checked in case the path
    was swapped after the stat, and at most ``max_bytes + 1`` bytes are read whatever
    ``st_size`` says (/proc files report 0).
    """
    try:
        data = read_bytes_file(path, max_bytes=max_bytes, within=within)
    except FileRefused as exc:
        return Skip(path, exc.problem)
    except OSError as exc:
        return Skip(path, f"unreadable: {exc.strerror or type(exc).__name__}")
    if b"\x00" in data[:8192]:
        return Skip(path, "binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return Skip(path, f"not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset {exc.start})")


def strip_front_matter(text: str) -> str:
    """Drop a leading YAML front-matter block (``---`` ... ``---``); keep the Markdown body.

    An unterminated block is not front matter: the text is kept whole.
    """
    try:
        return front_matter.split(text)[1]
    except front_matter.FrontMatterError:
        return text


def truncate(text: str, name: str, path: Path, max_chars: int) -> tuple[str, dict[str, Any] | None]:
    """Cap ``text`` at ``max_chars``: 70% head + 20% tail and a marker naming the full file."""
    if len(text) <= max_chars:
        return text, None
    head, tail = int(max_chars * HEAD_RATIO), int(max_chars * TAIL_RATIO)
    cut = len(text) - head - tail
    marker = (
        f"\n\n[...truncated {name}: kept the first {head:,} and last {tail:,} of {len(text):,} chars; "
        f"{cut:,} chars (from char {head + 1:,} to {head + cut:,}) are omitted. If you need the full "
        f"instructions, read the complete file with the read_file tool: {path}]\n\n"
    )
    finding = {"kind": "truncated", "path": str(path), "chars": len(text), "kept": head + tail, "omitted": cut}
    return text[:head] + marker + text[len(text) - tail :], finding


def guarded(text: str, name: str, path: Path, max_chars: int) -> tuple[str, list[dict[str, Any]]]:
    """Scan, then truncate (seed 3.2/3.3): a hit replaces the whole text with the BLOCKED notice."""
    hits: list[Finding] = scan_text(text)
    if hits:
        notice = blocked_notice(name, hits)
        return notice, [{
            "kind": "blocked", "path": str(path), "reason": notice,
            "pattern_ids": pattern_ids(hits), "findings": [h.to_dict() for h in hits],
        }]
    text, cut = truncate(text, name, path, max_chars)
    return text, [cut] if cut else []


_cache: OrderedDict[tuple[Any, ...], tuple[str, list[dict[str, Any]]]] = OrderedDict()
_cache_lock = threading.Lock()


def load_guarded(
    path: Path, name: str, max_chars: int, *, strip_header: bool, within: Path | None = None
) -> tuple[str, list[dict[str, Any]]] | Skip:
    """Read, strip front matter (``strip_header``), scan and cap a file; remembered per
    (path, inode, mtime, size, cap).

    The prompt is rebuilt after every compaction; scanning a large context file again
    each time would cost tens of milliseconds for the same answer. Files that could not
    be used are not remembered: a permission fix does not change the mtime.
    """
    try:
        st = path.stat()
    except OSError as exc:
        return Skip(path, f"unreadable: {exc.strerror or type(exc).__name__}")
    key = (str(path), st.st_ino, st.st_mtime_ns, st.st_size, name, max_chars, strip_header, str(within))
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit[0], [dict(f) for f in hit[1]]
    loaded = read_text(path, within=within)  # within: a project's link must not leave the project
    if isinstance(loaded, Skip):
        return loaded
    text, findings = guarded((strip_front_matter(loaded) if strip_header else loaded).strip(), name, path, max_chars)
    with _cache_lock:
        _cache[key] = (text, findings)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return text, [dict(f) for f in findings]

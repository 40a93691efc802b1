"""The installed plugins' entry points, remembered between processes.

Listing entry points means importing importlib_metadata and reading every installed
distribution's metadata: 20-30 ms of each short command (``compact``, ``plugins``), for an
answer that only changes when something is installed or removed. Like stevedore's cache,
the listing is kept in a small JSON file, keyed by the interpreter and by ``sys.path`` with
each entry's modification time: installing, upgrading or removing a distribution touches
its directory, so a changed environment has another key and is listed afresh.

The file holds only what the listing already showed (names, groups, ``module:attr``
values, distribution names and versions). A missing, unreadable or corrupt file is the same
as no file; a cache directory that cannot be written is skipped. ``HERMES_CACHE_DIR`` moves
it (default ``$XDG_CACHE_HOME/hermes-core``, else ``~/.cache/hermes-core``); ``off`` turns
it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

FIELDS = ("name", "group", "value", "distribution", "version")
_FORMAT = 1


def cache_dir() -> Path | None:
    """Where the listing is kept, or None when ``HERMES_CACHE_DIR=off``."""
    chosen = os.environ.get("HERMES_CACHE_DIR")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hermes-core"


def _key(signature: tuple[tuple[str, int], ...]) -> str:
    return hashlib.sha256(repr((_FORMAT, sys.executable, sys.version, signature)).encode()).hexdigest()


def _file(directory: Path) -> Path:
    """One file per interpreter, so two environments do not evict each other."""
    return directory / f"entry-points-{hashlib.sha256(sys.executable.encode()).hexdigest()[:16]}.json"


def read(signature: tuple[tuple[str, int], ...]) -> list[dict[str, str]] | None:
    """The rows stored for ``signature``, or None (no file, another key, anything unreadable)."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        data: Any = json.loads(_file(directory).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != _key(signature) or not isinstance(data.get("rows"), list):
        return None
    rows = data["rows"]
    if not all(isinstance(row, dict) and all(isinstance(row.get(f), str) for f in FIELDS) for row in rows):
        return None
    return [{f: row[f] for f in FIELDS} for row in rows]


def write(signature: tuple[tuple[str, int], ...], rows: list[dict[str, str]]) -> None:
    """Store ``rows`` for ``signature`` (atomically; any failure leaves things as they were)."""
    directory = cache_dir()
    if directory is None:
        return
    text = json.dumps({"key": _key(signature), "rows": rows})
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".entry-points-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, _file(directory))
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass

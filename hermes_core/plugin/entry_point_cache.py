"""The installed plugins' entry points, remembered between processes.

Listing entry points means importing importlib_metadata and reading every installed
distribution's metadata: 20-30 ms of each short command, for an answer that only changes
when something is installed or removed. Like stevedore's cache, the listing is kept (in
:mod:`hermes_core.config.user_cache`) under a key made of the interpreter and ``sys.path`` with
each entry's modification time: installing, upgrading or removing a distribution touches
its directory, so a changed environment has another key and is listed afresh. The file
holds only what the listing shows (names, groups, ``module:attr`` values, distribution
names and versions).
"""

from __future__ import annotations

import hashlib
import sys

from hermes_core.config import user_cache

FIELDS = ("name", "group", "value", "distribution", "version")
_FORMAT = 1


def _key(signature: tuple[tuple[str, int], ...]) -> str:
    return hashlib.sha256(repr((_FORMAT, sys.executable, sys.version, signature)).encode()).hexdigest()


def _name() -> str:
    """One file per interpreter, so two environments do not evict each other."""
    return f"entry-points-{hashlib.sha256(sys.executable.encode()).hexdigest()[:16]}.json"


def read(signature: tuple[tuple[str, int], ...]) -> list[dict[str, str]] | None:
    """The rows stored for ``signature``, or None (none stored, another key, malformed)."""
    data = user_cache.read(_name())
    if not isinstance(data, dict) or data.get("key") != _key(signature) or not isinstance(data.get("rows"), list):
        return None
    rows = data["rows"]
    if not all(isinstance(row, dict) and all(isinstance(row.get(f), str) for f in FIELDS) for row in rows):
        return None
    return [{f: row[f] for f in FIELDS} for row in rows]


def write(signature: tuple[tuple[str, int], ...], rows: list[dict[str, str]]) -> None:
    user_cache.write(_name(), {"key": _key(signature), "rows": rows})

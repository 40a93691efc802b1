"""Memory writes held for the user's confirmation, kept in ``$HERMES_HOME/held_memory_writes.json``.

With ``memory.untrusted_writes: confirm``, a memory write the model asks for while tool output
or recalled memory is in its context is not applied: it is held here until a person confirms
it (``hermes-core memory confirm ID``, or ``Session.confirm_memory_write``) or drops it. The
file outlives the process, so a write held by an agent can be confirmed from another shell.

The file is owner-only (mode 0600; it holds what the model wanted to remember), every change
is atomic (a temp file in the same directory, fsync, rename) and made under an exclusive lock
on a sidecar file, so concurrent sessions and CLI calls never lose each other's entries. A
missing file holds nothing; an unreadable or malformed one is an error naming the file, never
silently emptied.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

STORE_NAME = "held_memory_writes.json"

try:
    import fcntl
except ImportError:  # Windows: changes are still atomic, only not serialized between processes
    fcntl = None  # type: ignore[assignment]


class HeldWriteError(RuntimeError):
    """The store cannot be read or has no entry with that id."""


def store_path(home: Path) -> Path:
    return home / STORE_NAME


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = os.open(home / f"{STORE_NAME}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        os.close(lock)  # closing releases the lock


def _read(home: Path) -> dict[str, dict[str, Any]]:
    path = store_path(home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise HeldWriteError(f"cannot read held memory writes from {path}: {exc}") from exc
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise HeldWriteError(f"{path} is not a JSON object of held writes; fix or remove it")
    return data


def _write(home: Path, entries: dict[str, dict[str, Any]]) -> None:
    fd, tmp = tempfile.mkstemp(dir=home, prefix=".held-", suffix=".json")  # created 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(entries, fh, indent=1, ensure_ascii=False)  # insertion order: oldest first
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, store_path(home))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def hold(home: Path, *, session: str, turn: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Record one write; returns its entry (``id``, ``session``, ``turn``, ``tool``, ``arguments``, ``held_at``)."""
    entry = {
        "id": uuid.uuid4().hex[:10], "session": session, "turn": turn, "tool": tool, "arguments": arguments,
        "held_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    with _locked(home):
        entries = _read(home)
        entries[entry["id"]] = entry
        _write(home, entries)
    return entry


def pending(home: Path) -> list[dict[str, Any]]:
    """Every held write, oldest first."""
    if not store_path(home).exists():
        return []
    with _locked(home):
        return list(_read(home).values())


def take(home: Path, write_id: str) -> dict[str, Any]:
    """Remove and return one held write (to apply it or drop it); an unknown id is an error listing the known ones."""
    if not store_path(home).exists():  # nothing held: create neither the directory nor the lock
        raise HeldWriteError(f"no held memory write with id {write_id!r} (held: none)")
    with _locked(home):
        entries = _read(home)
        entry = entries.pop(write_id, None)
        if entry is None:
            known = ", ".join(sorted(entries)) or "none"
            raise HeldWriteError(f"no held memory write with id {write_id!r} (held: {known})")
        _write(home, entries)
    return entry


def put_back(home: Path, entry: dict[str, Any]) -> None:
    """Return an entry taken by :func:`take` whose write could not run (nothing acknowledged is lost)."""
    with _locked(home):
        entries = _read(home)
        entries[str(entry["id"])] = entry
        _write(home, entries)

"""Copy MEMORY.md / USER.md between the files and PostgreSQL, byte for byte, verified.

The text moves verbatim (a hand-edited file that would not round-trip stays as it is, for
the store to refuse and back up as it would on disk). Safe to re-run: a destination that
already holds the same text is left alone; one that holds different text is refused
unless ``overwrite`` is given, so a re-run never clobbers writes made since.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hermes_core.storage.migration import MigrationError, MigrationRequest
from hermes_memory_builtin.pg_store import PgMemoryStore
from hermes_memory_builtin.store import FILES, MemoryStore, MemoryStoreError, parse

TARGETS = ("memory", "user")


class MemoryTransferError(Exception):
    """The destination holds different memory; nothing was overwritten."""


@dataclass
class TargetReport:
    target: str
    action: str  # copied | same | absent
    entries: int
    chars: int
    verified: bool


def to_postgres(files: MemoryStore, pg: PgMemoryStore, *, overwrite: bool = False) -> list[TargetReport]:
    reports = []
    for target in TARGETS:
        text = files.read_text(target)
        there = pg.read_text(target)
        action = _decide(text, there, target, f"namespace {pg.namespace!r}", overwrite)
        if action == "copied":
            pg.replace_text(target, text)
        verified = pg.read_text(target) == text
        if not verified:
            raise MemoryTransferError(f"verification failed: {FILES[target]} in PostgreSQL differs from the file")
        reports.append(TargetReport(target, action, len(parse(text)), len(text), verified))
    return reports


def to_files(pg: PgMemoryStore, files: MemoryStore, *, overwrite: bool = False) -> list[TargetReport]:
    reports = []
    for target in TARGETS:
        text = pg.read_text(target)
        path = files.path(target)
        there = files.read_text(target)
        action = _decide(text, there, target, str(path), overwrite)
        if action == "copied":
            _write_atomic(path, text)
        verified = files.read_text(target) == text
        if not verified:
            raise MemoryTransferError(f"verification failed: {path} differs from PostgreSQL")
        reports.append(TargetReport(target, action, len(parse(text)), len(text), verified))
    return reports


def _decide(text: str, there: str, target: str, where: str, overwrite: bool) -> str:
    if text == there:
        return "same" if text else "absent"
    if there and not overwrite:
        raise MemoryTransferError(
            f"{FILES[target]} at {where} already holds different entries; refusing to overwrite them "
            "(pass --overwrite to replace them with the source's)."
        )
    return "copied"


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if text:
            os.replace(tmp, path)
        else:
            os.unlink(tmp)
            path.unlink(missing_ok=True)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def as_dicts(reports: list[TargetReport]) -> list[dict[str, object]]:
    return [asdict(r) for r in reports]


class MemoryMigration:
    """``hermes-core storage migrate`` for MEMORY.md / USER.md (entry point ``hermes.storage_migrations``)."""

    name = "memory"

    def _stores(self, request: MigrationRequest) -> tuple[MemoryStore, PgMemoryStore]:
        mem = request.config.memory
        limits = {"memory": mem.memory_char_limit, "user": mem.user_char_limit}
        return MemoryStore(request.home / "memories", limits), PgMemoryStore(request.storage, limits)

    def copy(self, to: str, request: MigrationRequest) -> dict[str, Any]:
        files, pg = self._stores(request)
        try:
            reports = (to_postgres(files, pg, overwrite=request.overwrite) if to == "postgres"
                       else to_files(pg, files, overwrite=request.overwrite))
        except (MemoryTransferError, MemoryStoreError) as exc:
            raise MigrationError(str(exc)) from None
        return {"targets": as_dicts(reports), "verified": all(r.verified for r in reports)}

    def status(self, request: MigrationRequest) -> dict[str, Any]:
        _, pg = self._stores(request)
        try:
            return {"entries": {t: len(pg.entries(t)) for t in TARGETS}}
        except MemoryStoreError as exc:
            raise MigrationError(str(exc)) from None

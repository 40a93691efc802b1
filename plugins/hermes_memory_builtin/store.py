"""MEMORY.md / USER.md on disk: the file format, the lock, the atomic write.

Several agent processes may share one ``$HERMES_HOME`` (gateway, cron, CLI), so every
mutation takes an exclusive ``flock`` on a sidecar ``<file>.lock``, re-reads the file under
it, and replaces the file atomically (temp file in the same directory, fsync, rename,
fsync of the directory). Readers take no lock: a rename is atomic, so they see either the
old or the new file, never a partial one. ``flock`` locks die with their process, so a
lock left behind by a crashed writer never blocks anyone.
"""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

ENTRY_DELIMITER = "\n§\n"
FILES = {"memory": "MEMORY.md", "user": "USER.md"}
LOCK_TIMEOUT_S = 10.0

T = TypeVar("T")


class MemoryStoreError(Exception):
    """A store operation could not run; ``details`` go into the tool result."""

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.details = details


class MemoryFileError(MemoryStoreError):
    """The file on disk cannot be used as it is (not UTF-8, or it would not round-trip)."""


class MemoryWriteError(MemoryStoreError):
    """The disk refused the write (read-only, full, locked); nothing was changed."""


def parse(text: str) -> list[str]:
    """Entries of a store file: split on the full delimiter, strip, drop empties.

    Windows line endings are read as ``\n`` (a file saved by a Windows editor still
    reads right); such a file does not round-trip, so writes refuse it until fixed.
    """
    return [e.strip() for e in text.replace("\r\n", "\n").split(ENTRY_DELIMITER) if e.strip()]


def serialize(entries: list[str]) -> str:
    return ENTRY_DELIMITER.join(entries)


def joined_size(entries: list[str]) -> int:
    """What the char limit counts: characters of the joined entries."""
    return len(serialize(entries))


def entry_problem(content: str) -> str | None:
    """Why ``content`` could not be stored as one entry that reads back unchanged."""
    if "\r" in content:
        return "it contains a carriage return"
    if any(line == "§" for line in content.split("\n")):
        return "it contains a line with only '§', which is the entry separator"
    return None


def drift_reason(text: str) -> str | None:
    """Why a file's text would not survive parse + serialize unchanged, or ``None``.

    Size is not drift: an entry longer than the limit (the limit was lowered, or the file
    edited) round-trips fine, and the operations let an over-limit store shrink.
    """
    entries = parse(text)
    if "\r" in text:
        return "it has Windows (CRLF) line endings or stray carriage returns"
    if serialize(entries) != text.strip():
        return "it has empty entries or whitespace around entries that would be rewritten"
    if any(entry_problem(entry) for entry in entries):
        return "an entry contains a line with only '§'"
    return None


class MemoryStore:
    """The two memory files under one directory, with per-target char limits."""

    def __init__(self, directory: Path, limits: Mapping[str, int], *, lock_timeout: float = LOCK_TIMEOUT_S) -> None:
        self.directory = directory
        self.limits = dict(limits)
        self.lock_timeout = lock_timeout

    def path(self, target: str) -> Path:
        return self.directory / FILES[target]

    # -- reading --------------------------------------------------------------------

    def read_text(self, target: str) -> str:
        """The file's text; ``""`` when it does not exist. Raises on non-UTF-8 bytes."""
        path = self.path(target)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise MemoryFileError(f"Cannot read {path}: {exc.strerror or exc}.") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MemoryFileError(
                f"{path.name} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}).",
                remediation=f"Fix the encoding of {path} (or move it away) and retry; it was left untouched.",
            ) from None

    def entries(self, target: str) -> list[str]:
        return parse(self.read_text(target))

    # -- writing --------------------------------------------------------------------

    def mutate(self, target: str, change: Callable[[list[str]], tuple[list[str], T]]) -> T:
        """Apply ``change`` to the entries on disk under the lock, then save atomically.

        ``change`` gets the freshly re-read entries and returns ``(new entries, result)``;
        it may raise to refuse, in which case nothing is written. A file that does not
        round-trip is backed up and refused instead of being silently rewritten.
        """
        path = self.path(target)
        self._ensure_directory()
        with self._locked(path):
            self._remove_stale_temp_files(path)
            try:
                text = self.read_text(target)
            except MemoryFileError as exc:
                backup = self._backup(path)
                raise MemoryFileError(f"Refusing to write {path.name}: {exc}", backup=str(backup),
                                      **exc.details) from None
            reason = drift_reason(text)
            if reason:
                backup = self._backup(path)
                raise MemoryFileError(
                    f"Refusing to write {path.name}: the file on disk was edited so that it would not "
                    f"round-trip ({reason}).",
                    backup=str(backup),
                    remediation=(
                        f"Edit {path} so entries are separated by a line containing only '§', with no empty "
                        f"entries; then retry. "
                        f"A copy of the current file is at {backup}."
                    ),
                )
            before = parse(text)
            after, result = change(list(before))
            if after != before:
                self._write_atomic(path, serialize(after) + "\n" if after else "")
            return result

    def _ensure_directory(self) -> None:
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise MemoryWriteError(
                f"Cannot create the memory directory {self.directory}: {exc.strerror or exc}. Nothing was saved."
            ) from None

    @contextmanager
    def _locked(self, path: Path) -> Iterator[None]:
        """Hold exclusive flocks on the memory directory and on ``<file>.lock``.

        The sidecar ``.lock`` is the documented lock other tools use. It alone is not
        enough: if someone deletes it as "stale" while a writer holds it, the next writer
        locks a fresh file and both write at once, losing entries. The directory cannot
        be removed that way, so every writer here also locks it first.
        """
        deadline = time.monotonic() + self.lock_timeout
        dir_fd = self._flock(self.directory, os.O_RDONLY, deadline, path)
        try:
            lock_fd = self._flock(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, deadline, path)
            try:
                yield
            finally:
                os.close(lock_fd)  # closing a descriptor releases its lock
        finally:
            os.close(dir_fd)

    def _flock(self, target: Path, flags: int, deadline: float, path: Path) -> int:
        """Open ``target`` and take an exclusive flock on it, polling until ``deadline``."""
        try:
            fd = os.open(target, flags, 0o600)
        except OSError as exc:
            raise MemoryWriteError(f"Cannot open the lock {target}: {_describe(exc)}. Nothing was saved.") from None
        delay = 0.0002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise MemoryWriteError(
                        f"{path.name} is locked by another live process (waited {self.lock_timeout:g}s on "
                        f"{target}). Nothing was saved; retry shortly."
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.001)

    def _write_atomic(self, path: Path, text: str) -> None:
        tmp = ""
        try:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # mode 0600
            with os.fdopen(fd, "wb") as handle:
                handle.write(text.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
            tmp = ""
            _fsync_directory(path.parent)
        except OSError as exc:
            raise MemoryWriteError(
                f"Could not save {path.name}: {_describe(exc)}. The file on disk was not changed."
            ) from None
        finally:
            if tmp:
                _unlink_quietly(Path(tmp))

    def _remove_stale_temp_files(self, path: Path) -> None:
        """Temp files only exist while a writer holds the lock; we hold it, so these are dead."""
        for leftover in path.parent.glob(f".{path.name}.*.tmp"):
            _unlink_quietly(leftover)

    def _backup(self, path: Path) -> Path:
        """Copy ``path`` aside once per distinct content; reuse an identical earlier copy."""
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise MemoryWriteError(
                f"Cannot read {path} to back it up: {_describe(exc)}. It was left untouched."
            ) from None
        for existing in sorted(path.parent.glob(f"{path.name}.bak.*")):
            try:
                if existing.read_bytes() == data:
                    return existing
            except OSError:
                continue
        backup = path.with_name(f"{path.name}.bak.{time.strftime('%Y%m%dT%H%M%S')}")
        n = 1
        while backup.exists():
            backup = path.with_name(f"{path.name}.bak.{time.strftime('%Y%m%dT%H%M%S')}.{n}")
            n += 1
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            raise MemoryWriteError(
                f"{path.name} needs repair, and backing it up to {backup} failed: {_describe(exc)}. "
                "The file was left untouched."
            ) from None
        return backup


def _describe(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if exc.errno == errno.EFBIG:
        return "the file size limit was exceeded"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied (the memory directory is not writable)"
    return exc.strerror or str(exc)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass

"""MEMORY.md / USER.md on disk: the file format, the lock, the atomic write.

Several agent processes may share one ``$HERMES_HOME`` (gateway, cron, CLI), so every
mutation takes one exclusive ``flock`` on the memory directory, re-reads the file under
it, and replaces the file atomically (a fixed temp name in the same directory, fsync,
rename). The directory is fsynced once the lock is released and before the write is
reported done, so the next writer's file fsync and this one's directory fsync can share
a journal commit. That is the whole critical section: one lock, one read, one fsync, one
rename. Readers take no lock: a rename is atomic, so they see either the old or the new
file, never a partial one. ``flock`` locks die with their process, so a crashed writer
never blocks anyone, and there is no lock file anyone could delete as "stale".

The files are opened without following symlinks and only when they are regular files
(a FIFO would hang, a link could pull in ``/etc/passwd``), with a size cap.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from hermes_core.text.files import FileRefused, decode_utf8, keep_owner, read_bytes_file, write_durably

ENTRY_DELIMITER = "\n§\n"
SEPARATOR_LINE = re.compile(r"^§$", re.MULTILINE)
FILES = {"memory": "MEMORY.md", "user": "USER.md"}
LOCK_TIMEOUT_S = 10.0
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
POLL_START_S, POLL_MAX_S = 0.0001, 0.0003
MAX_FILE_BYTES = 64 * 1024 * 1024  # far past any limit; a bigger file is not a memory store

T = TypeVar("T")


class MemoryStoreError(Exception):
    """A store operation could not run; ``details`` go into the tool result."""

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.details = details


class MemoryFileError(MemoryStoreError):
    """The file on disk cannot be used as it is (not UTF-8, or it would not round-trip)."""


class MemoryFileRefused(MemoryFileError):
    """The path is not a usable file at all (a symlink, FIFO, device, too large): never backed up."""


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
    if SEPARATOR_LINE.search(content):
        return "it contains a line with only '§', which is the entry separator"
    return None


def drift_reason(text: str, entries: list[str] | None = None) -> str | None:
    """Why a file's text would not survive parse + serialize unchanged, or ``None``.

    Size is not drift: an entry longer than the limit (the limit was lowered, or the file
    edited) round-trips fine, and the operations let an over-limit store shrink.
    """
    entries = parse(text) if entries is None else entries
    if "\r" in text:
        return "it has Windows (CRLF) line endings or stray carriage returns"
    if serialize(entries) != text.strip():
        return "it has empty entries or whitespace around entries that would be rewritten"
    if text.count("§") > len(entries) - 1 and any(entry_problem(e) for e in entries if "§" in e):
        return "an entry contains a line with only '§'"
    return None


class MemoryStore:
    """The two memory files under one directory, with per-target char limits."""

    def __init__(self, directory: Path, limits: Mapping[str, int], *, lock_timeout: float = LOCK_TIMEOUT_S) -> None:
        self.directory = directory
        self.limits = dict(limits)
        self.lock_timeout = lock_timeout
        self._known: dict[str, tuple[bytes, tuple[str, ...]]] = {}  # what this store last wrote, per target

    def path(self, target: str) -> Path:
        return self.directory / FILES[target]

    # -- reading --------------------------------------------------------------------

    def read_text(self, target: str) -> str:
        """The file's text; ``""`` when it does not exist. Raises on anything that is not a
        regular UTF-8 file of sane size (a leading byte-order mark is dropped)."""
        path = self.path(target)
        return self._decode(path, self._read_bytes(path))

    @staticmethod
    def _read_bytes(path: Path) -> bytes:
        try:
            return read_bytes_file(path, max_bytes=MAX_FILE_BYTES, follow_symlinks=False)
        except FileNotFoundError:
            return b""
        except FileRefused as exc:
            raise MemoryFileRefused(f"Cannot use {exc}. It was left untouched.",
                                    remediation=exc.fix or f"Fix {path} and retry.") from None
        except OSError as exc:
            raise MemoryFileError(f"Cannot read {path}: {exc.strerror or exc}.") from None

    @staticmethod
    def _decode(path: Path, data: bytes) -> str:
        try:
            return decode_utf8(data, path)
        except FileRefused:
            bad = _first_bad_byte(data)
            raise MemoryFileError(
                f"{path.name} is not valid UTF-8 (byte 0x{data[bad]:02x} at offset {bad}).",
                remediation=f"Fix the encoding of {path} (or move it away) and retry; it was left untouched.",
            ) from None

    def entries(self, target: str) -> list[str]:
        return parse(self.read_text(target))

    # -- writing --------------------------------------------------------------------

    def mutate(self, target: str, change: Callable[[list[str]], tuple[list[str], T]]) -> T:
        """Apply ``change`` to the entries on disk under the lock, then save atomically.

        ``change`` gets the freshly re-read entries and returns ``(new entries, result)``;
        it may raise to refuse, in which case nothing is written. A file that does not
        round-trip is backed up and refused instead of being silently rewritten. Returns
        only once the change is durable (file and directory fsynced).
        """
        path = self.path(target)
        self._ensure_directory()
        dir_fd = self._lock_directory(path)
        try:
            try:
                before = self._entries_under_lock(target)
                after, result = change(list(before))
                if after != before:
                    data = (serialize(after) + "\n").encode("utf-8") if after else b""
                    self._write_atomic(path, data)
            finally:
                fcntl.flock(dir_fd, fcntl.LOCK_UN)
            if after != before:
                self._sync_directory(dir_fd, path)
                self._remember(target, data, after, before)
            return result
        finally:
            os.close(dir_fd)

    def _entries_under_lock(self, target: str) -> list[str]:
        """The entries on disk now (the re-read a writer must do under the lock).

        When the bytes are exactly what this store last wrote, their entries are already
        known and checked, so the decode, parse and round-trip check are skipped.
        """
        path = self.path(target)
        try:
            data = self._read_bytes(path)
        except MemoryFileRefused as exc:
            raise MemoryFileRefused(f"Refusing to write {path.name}: {exc}", **exc.details) from None
        known = self._known.get(target)
        if known is not None and known[0] == data:
            return list(known[1])
        try:
            text = self._decode(path, data)
        except MemoryFileError as exc:
            backup = self._backup(path)
            raise MemoryFileError(f"Refusing to write {path.name}: {exc}", backup=str(backup), **exc.details) from None
        before = parse(text)
        reason = drift_reason(text, before)
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
        return before

    def _remember(self, target: str, data: bytes, after: list[str], before: list[str]) -> None:
        """Keep what was just written when it reads back as exactly ``after`` (outside the lock).

        ``before`` was read back and checked, so only the entries new in ``after`` need the
        check: stripped, not empty, and nothing in them that parses as a separator.
        """
        known = set(before)
        if all(e and e == e.strip() and entry_problem(e) is None for e in after if e not in known):
            self._known[target] = (data, tuple(after))
        else:
            self._known.pop(target, None)

    def _ensure_directory(self) -> None:
        if self.directory.is_dir():
            return
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(self.directory, os.O_RDONLY)
            try:
                keep_owner(fd, self.directory.parent)
            finally:
                os.close(fd)
        except OSError as exc:
            raise MemoryWriteError(
                f"Cannot create the memory directory {self.directory}: {exc.strerror or exc}. Nothing was saved."
            ) from None

    def _lock_directory(self, path: Path) -> int:
        """Open the memory directory and take an exclusive flock on it within the lock timeout.

        The directory is the one lock: unlike a sidecar lock file, nobody can delete it
        (as "stale") while a writer holds it, which let a second writer in and lost entries.
        It covers both files; their writes are short.
        """
        try:
            fd = os.open(self.directory, DIRECTORY_FLAGS)
        except OSError as exc:
            raise MemoryWriteError(f"Cannot open the memory directory {self.directory} to lock it: "
                                   f"{_describe(exc)}. Nothing was saved.") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            pass
        except OSError as exc:
            os.close(fd)
            raise MemoryWriteError(f"Cannot lock {self.directory}: {_describe(exc)}. Nothing was saved.") from None
        if _wait_for_flock(fd, self.lock_timeout):
            return fd
        os.close(fd)
        raise MemoryWriteError(
            f"{path.name} is locked by another live process (waited {self.lock_timeout:g}s on the "
            f"lock of {self.directory}). Nothing was saved; retry shortly."
        )

    def _write_atomic(self, path: Path, data: bytes) -> None:
        """Write a fixed temp name, fsync it, rename it over ``path``.

        Only the lock holder writes, so one fixed name is enough: a temp file left by a
        writer killed mid-write is truncated and reused by the next one, with no directory
        listing. A write as root keeps the file owned by the owner of the file (or of its
        directory), so the user can still read their memory.
        """
        tmp = path.with_name(f".{path.name}.write.tmp")
        created = False
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            created = True
            try:
                keep_owner(fd, path)
                write_durably(fd, data)
            finally:
                os.close(fd)
            os.replace(tmp, path)
            created = False
        except OSError as exc:
            raise MemoryWriteError(
                f"Could not save {path.name}: {_describe(exc)}. The file on disk was not changed."
            ) from None
        finally:
            if created:
                _unlink_quietly(tmp)

    def _sync_directory(self, dir_fd: int, path: Path) -> None:
        """Make the rename durable. Outside the lock: every file this directory names was
        fsynced before its rename, so any later state this flushes is a complete one."""
        try:
            os.fsync(dir_fd)
        except OSError as exc:
            raise MemoryWriteError(
                f"{path.name} was replaced, but the directory could not be flushed ({_describe(exc)}): "
                "the change may not survive a crash. Retry to be sure."
            ) from None

    def _backup(self, path: Path) -> Path:
        """Copy ``path`` aside once per distinct content; reuse an identical earlier copy."""
        try:
            data = read_bytes_file(path, max_bytes=MAX_FILE_BYTES, follow_symlinks=False)
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
            keep_owner(fd, path)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            raise MemoryWriteError(
                f"{path.name} needs repair, and backing it up to {backup} failed: {_describe(exc)}. "
                "The file was left untouched."
            ) from None
        return backup


def _wait_for_flock(fd: int, timeout: float) -> bool:
    """Poll for the flock (every 0.1 ms at first, backing off to 0.3 ms) until ``timeout``.

    Polling measured faster than blocking: with 8 writers on a busy 2-core machine, a
    blocking ``flock`` on a helper thread (needed to honour the timeout) gave half the
    adds/s, each hand-over waiting for two threads to be scheduled.
    """
    deadline = time.monotonic() + timeout
    delay = POLL_START_S
    while True:
        time.sleep(delay)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            delay = min(delay * 2, POLL_MAX_S)


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


def _first_bad_byte(data: bytes) -> int:
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
    return 0


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass

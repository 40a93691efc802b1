"""Reading a file that someone else may have put there: checked before it is read.

Files under ``$HERMES_HOME`` or in a project (memory, config, context files, skills,
snapshots) can be anything a path can name. Opening a FIFO blocks until a writer comes; a
device such as ``/dev/zero`` never ends; a symlink can pull ``/etc/passwd`` into a prompt.
:func:`read_text_file` opens non-blocking, refuses what is not a regular file, optionally
refuses symlinks (``O_NOFOLLOW``) or links leaving a directory, reads at most ``max_bytes``
whatever ``st_size`` claims, and strips a UTF-8 byte-order mark. Every refusal is one
:class:`FileRefused` naming the file, what is wrong and how to fix it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

DEFAULT_MAX_BYTES = 4 * 1024 * 1024

__all__ = ["DEFAULT_MAX_BYTES", "FileRefused", "decode_utf8", "file_kind", "keep_owner", "read_bytes_file",
           "read_text_file"]


class FileRefused(OSError):
    """A file that exists but cannot be used as it is; ``str()`` is ``"<path>: <problem>; <fix>"``.

    An ``OSError`` so callers that already handle unreadable files handle this too.
    """

    def __init__(self, path: Path | str, problem: str, fix: str = "") -> None:
        self.path = Path(path)
        self.problem = problem
        self.fix = fix
        super().__init__(f"{self.path}: {problem}" + (f"; {fix}" if fix else ""))

    def __str__(self) -> str:
        return str(self.args[0])


def file_kind(mode: int) -> str:
    """What a non-regular file is, for messages: ``a FIFO``, ``a directory``..."""
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))
    return next((kind for test, kind in kinds if test(mode)), "a special file")


def _check_link(path: Path, follow_symlinks: bool, within: Path | None) -> None:
    """Refuse ``path`` if it is a symlink we must not follow, or one that leaves ``within``."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise
    except OSError:
        return  # the open below reports it with its own error
    if not stat.S_ISLNK(st.st_mode):
        return
    target = os.readlink(path)
    if not follow_symlinks:
        raise FileRefused(path, f"a symbolic link (to {target}), which is not followed here",
                          f"remove the link (rm '{path}'), or if you made it, replace it with a copy of its "
                          f"target (cp --remove-destination '{target}' '{path}')")
    resolved = Path(os.path.realpath(path))
    if not resolved.exists():
        raise FileRefused(path, f"a dangling symbolic link (to {target})", "remove it or point it at a file")
    if within is not None:
        root = Path(os.path.realpath(within))
        if resolved != root and root not in resolved.parents and resolved.is_file():  # (a device: "not regular")
            raise FileRefused(path, f"a symbolic link to {resolved}, outside {root}",
                              f"copy the file into {root} instead of linking to it")


def read_bytes_file(path: Path | str, *, max_bytes: int = DEFAULT_MAX_BYTES, follow_symlinks: bool = True,
                    within: Path | None = None) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes``.

    Raises ``FileNotFoundError`` when nothing is there (callers usually treat that as
    empty), :class:`FileRefused` when something unusable is, and ``OSError`` for the rest
    (permission denied...). ``follow_symlinks=False`` refuses any symlink; ``within``
    refuses a link whose target is outside that directory.
    """
    path = Path(path)
    if follow_symlinks:  # without following, O_NOFOLLOW refuses a link in the open itself
        _check_link(path, follow_symlinks, within)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            _check_link(path, follow_symlinks, within)  # raises, naming the link's target
            raise FileRefused(path, "a symbolic link, which is not followed here",
                              "replace the link with a regular file") from None
        if isinstance(exc, PermissionError):
            raise FileRefused(path, f"permission denied ({_owner_note(path)})",
                              f"make it readable by you (chown {os.getuid()} '{path}'; chmod u+r '{path}')") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(path, f"not a regular file ({file_kind(st.st_mode)})",
                              "replace it with a regular file or remove it")
        if st.st_size > max_bytes:
            raise FileRefused(path, f"too large ({st.st_size:,} bytes; limit {max_bytes:,})",
                              "shorten it or move it away")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:  # st_size understated it (/proc files say 0)
        raise FileRefused(path, f"too large (more than {max_bytes:,} bytes, though its size says {st.st_size:,})",
                          "shorten it or move it away")
    return data


def read_text_file(path: Path | str, *, max_bytes: int = DEFAULT_MAX_BYTES, follow_symlinks: bool = True,
                   within: Path | None = None) -> str:
    """:func:`read_bytes_file` decoded as UTF-8 with any byte-order mark removed."""
    data = read_bytes_file(path, max_bytes=max_bytes, follow_symlinks=follow_symlinks, within=within)
    return decode_utf8(data, Path(path))


def decode_utf8(data: bytes, path: Path) -> str:
    """UTF-8 without a leading BOM; :class:`FileRefused` naming the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)  # offsets count after the BOM
        raise FileRefused(path, f"not UTF-8 (invalid byte 0x{data[at]:02x} at offset {at})",
                          "re-save it as UTF-8 or move it away") from None


def _owner_note(path: Path) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "cannot stat it"
    return f"owner uid {st.st_uid}, mode {stat.S_IMODE(st.st_mode):o}; you are uid {os.geteuid()}"


def keep_owner(fd: int, existing: Path) -> None:
    """Give the new file behind ``fd`` the owner of ``existing`` (or of its directory).

    Only root can, and only root needs to: ``sudo hermes-core memory add`` in a user's
    home would otherwise leave a root-owned 0600 file its owner can no longer read.
    """
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    for reference in (existing, existing.parent):
        try:
            st = os.stat(reference)
        except OSError:
            continue
        if st.st_uid != 0 or st.st_gid != 0:
            os.fchown(fd, st.st_uid, st.st_gid)
        return


def write_durably(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less than asked) and fsync it,
    so a rename that follows never exposes a short or empty file after a crash."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)

"""One live engine per (store, session): an advisory lock file, released when its process dies.

Layouts and summary roots are kept per session id, so two engines writing one session would
hand each other their summaries. ``flock`` is per open file, so a second engine in the same
process is refused too, and the kernel drops the lock of a process that crashed.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

log = logging.getLogger("hermes_context_lcm")


class SessionLock:
    """A held lock (``fd`` None: the platform or the directory cannot lock; not guarded)."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    @classmethod
    def acquire(cls, directory: Path, key: str) -> SessionLock | None:
        """The lock for ``key``, or None while another live engine holds it."""
        path = directory / f"{hashlib.sha1(key.encode('utf-8', 'surrogatepass')).hexdigest()[:24]}.lock"
        try:
            import fcntl
        except ImportError:  # not POSIX: sessions are not guarded
            return cls(path, None)
        try:
            from hermes_context_lcm.store import private_dir

            private_dir(directory)
            while True:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    return None
                # A holder that released between our open and our flock unlinked this file.
                try:
                    if os.fstat(fd).st_ino == os.stat(path).st_ino:
                        return cls(path, fd)
                except FileNotFoundError:
                    pass
                os.close(fd)
        except OSError as exc:
            log.warning("LCM: cannot lock %s (%s); this session is not guarded against a second process",
                        path, exc)
            return cls(path, None)

    def release(self) -> None:
        """Unlink while still holding, then close: a waiter never locks a file that is gone."""
        if self.fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(self.fd)
            self.fd = None

    __del__ = release  # an engine dropped without close() or on_session_end() lets go too

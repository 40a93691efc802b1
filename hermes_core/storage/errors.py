"""One error type for the storage backends, with a ``kind`` callers can branch on."""

from __future__ import annotations

KINDS = ("unavailable", "auth", "config", "schema", "busy", "missing_driver", "other")


class StorageError(Exception):
    """The database cannot be used; the message says what is wrong and what to do.

    ``kind``: ``unavailable`` (server down or unreachable, restart), ``auth`` (wrong user or
    password), ``config`` (no DSN, bad DSN), ``schema`` (written by a newer hermes-core),
    ``busy`` (pool exhausted or lock wait too long), ``missing_driver`` (psycopg not
    installed), ``other``. ``retryable`` is true only where repeating the same call is safe.
    """

    def __init__(self, message: str, kind: str = "other") -> None:
        super().__init__(message)
        self.kind = kind

    @property
    def retryable(self) -> bool:
        return self.kind in ("unavailable", "busy")

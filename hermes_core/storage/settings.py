"""From the ``storage:`` section to what a backend needs: the DSN and the namespace.

The DSN lives in an environment variable (``storage.dsn_env``), so config.yaml can be
shared and committed without a password in it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermes_core.storage.errors import StorageError

if TYPE_CHECKING:
    from hermes_core.config.models import StorageConfig

_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


@dataclass(frozen=True)
class PostgresTarget:
    """A database and the tenant inside it."""

    dsn: str
    namespace: str
    pool_size: int = 8

    @property
    def display(self) -> str:
        """The DSN with any password masked, for messages and logs."""
        return redact_dsn(self.dsn)


def redact_dsn(dsn: str) -> str:
    masked = _PASSWORD.sub(r"\1***@", dsn)
    return re.sub(r"(password\s*=\s*)\S+", r"\1***", masked)


def uses_postgres(storage: StorageConfig) -> bool:
    return storage.backend == "postgres"


def postgres_target(storage: StorageConfig, environ: dict[str, str] | None = None) -> PostgresTarget:
    """The target named by ``storage``; :class:`StorageError` when the variable is unset."""
    env = os.environ if environ is None else environ
    dsn = env.get(storage.dsn_env, "").strip()
    if not dsn:
        raise StorageError(
            f"storage.backend is 'postgres' but the environment variable {storage.dsn_env} (storage.dsn_env) "
            "is not set; set it to a postgresql://user:password@host:port/dbname URL",
            kind="config",
        )
    return PostgresTarget(dsn=dsn, namespace=storage.namespace, pool_size=storage.pool_size)

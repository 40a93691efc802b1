"""How data moves between backends: a small protocol plugins implement, found by entry point.

The core knows neither MEMORY.md nor ``lcm.db``; the plugins that own the data do. Each
registers a :class:`StorageMigration` under the entry-point group
``hermes.storage_migrations`` (as engines and providers register under theirs), and
``hermes-core storage migrate`` runs every one it finds. A third-party store moves with
the same command by registering its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig, StorageConfig

GROUP = "hermes.storage_migrations"
Direction = Literal["postgres", "files"]


class MigrationError(Exception):
    """A copy that cannot go on without overwriting or losing something; nothing was overwritten."""


@dataclass(frozen=True)
class MigrationRequest:
    """What a migration needs: the config (for limits, paths), the target, the home, the policy."""

    config: HermesConfig
    storage: StorageConfig
    home: Path
    overwrite: bool = False
    progress: Callable[[str, int, int], None] | None = None


class StorageMigration(Protocol):
    """Copies one kind of data; verifies what it copied; safe to re-run."""

    name: str

    def copy(self, to: Direction, request: MigrationRequest) -> dict[str, Any]:
        """Copy to the ``to`` backend and return a JSON-able report (with ``verified``)."""
        ...

    def status(self, request: MigrationRequest) -> dict[str, Any]:
        """What the PostgreSQL namespace holds of this data (counts)."""
        ...


def discover() -> tuple[list[StorageMigration], list[str]]:
    """Every installed migration, and one line per entry point that failed to load."""
    from importlib.metadata import entry_points

    found: list[StorageMigration] = []
    problems: list[str] = []
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        try:
            obj = ep.load()
            found.append(obj() if isinstance(obj, type) else obj)
        except Exception as exc:  # a broken plugin must not stop the others' data from moving
            problems.append(f"storage migration {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}")
    return found, problems

"""Versioned schema per component, created and migrated by the code, never by hand.

Each component (``memory``, ``lcm``) lists its migrations in order; migration ``n`` takes
the schema from version ``n`` to ``n + 1``. ``hermes_schema`` records the version each
component is at. Migrations run in one transaction under a global advisory lock, so
hosts starting together do not race, and a half-applied migration is rolled back whole.
A database at a version this code does not know (written by a newer hermes-core) is
refused, not "repaired".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_core.storage.errors import StorageError
from hermes_core.storage.locks import advisory_key

if TYPE_CHECKING:
    import psycopg

SCHEMA_LOCK = advisory_key("hermes-core", "schema")

VERSIONS_TABLE = """
CREATE TABLE IF NOT EXISTS hermes_schema (
    component text PRIMARY KEY,
    version integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
)"""


@dataclass(frozen=True)
class Component:
    """A named set of tables and its migrations (``migrations[n]``: version n -> n + 1)."""

    name: str
    migrations: Sequence[str]

    @property
    def latest(self) -> int:
        return len(self.migrations)


def current_version(conn: psycopg.Connection[Any], component: str) -> int:
    exists = conn.execute("SELECT to_regclass('hermes_schema') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return 0
    row = conn.execute("SELECT version FROM hermes_schema WHERE component = %s", (component,)).fetchone()
    return int(row[0]) if row else 0


def migrate(conn: psycopg.Connection[Any], component: Component) -> int:
    """Bring ``component`` to its latest version inside the caller's transaction; the version."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
    conn.execute(VERSIONS_TABLE)
    version = current_version(conn, component.name)
    if version > component.latest:
        raise StorageError(
            f"the database holds {component.name} schema version {version}, but this hermes-core knows only up to "
            f"version {component.latest}: it was written by a newer hermes-core. Upgrade hermes-core on this host "
            "(a newer schema is never rewritten by older code).",
            kind="schema",
        )
    for step in range(version, component.latest):
        conn.execute(component.migrations[step].encode())  # no parameters: several statements are fine
    if version != component.latest:
        conn.execute(
            "INSERT INTO hermes_schema (component, version) VALUES (%s, %s) "
            "ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, updated_at = now()",
            (component.name, component.latest),
        )
    return component.latest

"""One-time migrations of config.yaml that plugins offer (``hermes_config_migrations``)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hermes_core.config.models import applied_migrations, record_migrations, write_raw_config
from hermes_core.records import ConfigMigration

log = logging.getLogger("hermes_core")


def apply_config_migrations(home: Path, raw: dict[str, Any], migrations: Iterable[ConfigMigration]) -> list[str]:
    """Apply each migration not yet recorded for ``home``; persist config and ids if any applied.

    A migration whose ``apply`` returns False (nothing to migrate yet) is not recorded, so
    it is offered again next time; one that applied never runs again.
    """
    done = applied_migrations(home)
    ran = []
    for migration in migrations:
        if migration.id in done:
            continue
        try:
            applied = bool(migration.apply(raw))
        except Exception as exc:
            log.warning("config migration %s failed: %s: %s", migration.id, type(exc).__name__, exc)
            continue
        if applied:
            done.add(migration.id)
            ran.append(migration.id)
    if ran:
        path = home / "config.yaml"
        backup = path.with_name("config.yaml.pre-migration")
        if path.exists() and not backup.exists():  # the rewrite drops YAML comments: keep the original
            backup.write_bytes(path.read_bytes())
        write_raw_config(path, raw)
        record_migrations(home, done)
        log.warning("config migration(s) %s applied to %s (original kept as %s)", ", ".join(ran), path, backup.name)
    return ran

"""Writing config.yaml and recording which one-time migrations ran (no pydantic).

Kept apart from :mod:`hermes_core.config.models` so that the migration machinery, which
every host loads, does not import the models.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_raw_config(path: Path, raw: dict[str, Any]) -> None:
    """Write the mapping atomically (temp file in the same directory, fsync, replace)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            import yaml

            yaml.safe_dump(raw, fh, sort_keys=False, allow_unicode=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


MIGRATIONS_STATE = "migrations.json"


def applied_migrations(home: Path) -> set[str]:
    """Ids recorded in ``state/migrations.json``; unreadable (or a FIFO, a link) counts as none."""
    from hermes_core.text.files import read_bytes_file

    try:
        data = read_bytes_file(home / "state" / MIGRATIONS_STATE, max_bytes=1024 * 1024, follow_symlinks=False)
        return {str(x) for x in json.loads(data)}
    except (OSError, ValueError, TypeError, RecursionError):
        return set()


def record_migrations(home: Path, ids: set[str]) -> None:
    state = home / "state"
    state.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=state, prefix=".migrations-", suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(sorted(ids), fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, state / MIGRATIONS_STATE)

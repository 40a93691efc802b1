"""One-time migrations of config.yaml that plugins offer (``hermes_config_migrations``).

The config is the user's, so a migration may only *add* what the user did not set: each
one runs on a copy, and a change to a key present in the file (``memory.provider: ""``
is an explicit choice too) is dropped and reported as kept. Migrations are saved only
when asked — ``hermes-core config migrate`` or the first ``Session.open()`` — never by a
read-only command, which applies them in memory and says they are pending. Saving edits
the file line by line (comments, order and mode survive; see
:mod:`hermes_core.config.yaml_edit`), keeps the original as ``config.yaml.pre-migration``
and says what changed.
"""

from __future__ import annotations

import copy
import logging
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_core.config.paths import config_path
from hermes_core.config.state import applied_migrations, record_migrations, write_raw_config
from hermes_core.config.yaml_edit import add_key
from hermes_core.records import ConfigMigration

log = logging.getLogger("hermes_core.config")

BACKUP_SUFFIX = ".pre-migration"
Path_ = tuple[str, ...]


@dataclass
class MigrationReport:
    """What the migrations did (or would do, when not saved)."""

    applied: list[str] = field(default_factory=list)  # migration ids that ran
    changes: list[str] = field(default_factory=list)  # "memory.provider: 'honcho' (honcho.enable-provider)"
    kept: list[str] = field(default_factory=list)  # explicit values a migration wanted to change
    saved: bool = False
    comments_kept: bool = True
    backup: Path | None = None
    path: Path | None = None

    def __bool__(self) -> bool:
        return bool(self.applied)

    def lines(self) -> list[str]:
        """Human lines: what changed, what was kept, where the original is."""
        out = [f"set {change}" for change in self.changes]
        out += [f"kept your explicit {kept}" for kept in self.kept]
        if self.saved and self.backup:
            out.append(f"original kept as {self.backup}")
        if self.saved and not self.comments_kept:
            out.append("the file was rewritten without its comments (the original has them)")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"applied": self.applied, "changes": self.changes, "kept": self.kept, "saved": self.saved,
                "comments_kept": self.comments_kept, "backup": str(self.backup) if self.backup else None,
                "path": str(self.path) if self.path else None}


def _leaves(before: Any, after: Any, prefix: Path_ = ()) -> list[tuple[Path_, bool, Any]]:
    """``(path, existed_before, new value)`` for every leaf ``after`` adds or changes (and removals as None)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[tuple[Path_, bool, Any]] = []
        for key in after:
            if key not in before:
                value = after[key]
                if isinstance(value, dict) and value:  # a new section: report and add it leaf by leaf
                    out.extend((path, False, leaf) for path, _e, leaf in _leaves({}, value, (*prefix, str(key))))
                else:
                    out.append(((*prefix, str(key)), False, value))
            elif before[key] != after[key]:
                out.extend(_leaves(before[key], after[key], (*prefix, str(key))))
        out.extend(((*prefix, str(key)), True, None) for key in before if key not in after)
        return out
    return [(prefix, True, after)]


def _set(raw: dict[str, Any], path: Path_, value: Any) -> None:
    node = raw
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[path[-1]] = value


def plan_migrations(raw: dict[str, Any], migrations: Iterable[ConfigMigration],
                    done: set[str]) -> tuple[dict[str, Any], list[tuple[Path_, Any]], MigrationReport]:
    """The migrated mapping, the additions to make, and the report; ``raw`` is not changed."""
    current = copy.deepcopy(raw)
    additions: list[tuple[Path_, Any]] = []
    report = MigrationReport()
    for migration in migrations:
        if migration.id in done:
            continue
        trial = copy.deepcopy(current)
        try:
            applied = bool(migration.apply(trial))
        except Exception as exc:
            log.warning("config migration %s failed: %s: %s", migration.id, type(exc).__name__, exc)
            continue
        if not applied:
            continue
        report.applied.append(migration.id)
        for path, existed, value in _leaves(current, trial):
            dotted = ".".join(path)
            if existed:
                report.kept.append(f"{dotted} (not changed by {migration.id})")
                continue
            _set(current, path, value)
            additions.append((path, value))
            report.changes.append(f"{dotted}: {value!r} ({migration.id})")
    return current, additions, report


def apply_config_migrations(home: Path, raw: dict[str, Any], migrations: Iterable[ConfigMigration], *,
                            save: bool = True) -> MigrationReport:
    """Run the migrations not yet recorded for ``home`` on ``raw`` (updated in place).

    With ``save`` the file is edited, the ids recorded and the original kept; without it
    (read-only commands) nothing is written and the report says what is pending. A
    migration whose ``apply`` returns False is not recorded and is offered again next time.
    """
    done = applied_migrations(home)
    migrated, additions, report = plan_migrations(raw, migrations, done)
    report.path = config_path(home)
    if not report:
        return report
    raw.clear()
    raw.update(migrated)
    if save:
        _save(report.path, migrated, additions, report)
        record_migrations(home, done | set(report.applied))
        report.saved = True
    return report


def _save(path: Path, migrated: dict[str, Any], additions: list[tuple[Path_, Any]], report: MigrationReport) -> None:
    if not additions:
        return  # every change was to an explicit value: the file stays as it is
    from hermes_core.config.raw import MAX_CONFIG_BYTES, load_raw_config
    from hermes_core.text.files import read_bytes_file

    try:
        original = read_bytes_file(path, max_bytes=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        original = b""
    text = original.decode("utf-8-sig")
    edited: str | None = text
    for key_path, value in additions:
        edited = add_key(edited, key_path, value) if edited is not None else None
    if edited is not None:
        try:
            import yaml

            if (yaml.safe_load(edited) or {}) != migrated:
                edited = None
        except Exception:
            edited = None
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    if original and not backup.exists():
        _write(backup, original, path)
    report.backup = backup if backup.exists() else None
    if edited is None:
        report.comments_kept = not any(line.lstrip().startswith("#") for line in text.splitlines())
        mode = _mode(path)
        write_raw_config(path, migrated)
        if mode is not None:
            os.chmod(path, mode)
    else:
        _write(path, edited.encode("utf-8"), path)
    load_raw_config(path)  # what we wrote must read back


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None


def _write(target: Path, data: bytes, like: Path) -> None:
    """Atomically write ``data`` with the mode and owner of ``like`` (0644 for a new file)."""
    from hermes_core.text.files import keep_owner, write_durably

    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    mode = _mode(like)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644 if mode is None else mode)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # umask must not narrow the user's mode
            keep_owner(fd, like)
            write_durably(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise

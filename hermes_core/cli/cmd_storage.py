"""``hermes-core storage``: where memory and LCM data live, and moving them between backends.

``migrate --to postgres`` copies MEMORY.md / USER.md and ``lcm.db`` of ``$HERMES_HOME``
into the database and namespace of the ``storage:`` section; ``--to files`` copies them
back. Both verify every copied byte and are safe to re-run (what is already there and
equal is skipped; what differs is refused, never overwritten, unless ``--overwrite``).
The copy does not switch the backend: set ``storage.backend`` when you are ready.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hermes_core.cli.output import CommandError, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("storage", help="storage backend status, and copying data between files and PostgreSQL")
    actions = p.add_subparsers(dest="storage_action", metavar="ACTION")
    status = actions.add_parser("status", help="the backend in use and, for postgres, what the namespace holds")
    status.add_argument("--json", action="store_true", help="print JSON")
    migrate = actions.add_parser("migrate", help="copy memory and lcm.db to PostgreSQL or back to files")
    migrate.add_argument("--to", required=True, choices=("postgres", "files"), help="the destination backend")
    migrate.add_argument("--namespace", help="the PostgreSQL namespace (default: storage.namespace)")
    migrate.add_argument("--only", choices=("memory", "lcm"), help="copy one kind of data only")
    migrate.add_argument("--overwrite", action="store_true",
                         help="replace destination memory that differs (LCM rows are never overwritten)")
    migrate.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run, storage_parser=p)


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "storage_action", None)
    if action is None:
        args.storage_parser.print_help()
        return 2
    from hermes_core.cli.common import load
    from hermes_core.config.paths import hermes_home

    loaded = load(args)
    storage = loaded.config.storage
    if getattr(args, "namespace", None):
        from hermes_core.config.models import StorageConfig

        try:
            storage = StorageConfig.model_validate({**storage.model_dump(), "namespace": args.namespace})
        except ValueError as exc:
            raise CommandError(f"--namespace: {exc}", code=2) from None
    home = hermes_home()
    if action == "status":
        return _status(loaded.config, storage, home, args)
    return _migrate(loaded.config, storage, home, args)


def _pg_errors() -> tuple[type[BaseException], ...]:
    from hermes_memory_builtin.store import MemoryStoreError

    from hermes_core.storage.errors import StorageError

    errors: list[type[BaseException]] = [StorageError, MemoryStoreError]
    try:
        from hermes_context_lcm.pg_transfer import TransferError
        from hermes_context_lcm.store import StoreError

        errors += [TransferError, StoreError]
    except ImportError:
        pass
    from hermes_memory_builtin.transfer import MemoryTransferError

    return (*errors, MemoryTransferError)


def _memory_stores(config: Any, storage: Any, home: Path) -> tuple[Any, Any]:
    from hermes_memory_builtin.pg_store import PgMemoryStore
    from hermes_memory_builtin.store import MemoryStore

    mem = config.memory
    limits = {"memory": mem.memory_char_limit, "user": mem.user_char_limit}
    return MemoryStore(home / "memories", limits), PgMemoryStore(storage, limits)


def _lcm_db(config: Any, home: Path) -> Path | None:
    try:
        from hermes_context_lcm.settings import LCMSettings
    except ImportError:
        return None
    return Path(LCMSettings.model_validate(config.plugins.section("lcm")).resolved_db_path(home))


def _migrate(config: Any, storage: Any, home: Path, args: argparse.Namespace) -> int:
    result: dict[str, Any] = {"to": args.to, "namespace": storage.namespace, "home": str(home)}
    try:
        if args.only in (None, "memory"):
            from hermes_memory_builtin import transfer

            files, pg = _memory_stores(config, storage, home)
            copy = transfer.to_postgres if args.to == "postgres" else transfer.to_files
            reports = copy(files, pg, overwrite=args.overwrite) if args.to == "postgres" else copy(
                pg, files, overwrite=args.overwrite)
            result["memory"] = transfer.as_dicts(reports)
        if args.only in (None, "lcm"):
            result["lcm"] = _migrate_lcm(config, storage, home, args)
    except _pg_errors() as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        emit_json(result)
    else:
        _print_migration(result)
    return 0


def _migrate_lcm(config: Any, storage: Any, home: Path, args: argparse.Namespace) -> dict[str, Any]:
    db_path = _lcm_db(config, home)
    if db_path is None:
        return {"skipped": "hermes-context-lcm is not installed"}
    from hermes_context_lcm import pg_transfer
    from hermes_context_lcm.pg_store import PgStore

    pg = PgStore(storage)
    progress = _progress() if sys.stderr.isatty() and not args.json else None
    if args.to == "postgres":
        if not db_path.is_file():
            return {"skipped": f"no LCM database at {db_path}", "db_path": str(db_path)}
        report = pg_transfer.to_postgres(db_path, pg, progress)
    else:
        held = pg.stats(None)["messages_total"] + len(pg.all_summaries(None))
        if not held and not db_path.exists():
            return {"skipped": f"namespace {storage.namespace!r} holds no LCM data", "db_path": str(db_path)}
        report = pg_transfer.to_sqlite(pg, db_path, progress)
    if progress:
        sys.stderr.write("\n")
    return {"db_path": str(db_path), **report.as_dict()}


def _progress() -> Any:
    def show(label: str, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\rcopying {label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        sys.stderr.flush()

    return show


def _print_migration(result: dict[str, Any]) -> None:
    where = f"PostgreSQL namespace {result['namespace']!r}" if result["to"] == "postgres" else result["home"]
    print(f"copied to {where}")
    for item in result.get("memory", []):
        print(f"  memory {item['target']:<6} {item['action']:<7} {item['entries']} entries, {item['chars']} chars"
              f"{', verified' if item['verified'] else ''}")
    lcm = result.get("lcm")
    if lcm and "skipped" in lcm:
        print(f"  lcm    skipped: {lcm['skipped']}")
    elif lcm:
        copied = lcm["copied"]
        print(f"  lcm    {lcm['messages']} messages ({copied['messages']} copied), {lcm['summaries']} summaries "
              f"({copied['summaries']} copied), {lcm['layouts']} layouts{', verified' if lcm['verified'] else ''}")


def _status(config: Any, storage: Any, home: Path, args: argparse.Namespace) -> int:
    out: dict[str, Any] = {"backend": storage.backend, "namespace": storage.namespace, "dsn_env": storage.dsn_env}
    if storage.backend == "files":
        out["memory_dir"] = str(home / "memories")
        out["lcm_db"] = str(_lcm_db(config, home) or "")
    else:
        from hermes_core.storage.pool import database
        from hermes_core.storage.settings import postgres_target

        try:
            target = postgres_target(storage)
            db = database(target)
            _, pg = _memory_stores(config, storage, home)
            out["database"] = db.display
            out["memory_entries"] = {t: len(pg.entries(t)) for t in ("memory", "user")}
            out["schema"] = dict(db.transact(lambda conn: conn.execute(
                "SELECT component, version FROM hermes_schema ORDER BY component").fetchall()))
        except _pg_errors() as exc:
            raise CommandError(str(exc)) from None
    if args.json:
        emit_json(out)
    else:
        for key, value in out.items():
            print(f"{key}: {value}")
    return 0

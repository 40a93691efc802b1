"""``hermes-core storage``: where memory and LCM data live, and moving them between backends.

``migrate --to postgres`` copies the data of ``$HERMES_HOME`` (MEMORY.md / USER.md,
``lcm.db``, and whatever else a plugin registers under ``hermes.storage_migrations``)
into the database and namespace of the ``storage:`` section; ``--to files`` copies it
back. Each copy verifies what it copied and is safe to re-run (what is already there and
equal is skipped; what differs is refused, never overwritten, unless ``--overwrite``).
The copy does not switch the backend: set ``storage.backend`` when you are ready.
"""

from __future__ import annotations

import argparse
import sys
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
    migrate.add_argument("--only", metavar="NAME", help="copy one kind of data only (memory, lcm, ...)")
    migrate.add_argument("--overwrite", action="store_true",
                         help="replace destination memory that differs (LCM rows are never overwritten)")
    migrate.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run, storage_parser=p)


def _request(args: argparse.Namespace) -> Any:
    from hermes_core.cli.common import load
    from hermes_core.config.models import StorageConfig
    from hermes_core.config.paths import hermes_home
    from hermes_core.storage.migration import MigrationRequest

    config = load(args).config
    storage = config.storage
    if getattr(args, "namespace", None):
        try:
            storage = StorageConfig.model_validate({**storage.model_dump(), "namespace": args.namespace})
        except ValueError as exc:
            raise CommandError(f"--namespace: {exc}", code=2) from None
    progress = _progress if sys.stderr.isatty() and not getattr(args, "json", False) else None
    return MigrationRequest(config=config, storage=storage, home=hermes_home(),
                            overwrite=bool(getattr(args, "overwrite", False)), progress=progress)


def _migrations(args: argparse.Namespace) -> list[Any]:
    import logging

    from hermes_core.storage.migration import discover

    found, problems = discover()
    for problem in problems:
        logging.getLogger("hermes_core").warning("%s", problem)
    only = getattr(args, "only", None)
    if only:
        found = [m for m in found if m.name == only]
        if not found:
            raise CommandError(f"--only {only}: no such storage migration is installed", code=2)
    return found


def run(args: argparse.Namespace) -> int:
    from hermes_core.storage.errors import StorageError
    from hermes_core.storage.migration import MigrationError

    action = getattr(args, "storage_action", None)
    if action is None:
        args.storage_parser.print_help()
        return 2
    request = _request(args)
    out: dict[str, Any] = {"namespace": request.storage.namespace}
    try:
        if action == "status":
            out.update(backend=request.storage.backend, dsn_env=request.storage.dsn_env)
            if request.storage.backend == "postgres":
                for migration in _migrations(args):
                    out[migration.name] = migration.status(request)
        else:
            out.update(to=args.to, home=str(request.home))
            for migration in _migrations(args):
                out[migration.name] = migration.copy(args.to, request)
                if request.progress:
                    sys.stderr.write("\n")
    except (MigrationError, StorageError) as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        emit_json(out)
    else:
        _print(out)
    return 0


def _progress(label: str, done: int, total: int) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\rcopying {label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    sys.stderr.flush()


def _print(out: dict[str, Any]) -> None:
    if "to" in out:
        where = f"PostgreSQL namespace {out['namespace']!r}" if out["to"] == "postgres" else out["home"]
        print(f"copied to {where}")
    for key, value in out.items():
        if key in ("to", "home") or ("to" in out and key == "namespace"):
            continue
        if not isinstance(value, dict):
            print(f"{key}: {value}")
        elif "skipped" in value:
            print(f"  {key:<7} skipped: {value['skipped']}")
        elif "targets" in value:
            for item in value["targets"]:
                print(f"  {key:<7} {item['target']:<6} {item['action']:<7} {item['entries']} entries, "
                      f"{item['chars']} chars{', verified' if item['verified'] else ''}")
        elif "copied" in value:
            copied = value["copied"]
            print(f"  {key:<7} {value['messages']} messages ({copied['messages']} copied), {value['summaries']} "
                  f"summaries ({copied['summaries']} copied), {value['layouts']} layouts"
                  f"{', verified' if value.get('verified') else ''}")
        else:
            print(f"  {key:<7} {value}")

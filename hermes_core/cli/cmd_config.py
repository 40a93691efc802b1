"""``hermes-core config show|check|migrate``.

``show`` and ``check`` only read. ``migrate`` is the one command that writes config.yaml:
it saves the plugins' pending one-time migrations (never over a value you set), keeps
comments and the file mode, and says what changed and where the original is.
"""

from __future__ import annotations

import argparse
import copy
from typing import Any

from hermes_core.cli.output import CommandError, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("config", help="show, check or migrate config.yaml")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    show = csub.add_parser("show", help="print the effective config, defaults filled in")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    show.set_defaults(run=run_show)
    check = csub.add_parser("check", help="validate config.yaml and list every error; exit 2 if invalid")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.set_defaults(run=run_check)
    migrate = csub.add_parser("migrate", help="save the plugins' pending one-time migrations into config.yaml")
    migrate.add_argument("--dry-run", action="store_true", help="say what would change; write nothing")
    migrate.add_argument("--json", action="store_true", help="machine-readable output")
    migrate.set_defaults(run=run_migrate)


def run_show(args: argparse.Namespace) -> int:
    import yaml

    from hermes_core.cli.common import load

    loaded = load(args)
    data = loaded.config.model_dump(mode="json")
    if args.json:
        emit_json(data)
    else:
        print(f"# {loaded.path}")
        print(yaml.safe_dump(data, sort_keys=False).rstrip())
    return 0


def _core_errors(raw: dict[str, Any], source: str) -> tuple[list[str], dict[str, Any]]:
    """Every error of the core sections, and ``raw`` with the bad values removed (to check the rest)."""
    from pydantic import ValidationError

    from hermes_core.config.models import HermesConfig, validate_section
    from hermes_core.config.raw import ConfigError

    try:
        validate_section(HermesConfig, raw, source=source)
        return [], raw
    except ConfigError as exc:
        errors = str(exc).splitlines()
    pruned = copy.deepcopy(raw)
    try:
        HermesConfig.model_validate(pruned)
    except ValidationError as exc:
        for err in exc.errors():
            node: Any = pruned
            *parents, leaf = err["loc"] or ("",)
            for key in parents:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict):
                node.pop(leaf, None)
            elif isinstance(node, list) and isinstance(leaf, int) and leaf < len(node):
                node.pop(leaf)
    return errors, pruned


def run_check(args: argparse.Namespace) -> int:
    """Validate the file, then build the plugin host from it (selection, plugin sections): every error, once."""
    from hermes_core.cli.common import config_file, explicit_config
    from hermes_core.config.models import HermesConfig, unknown_keys, validate_section
    from hermes_core.config.paths import hermes_home
    from hermes_core.config.raw import ConfigError, load_raw_config
    from hermes_core.plugin.host import build_host

    try:
        path = config_file(args)
    except CommandError as exc:  # --config names a missing file
        if args.json:
            emit_json({"path": args.config, "valid": False, "errors": [str(exc)], "warnings": []})
        raise
    errors: list[str] = []
    warnings: list[str] = []
    try:
        raw = load_raw_config(path)
    except ConfigError as exc:
        errors, raw = str(exc).splitlines(), None
    if raw is not None:
        errors, usable = _core_errors(raw, str(path))
        warnings = unknown_keys(HermesConfig, raw, source=str(path))
        try:
            config = validate_section(HermesConfig, usable, source=str(path))
            if explicit_config(args) is None and not errors:
                host = build_host(home=hermes_home(), save_migrations=False)
            else:
                host = build_host(config, home=hermes_home())
            warnings += [w for w in host.warnings if w not in warnings]
            host.close()
        except ConfigError as exc:
            errors += [line for line in str(exc).splitlines() if line not in errors]
    valid = not errors
    if args.json:
        emit_json({"path": str(path), "valid": valid, "errors": errors, "warnings": warnings})
        return 0 if valid else 2
    import logging

    for warning in warnings:  # through the log, whose filter prints each distinct warning once
        logging.getLogger("hermes_core").warning("%s", warning)
    if not valid:
        import sys

        for error in errors:
            print(f"error: {error}", file=sys.stderr)
        if len(errors) > 1:
            print(f"{len(errors)} errors in {path}", file=sys.stderr)
        return 2
    state = "found" if path.exists() else "not found, defaults apply"
    print(f"{path}: valid ({state})")
    return 0


def run_migrate(args: argparse.Namespace) -> int:
    """Run the pending migrations on $HERMES_HOME/config.yaml and save them (unless ``--dry-run``)."""
    import logging

    from hermes_core.config.paths import hermes_home
    from hermes_core.plugin.host import build_host

    if getattr(args, "config", None):
        raise CommandError("config migrate works on $HERMES_HOME/config.yaml; --config is not migrated", code=2)
    logging.getLogger("hermes_core.config").setLevel(logging.ERROR)  # the report below says it all
    host = build_host(home=hermes_home(), save_migrations=not args.dry_run)
    host.close()
    report = host.migration_report
    data = report.to_dict() if report is not None else {"applied": [], "changes": [], "kept": [], "saved": False}
    if args.json:
        emit_json(data)
        return 0
    if report is None or not report:
        print("no pending config migrations")
        return 0
    verb = "would apply" if args.dry_run else "applied"
    print(f"{report.path}: {verb} {', '.join(report.applied)}")
    for line in report.lines():
        print(f"  {line}")
    return 0

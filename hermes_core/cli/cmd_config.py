"""``hermes-core config show|check``."""

from __future__ import annotations

import argparse

from hermes_core.cli.output import CommandError, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("config", help="show or check config.yaml")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    show = csub.add_parser("show", help="print the effective config, defaults filled in")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    show.set_defaults(run=run_show)
    check = csub.add_parser("check", help="validate config.yaml; exit 2 if invalid")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.set_defaults(run=run_check)


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


def run_check(args: argparse.Namespace) -> int:
    """Validate the file, then build the plugin host from it: selection and plugin sections too."""
    from hermes_core.cli.common import config_file, explicit_config
    from hermes_core.config.models import load_config
    from hermes_core.config.paths import hermes_home
    from hermes_core.config.raw import ConfigError
    from hermes_core.plugin.host import build_host

    try:
        path = config_file(args)
    except CommandError as exc:  # --config names a missing file
        if args.json:
            emit_json({"path": args.config, "valid": False, "errors": [str(exc)], "warnings": []})
        raise
    warnings: list[str] = []
    try:
        loaded = load_config(path)
        warnings = list(loaded.warnings)
        host = build_host(home=hermes_home(), config_path=explicit_config(args))
        warnings += host.warnings
        host.close()
    except ConfigError as exc:
        if args.json:
            emit_json({"path": str(path), "valid": False, "errors": str(exc).splitlines(), "warnings": warnings})
            return 2
        raise
    if args.json:
        emit_json({"path": str(path), "valid": True, "errors": [], "warnings": warnings})
    else:
        for warning in warnings:
            print(f"warning: {warning}")
        state = "found" if path.exists() else "not found, defaults apply"
        print(f"{path}: valid ({state})")
    return 0

"""``hermes-core plugins``: what is installed, what is active, what failed and why."""

from __future__ import annotations

import argparse

from hermes_core.cli.common import config_file
from hermes_core.cli.output import emit_json, table


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("plugins", help="list installed plugins and their status")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--all", action="store_true", help="include hermes-core's own general plugins")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hermes_core.config.paths import hermes_home
    from hermes_core.config.raw import env_flag, load_raw_config
    from hermes_core.plugin.listing import list_plugins

    raw = load_raw_config(config_file(args))
    infos, warnings = list_plugins(hermes_home(), raw)
    if not args.all:
        infos = [i for i in infos if not (i.kind == "plugin" and i.source == "builtin")]
    failed = any(i.status == "failed" for i in infos)
    code = 1 if failed and env_flag("HERMES_STRICT_PLUGINS") else 0  # plugin authors' CI gate
    if args.json:
        emit_json({"plugins": [i.to_dict() for i in infos], "warnings": warnings})
        return code
    rows = [(i.name, i.kind, i.distribution, i.version or "-", i.status, i.error) for i in infos]
    table(rows, ("NAME", "KIND", "DISTRIBUTION", "VERSION", "STATUS", "ERROR"))
    for warning in warnings:
        print(f"warning: {warning}")
    return code

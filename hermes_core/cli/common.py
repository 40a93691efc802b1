"""Helpers the commands share: loading config and building a host from CLI flags."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.cli.output import CommandError
from hermes_core.config.paths import config_path, hermes_home

if TYPE_CHECKING:
    from hermes_core.config.models import LoadedConfig
    from hermes_core.plugin.host import PluginHost


def explicit_config(args: argparse.Namespace) -> Path | None:
    """The ``--config`` path, if given; a missing file is an error, never silent defaults."""
    if not getattr(args, "config", None):
        return None
    path = Path(args.config)
    if not path.is_file():
        raise CommandError(f"{path}: no such config file", code=2)
    return path


def config_file(args: argparse.Namespace) -> Path:
    return explicit_config(args) or config_path()


def load(args: argparse.Namespace) -> LoadedConfig:
    """Load and validate config; warnings go to the log (stderr)."""
    import logging

    from hermes_core.config.models import load_config

    loaded = load_config(config_file(args))
    for warning in loaded.warnings:
        logging.getLogger("hermes_core").warning("%s", warning)
    return loaded


def host_from_args(args: argparse.Namespace, extra_overrides: dict[str, Any] | None = None,
                   **kwargs: Any) -> PluginHost:
    """Build a host the way the CLI flags say (``--config``, ``--engine``, ``--context-length``).

    Without ``--config``, config.yaml comes from ``$HERMES_HOME``; plugins' one-time
    migrations apply in memory only (a command never rewrites the user's config: that is
    ``hermes-core config migrate``, or the first ``Session.open()``).
    """
    from hermes_core.plugin.host import build_host

    overrides: dict[str, Any] = {}
    if getattr(args, "engine", None):
        overrides["context.engine"] = args.engine
    if getattr(args, "context_length", None):
        overrides["model.context_length"] = int(args.context_length)
    overrides.update(extra_overrides or {})
    explicit = explicit_config(args)
    kwargs.setdefault("save_migrations", False)
    return build_host(home=hermes_home(), config_path=explicit, overrides=overrides, **kwargs)

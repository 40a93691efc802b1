"""Helpers the commands share: loading config and building a host from CLI flags."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_core.paths import config_path, hermes_home

if TYPE_CHECKING:
    from hermes_core.config import LoadedConfig
    from hermes_core.host import PluginHost


def config_file(args: argparse.Namespace) -> Path:
    return Path(args.config) if getattr(args, "config", None) else config_path()


def load(args: argparse.Namespace) -> LoadedConfig:
    """Load and validate config; warnings go to the log (stderr)."""
    import logging

    from hermes_core.config import load_config

    loaded = load_config(config_file(args))
    for warning in loaded.warnings:
        logging.getLogger("hermes_core").warning("%s", warning)
    return loaded


def host_from_args(args: argparse.Namespace, **overrides: object) -> PluginHost:
    """Build a host the way the CLI flags say (``--config``, ``--engine``, ``--context-length``)."""
    from hermes_core.host import build_host

    loaded = load(args)
    config = loaded.config
    engine = getattr(args, "engine", None)
    if engine:
        config.context.engine = engine
    context_length = getattr(args, "context_length", None)
    if context_length:
        config.model.context_length = int(context_length)
    return build_host(config, home=hermes_home(), **overrides)  # type: ignore[arg-type]

"""Where hermes-core keeps its files."""

from __future__ import annotations

import os
from pathlib import Path


def hermes_home() -> Path:
    """``$HERMES_HOME``, else ``~/.hermes``. Not created here: readers must not write."""
    env = os.environ.get("HERMES_HOME")
    return Path(env).expanduser() if env else Path.home() / ".hermes"


def config_path(home: Path | None = None) -> Path:
    return (home or hermes_home()) / "config.yaml"

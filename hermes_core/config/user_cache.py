"""Small JSON files kept between processes, for answers that are costly to get and rarely change.

Each short command (``hermes-core compact``, ``plugins``) otherwise starts by listing every
installed distribution's entry points and by importing PyYAML to parse config.yaml. Both
answers depend only on things a key can name exactly (``sys.path`` with modification times;
the config file's bytes), so they are kept here under that key and computed afresh when it
changes. Nothing here is needed for correctness: a missing, unreadable or corrupt file is
the same as no file, and a directory that cannot be written is skipped.

``HERMES_CACHE_DIR`` moves it (default ``$XDG_CACHE_HOME/hermes-core``, else
``~/.cache/hermes-core``); ``HERMES_CACHE_DIR=off`` turns it off.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def cache_dir() -> Path | None:
    """Where the files are kept, or None when ``HERMES_CACHE_DIR=off``."""
    chosen = os.environ.get("HERMES_CACHE_DIR")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hermes-core"


def read(name: str) -> Any:
    """The JSON value stored as ``name``, or None (no file, unreadable, not JSON)."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        return json.loads((directory / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write(name: str, value: Any) -> None:
    """Store ``value`` as ``name``, atomically; any failure leaves things as they were."""
    directory = cache_dir()
    if directory is None:
        return
    try:
        text = json.dumps(value, allow_nan=False)
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, directory / name)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, ValueError):
        pass

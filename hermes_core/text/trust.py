"""Files a user reviewed and trusts, by content hash, kept in ``$HERMES_HOME/trusted_files.json``.

``hermes-core scan --trust FILE`` records the SHA-256 of the file's text; while the text
is unchanged its findings are not applied (the file loads whole). Any edit changes the
hash, so the file is scanned again. A missing or unreadable store trusts nothing.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

STORE_NAME = "trusted_files.json"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _store(home: Path) -> Path:
    return home / STORE_NAME


def load(home: Path) -> dict[str, dict[str, Any]]:
    """{sha256: {"path": ..., "trusted_at": ...}}; empty when absent or malformed."""
    try:
        data = json.loads(_store(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def trusted_digests(home: Path) -> frozenset[str]:
    return frozenset(load(home))


def trust(home: Path, path: Path, text: str) -> str:
    """Record ``text`` (the content of ``path``) as trusted; returns its digest. Atomic write."""
    entries = load(home)
    key = digest(text)
    entries[key] = {"path": str(path.resolve()), "trusted_at": datetime.datetime.now(datetime.UTC).isoformat(
        timespec="seconds")}
    home.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=home, prefix=".trusted-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(entries, fh, indent=1, sort_keys=True)
    os.replace(tmp, _store(home))
    return key

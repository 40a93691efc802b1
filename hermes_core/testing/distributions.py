"""Write a real installed distribution (``.dist-info`` + modules) into a directory.

Used by the ``installed_distribution`` fixture and by benchmarks; importlib.metadata
discovers the result exactly like a pip-installed package once the directory is on the
path.
"""

from __future__ import annotations

import re
from pathlib import Path


def write_distribution(
    site: Path,
    name: str,
    version: str,
    entry_points: dict[str, dict[str, str]],
    modules: dict[str, str],
) -> Path:
    """Create ``site/<name>-<version>.dist-info`` and the given module files; returns it."""
    site.mkdir(parents=True, exist_ok=True)
    normalized = re.sub(r"[-_.]+", "_", name)
    info = site / f"{normalized}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    lines = []
    for group, eps in entry_points.items():
        lines.append(f"[{group}]")
        lines.extend(f"{ep} = {target}" for ep, target in eps.items())
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    records = []
    for rel, source in modules.items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
        records.append(f"{rel},,")
    (info / "RECORD").write_text("\n".join([*records, f"{info.name}/METADATA,,", ""]), encoding="utf-8")
    return info

"""The entry-point listing is remembered between processes, and never outlives a change.

Each test runs the listing in fresh interpreters (as two ``hermes-core`` commands would),
against a real ``.dist-info`` on the path and a private cache directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_core.testing.distributions import write_distribution

_LIST = ("import json, sys; from hermes_core.plugin.discovery import iter_entry_points; "
         "names = sorted(c.name for c in iter_entry_points() if c.distribution.startswith('cache-probe')); "
         "print(json.dumps({'names': names, 'scanned': 'importlib_metadata' in sys.modules}))")


@pytest.fixture
def listing(tmp_path: Path) -> Callable[[], dict]:
    site, cache = tmp_path / "site", tmp_path / "cache"
    write_distribution(site, "cache-probe-a", "1.0", {"hermes.plugins": {"probe_a": "probe_a"}}, {"probe_a.py": ""})

    def run() -> dict:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
               "HERMES_CACHE_DIR": str(cache)}
        out = subprocess.run([sys.executable, "-c", _LIST], env=env, capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    run.site, run.cache = site, cache  # type: ignore[attr-defined]
    return run


def test_a_second_process_lists_from_the_cache(listing: Callable[[], dict]) -> None:
    first, second = listing(), listing()
    assert first == {"names": ["probe_a"], "scanned": True}
    assert second == {"names": ["probe_a"], "scanned": False}


def test_installing_a_distribution_is_seen_at_once(listing: Callable[[], dict]) -> None:
    listing()
    write_distribution(listing.site, "cache-probe-b", "1.0",  # type: ignore[attr-defined]
                       {"hermes.plugins": {"probe_b": "probe_b"}}, {"probe_b.py": ""})
    assert listing() == {"names": ["probe_a", "probe_b"], "scanned": True}


@pytest.mark.parametrize("garbage", ["", "{not json", '{"key": 1, "rows": []}', '[1, 2]',
                                     '{"key": "x", "rows": [{"name": 1}]}'])
def test_a_corrupt_cache_is_listed_afresh_and_replaced(listing: Callable[[], dict], garbage: str) -> None:
    listing()
    (cached,) = listing.cache.iterdir()  # type: ignore[attr-defined]
    cached.write_text(garbage, encoding="utf-8")
    assert listing() == {"names": ["probe_a"], "scanned": True}
    assert listing() == {"names": ["probe_a"], "scanned": False}


def test_an_unwritable_cache_directory_is_skipped(listing: Callable[[], dict]) -> None:
    listing.cache.write_text("a file where the directory should be", encoding="utf-8")  # type: ignore[attr-defined]
    assert listing() == {"names": ["probe_a"], "scanned": True}
    assert listing() == {"names": ["probe_a"], "scanned": True}

"""The fast entry-point reader gives importlib_metadata's answer, or declines.

Held on the real environment and on built ``sys.path`` layouts: duplicates of one name in
two directories and in one (the first valid one wins), a metadata directory without
METADATA, ``egg-info`` directories, comments and sections, a distribution without
``entry_points.txt``; and the layouts it must leave to importlib_metadata (a zip and an
``.egg`` on the path, a finder that supplies its own distributions, an odd suffix case,
an undecodable or unparsable file), where both then give the same answer or the same error.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path
from typing import Any

import importlib_metadata
import pytest

from hermes_core.plugin import entry_points as fast


def _slow(path: list[str]) -> list[tuple[str, str, str, str]]:
    importlib_metadata.MetadataPathFinder.invalidate_caches()
    eps = importlib_metadata.entry_points()
    return [(e.group, e.name, e.value, Path(str(e.dist._path)).name) for e in eps]  # type: ignore[attr-defined]


def _fast(path: list[str]) -> list[tuple[str, str, str, str]] | None:
    eps = fast.entry_points(path)
    return None if eps is None else [(e.group, e.name, e.value, Path(e.dist.path).name) for e in eps]


def _dist(site: Path, dirname: str, entry_points: str | None, metadata: str | None = "Name: x\nVersion: 1\n",
          metadata_file: str = "METADATA") -> Path:
    info = site / dirname
    info.mkdir(parents=True)
    if metadata is not None:
        (info / metadata_file).write_text(metadata, encoding="utf-8")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return info


def test_same_answer_on_the_real_environment() -> None:
    assert _fast(sys.path) == _slow(sys.path)
    assert len(_slow(sys.path)) > 10


def test_same_answer_on_built_layouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    _dist(a, "Alpha_Pkg-1.0.dist-info", "# comment\n[hermes.plugins]\n one = alpha.one:Plugin \n\n[other]\nx=y\n")
    _dist(a, "alpha.pkg-2.0.dist-info", "[hermes.plugins]\ntwo = alpha.two\n")  # same normalized name, later
    _dist(a, "beta-1.0.dist-info", "[hermes.context_engines]\nb = beta:Engine [extra]\n", metadata=None)
    _dist(b, "beta-2.0.dist-info", "[hermes.context_engines]\nb = beta2:Engine\n")  # valid: preferred
    _dist(b, "gamma-1.0.egg-info", "stray line before any section\n[hermes.memory_providers]\ng = gamma:P\n",
          metadata_file="PKG-INFO")
    _dist(b, "delta-1.0.dist-info", None)
    (b / "not-metadata.txt").write_text("x", encoding="utf-8")
    path = [str(a), str(b), str(tmp_path / "missing")]
    monkeypatch.setattr(sys, "path", path)
    expected = _slow(path)
    assert expected, "the layout must yield entry points"
    assert _fast(path) == expected
    assert ("hermes.context_engines", "b", "beta2:Engine", "beta-2.0.dist-info") in expected


def test_loading_follows_importlib_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    (site / "pkg_x").mkdir(parents=True)
    (site / "pkg_x" / "__init__.py").write_text("class Inner:\n    class Deep:\n        pass\n", encoding="utf-8")
    _dist(site, "pkg_x-1.0.dist-info",
          "[hermes.plugins]\nmod = pkg_x\ndeep = pkg_x:Inner.Deep [extra]\nbad = -not a reference-\n")
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    ours = {e.name: e for e in fast.entry_points([str(site)]) or []}
    theirs = {e.name: e for e in importlib_metadata.entry_points(group="hermes.plugins") if e.name in ours}
    assert ours["mod"].load() is theirs["mod"].load()
    assert ours["deep"].load() is theirs["deep"].load()
    with pytest.raises(ValueError) as mine:
        ours["bad"].load()
    with pytest.raises(ValueError) as original:
        theirs["bad"].load()
    assert str(mine.value) == str(original.value)


def _declines(path: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", path)
    assert fast.entry_points(path) is None


def test_declines_a_zip_and_an_egg_on_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 1.0\n")
        z.writestr("zipped-1.0.dist-info/entry_points.txt", "[hermes.plugins]\nz = zipped\n")
    _declines([str(archive)], monkeypatch)
    assert ("hermes.plugins", "z", "zipped", "zipped-1.0.dist-info") in _slow([str(archive)])
    egg = tmp_path / "thing-1.0.egg"
    _dist(egg, "EGG-INFO", "[hermes.plugins]\nt = thing\n")
    _declines([str(egg)], monkeypatch)


def test_declines_a_finder_that_supplies_distributions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Finder:
        def find_spec(self, *args: Any) -> None:
            return None

        def find_distributions(self, context: Any = None) -> list[Any]:
            return []

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    assert fast.entry_points([str(tmp_path)]) is None


def test_declines_what_importlib_metadata_reads_differently(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    odd = tmp_path / "odd"
    _dist(odd, "Odd-1.0.DIST-INFO", "[hermes.plugins]\no = odd\n")
    _declines([str(odd)], monkeypatch)
    broken = tmp_path / "broken"
    _dist(broken, "broken-1.0.dist-info", "[hermes.plugins]\nno equals sign here\n")
    _declines([str(broken)], monkeypatch)
    with pytest.raises((TypeError, ValueError)):  # importlib_metadata's own error for that line
        _slow([str(broken)])
    undecodable = tmp_path / "undecodable"
    info = _dist(undecodable, "u-1.0.dist-info", None)
    (info / "entry_points.txt").write_bytes(b"[hermes.plugins]\nu = \xff\xfe\n")
    monkeypatch.setattr(sys, "path", [str(undecodable)])
    with pytest.raises(UnicodeDecodeError):
        fast.entry_points([str(undecodable)])
    with pytest.raises(UnicodeDecodeError):
        _slow([str(undecodable)])


def test_discovery_finds_an_installed_third_party_plugin_without_importlib_metadata(
        installed_distribution: Any, tmp_path: Path) -> None:
    import subprocess

    site = installed_distribution("hermes-probe-plugin", entry_points={"hermes.plugins": {"probe": "probe_mod"}},
                                  modules={"probe_mod.py": "X = 1\n"})
    code = ("import sys; from hermes_core.plugin.discovery import iter_entry_points; "
            "names = [c.name for c in iter_entry_points()]; "
            "print('probe' in names, 'importlib_metadata' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(site)}).stdout.split()
    assert out == ["True", "False"]

"""The conformance corpus ships in the wheel: small, licensed, and used when no other is found."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hermes_core.apps.transcripts import load_transcript
from hermes_core.testing.engine_conformance import corpus_cases, corpus_dir, shipped_corpus


def test_shipped_corpus_is_small_real_and_licensed() -> None:
    files = sorted(shipped_corpus().glob("*.json"))
    assert len(files) >= 5
    assert 100_000 < sum(f.stat().st_size for f in files) < 500_000
    readme = (shipped_corpus() / "README.md").read_text()
    for path in files:
        data = json.loads(path.read_text())
        assert data["source"]["license"].startswith("MIT") and len(data["source"]["commit"]) == 40
        assert path.name in readme
        assert load_transcript(path).messages


def test_every_source_has_its_copyright_notice_beside_the_data() -> None:
    """MIT asks for the copyright and permission notices to travel with the copies."""
    notice = (shipped_corpus() / "NOTICE.md").read_text(encoding="utf-8")
    sections = {part.split("\n", 1)[0].strip(): part for part in notice.split("\n## ")[1:]}
    for path in sorted(shipped_corpus().glob("*.json")):
        source = json.loads(path.read_text())["source"]
        section = sections.get(source["repo"], "")
        assert source["commit"] in section and path.name in section, f"{path.name}: no notice for {source['repo']}"
        assert re.search(r"^ {4}Copyright (\(c\)|©) 20\d\d", section, re.MULTILINE), source["repo"]
    assert "The above copyright notice and this permission notice shall be included" in notice
    assert "NOTICE.md" in (shipped_corpus() / "README.md").read_text()


def test_used_by_default_and_hermes_corpus_still_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HERMES_CORPUS", raising=False)
    assert corpus_dir(tmp_path) == shipped_corpus()
    assert corpus_dir(tmp_path, shipped=False) is None
    monkeypatch.chdir(tmp_path)
    cases = corpus_cases(corpus_dir(tmp_path), lengths=(16_000,))  # (the package path may find a shared one)
    assert len(cases) == len(list(shipped_corpus().glob("*.json")))
    monkeypatch.setenv("HERMES_CORPUS", str(tmp_path))
    assert corpus_dir() == tmp_path


def test_the_wheel_includes_it() -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"hermes_core"' in pyproject  # the whole package, data files included (hatch ships them)

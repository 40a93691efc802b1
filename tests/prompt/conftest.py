"""Fixtures for the prompt-builder tests: a project tree and a clean skills cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def fresh_skills_cache() -> Iterator[None]:
    """The skills LRU and the context-file cache are process-wide; every test starts without them."""
    from hermes_prompt import files, skills

    skills.invalidate()
    files._cache.clear()
    yield
    skills.invalidate()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git work tree (``.git`` directory) with a nested working directory ``pkg/sub``."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pkg" / "sub").mkdir(parents=True)
    return root


def write_skill(root: Path, rel: str, front: str, body: str = "# Skill\n\nSteps.\n") -> Path:
    """Create ``root/rel/SKILL.md`` with the given front matter lines."""
    folder = root / rel
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\n{front}\n---\n{body}", encoding="utf-8")
    return path

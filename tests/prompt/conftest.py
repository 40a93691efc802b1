"""Fixtures for the prompt-builder tests: a project tree and a clean skills cache."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
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


@pytest.fixture
def scan_times() -> Callable[[str], tuple[float, float]]:
    """CPU seconds to scan a quarter of a text and the whole of it, the faster of two runs each: the
    linear-time tests compare the two (four times the text, about four times the time). CPU time, because
    other processes on a busy machine do not count."""
    from hermes_core.text.scanning import scan_text

    def timed(text: str) -> float:
        started = time.process_time()
        scan_text(text)
        return time.process_time() - started

    def times(text: str) -> tuple[float, float]:
        scan_text("warm up")
        quarter = text[: len(text) // 4]
        return min(timed(quarter) for _ in range(2)), min(timed(text) for _ in range(2))

    return times

"""Shared test helpers. The plugin-author fixtures come from hermes_core.testing (pytest11)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from hermes_core.testing.engine_conformance import corpus_dir

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
TRANSCRIPTS = corpus_dir(Path(__file__).resolve()) or CORPUS / "transcripts"  # $HERMES_CORPUS wins


def pytest_configure(config: pytest.Config) -> None:
    """The suite's processes keep their entry-point listing in a scratch directory, not the user's cache."""
    os.environ.setdefault("HERMES_CACHE_DIR", tempfile.mkdtemp(prefix="hermes-test-cache-"))


@pytest.fixture(scope="session")
def transcripts_dir() -> Path:
    if not TRANSCRIPTS.is_dir():
        pytest.skip(f"corpus not found at {TRANSCRIPTS}")
    return TRANSCRIPTS

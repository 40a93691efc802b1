"""Shared test helpers. The plugin-author fixtures come from hermes_core.testing (pytest11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_core.testing.engine_conformance import corpus_dir

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
TRANSCRIPTS = corpus_dir(Path(__file__).resolve()) or CORPUS / "transcripts"  # $HERMES_CORPUS wins


@pytest.fixture(scope="session")
def transcripts_dir() -> Path:
    if not TRANSCRIPTS.is_dir():
        pytest.skip(f"corpus not found at {TRANSCRIPTS}")
    return TRANSCRIPTS

"""The core's engine conformance suite, on every corpus transcript and context length."""

from __future__ import annotations

from pathlib import Path

import pytest
from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.settings import LCMSettings

from hermes_core.apps.transcripts import load_transcript
from hermes_core.testing.engine_conformance import check_engine, corpus_cases, engine_factory

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "transcripts"


@pytest.mark.parametrize(("path", "context_length"), corpus_cases(CORPUS if CORPUS.is_dir() else None))
def test_conformance(path: Path, context_length: int, tmp_path: Path) -> None:
    factory = engine_factory(LCMEngine, tmp_path, settings=LCMSettings())
    problems = check_engine(factory, load_transcript(path).messages, context_length)
    assert not problems, "\n".join(problems)

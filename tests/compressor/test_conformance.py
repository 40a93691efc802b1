"""The engine conformance suite on the whole corpus, and proof that it catches bad engines."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hermes_compressor import CompressorEngine

from hermes_core.apps.transcripts import load_transcript
from hermes_core.testing.engine_conformance import check_engine, corpus_cases, corpus_dir, engine_factory

CORPUS = (
    corpus_dir(Path(__file__).resolve())
    or Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "transcripts"
)


@pytest.mark.parametrize(("path", "context_length"), corpus_cases(CORPUS if CORPUS.is_dir() else None))
def test_compressor_conforms_on_corpus(path: Path, context_length: int, tmp_path: Path) -> None:
    messages = load_transcript(path).messages
    problems = check_engine(engine_factory(CompressorEngine, tmp_path), messages, context_length)
    assert not problems, "\n".join(problems)


def test_corpus_has_all_seventeen_transcripts(transcripts_dir: Path) -> None:
    assert corpus_dir(transcripts_dir) == transcripts_dir
    assert len(list(transcripts_dir.glob("*.json"))) == 17


class _Broken(CompressorEngine):
    """A compressor with one deliberate defect, chosen by ``defect``."""

    defect = ""

    def compress(
        self,
        messages: list[dict[str, Any]],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
    ) -> list[dict[str, Any]]:
        if self.defect == "mutate":
            messages[-1]["content"] = "changed"
            return messages
        out = super().compress(messages, current_tokens, focus_topic, force).messages
        if self.defect == "drop-last-user":
            return [m for m in out if m is not messages[-1] and m != messages[-1]] or out[:1]
        if self.defect == "orphan":
            return [*out, {"role": "tool", "tool_call_id": "nope", "content": "x"}]
        if self.defect == "change-below":
            return [dict(m, content=str(m.get("content"))) for m in messages]
        if self.defect == "raise":
            raise RuntimeError("boom")
        if self.defect == "never-compacts":
            self.last_compaction_note = "declined"
            return messages
        if self.defect == "silent-over" and out is not messages:
            self.last_compaction_note = ""
            return [*out, {"role": "assistant", "content": "x" * 400_000}]
        return out


def _conversation() -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are helpful."}]
    for i in range(40):
        msgs.append({"role": "user", "content": f"step {i}: " + "please do the thing " * 30})
        msgs.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
                ],
            }
        )
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"output {i} " * 200})
        msgs.append({"role": "assistant", "content": f"done {i}"})
    msgs.append({"role": "user", "content": "final question?"})
    return msgs


@pytest.mark.parametrize(
    ("defect", "expected"),
    [
        ("mutate", "mutated its input"),
        ("drop-last-user", "last user message's content was not kept in a user message"),
        ("orphan", "without a preceding call"),
        ("change-below", "changed a conversation under the threshold"),
        ("raise", "raised RuntimeError"),
        ("silent-over", "last_compaction_note does not say why"),
        ("never-compacts", "forced compaction of ~"),
    ],
)
def test_suite_catches_broken_engines(defect: str, expected: str, tmp_path: Path) -> None:
    engine_cls = type(f"Broken_{defect}", (_Broken,), {"defect": defect})
    problems = check_engine(engine_factory(engine_cls, tmp_path), _conversation(), 16_000)
    assert any(expected in p for p in problems), problems


def test_healthy_engine_passes_synthetic_conversation(tmp_path: Path) -> None:
    messages = _conversation()
    before = copy.deepcopy(messages)
    assert check_engine(engine_factory(CompressorEngine, tmp_path), messages, 16_000) == []
    assert messages == before


class _Declining(CompressorEngine):
    """Never compacts; says so in its note when ``note`` is set."""

    note = "declined"

    def compress(
        self,
        messages: list[dict[str, Any]],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
    ) -> list[dict[str, Any]]:
        self.last_compaction_note = self.note
        return messages


def test_declining_is_accepted_only_when_the_kept_part_alone_is_over(tmp_path: Path) -> None:
    """16k window, threshold 8000: a 9000-token last user message cannot be compacted away."""
    irreducible = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "q " * 2000},
        {"role": "assistant", "content": "a " * 2000},
        {"role": "user", "content": "x" * 36_000},
    ]
    assert check_engine(engine_factory(_Declining, tmp_path), irreducible, 16_000) == []
    silent = type("Silent", (_Declining,), {"note": ""})
    assert any("does not say why" in p for p in check_engine(engine_factory(silent, tmp_path), irreducible, 16_000))
    reducible = [*irreducible[:-1], {"role": "user", "content": "x" * 20_000}]  # 5000 of ~7000 tokens
    problems = check_engine(engine_factory(_Declining, tmp_path), reducible, 12_000)
    assert any("could have shrunk" in p for p in problems), problems

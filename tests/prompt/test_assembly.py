"""build_system_prompt: seed order, plugin sections, memory, compaction note, stability, report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hermes_core import hookimpl
from hermes_core.records import PromptContext, PromptSection
from hermes_core.session.prompt import COMPACTION_NOTE, build_system_prompt

from .conftest import write_skill


class ExtraSections:
    """A third-party plugin contributing one section after guidance and one between parts."""

    @hookimpl
    def hermes_system_prompt_sections(self, ctx: PromptContext) -> list[PromptSection]:
        return [PromptSection("extra", "EXTRA PLUGIN TEXT", order=700, source="test"),
                PromptSection("between", f"BETWEEN for {ctx.platform}", order=450, source="test")]


class Broken:
    @hookimpl
    def hermes_system_prompt_sections(self, ctx: PromptContext) -> list[PromptSection]:
        raise RuntimeError("boom")


@pytest.fixture
def project(hermes_home: Path, repo: Path) -> Path:
    write_skill(hermes_home / "skills", "dev/review", "name: review\ndescription: Review code")
    (hermes_home / "SOUL.md").write_text("You are Ada.", encoding="utf-8")
    (repo / "AGENTS.md").write_text("Run the tests with pytest.", encoding="utf-8")
    return repo


def ctx_for(host, cwd: Path, **kw) -> PromptContext:  # type: ignore[no-untyped-def]
    base = {"home": host.home, "cwd": cwd, "platform": "telegram", "model": "gpt-4.1", "config": host.config,
            "memory_blocks": ("MEMORY (snapshot)\nuser likes tea",)}
    return PromptContext(**{**base, **kw})


def test_sections_follow_the_seed_order(make_host, project: Path) -> None:  # type: ignore[no-untyped-def]
    host = make_host(plugins=(ExtraSections(),))
    prompt = build_system_prompt(host, ctx_for(host, project, compacted=True))
    names = [s.name for s in prompt.sections]
    assert names == ["identity", "platform", "skills", "context_files", "between", "memory", "guidance",
                     "model_guidance", "extra", "compaction_note"]
    text = prompt.text
    markers = ["You are Ada.", "You are on Telegram", "## Skills (mandatory)", "Run the tests with pytest.",
               "BETWEEN for telegram", "user likes tea", "persistent memory", "<mandatory_tool_use>",
               "EXTRA PLUGIN TEXT", COMPACTION_NOTE]
    positions = [text.index(m) for m in markers]
    assert positions == sorted(positions)
    assert text.endswith(COMPACTION_NOTE)


def test_no_compaction_note_or_memory_unless_given(make_host, project: Path) -> None:  # type: ignore[no-untyped-def]
    host = make_host()
    prompt = build_system_prompt(host, ctx_for(host, project, memory_blocks=("", "  ")))
    assert COMPACTION_NOTE not in prompt.text
    assert "memory" not in [s.name for s in prompt.sections]


def test_byte_identical_when_nothing_changed(make_host, project: Path) -> None:  # type: ignore[no-untyped-def]
    from hermes_prompt import skills

    first_host = make_host()
    first = build_system_prompt(first_host, ctx_for(first_host, project)).text
    host = make_host()
    again = build_system_prompt(host, ctx_for(host, project)).text  # LRU layer
    skills.invalidate()
    from_snapshot = build_system_prompt(host, ctx_for(host, project)).text
    assert first.encode() == again.encode() == from_snapshot.encode()
    (project / "AGENTS.md").write_text("Run the tests with tox.", encoding="utf-8")
    assert build_system_prompt(host, ctx_for(host, project)).text != first


def test_report_counts_parts_and_findings(make_host, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "AGENTS.md").write_text("x\n" * 30_000, encoding="utf-8")
    host = make_host(**{"prompt.context_file_max_chars": 5_000})
    prompt = build_system_prompt(host, ctx_for(host, project, platform="pigeon"))
    report = prompt.report()
    assert report["chars"] == len(prompt.text) and report["tokens"] == (len(prompt.text) + 3) // 4
    parts = {p["name"]: p for p in report["parts"]}
    assert parts["context_files"]["chars"] == len(next(s for s in prompt.sections if s.name == "context_files").text)
    assert report["largest"][0] == "context_files"
    assert sum(p["chars"] for p in report["parts"]) == report["chars"] - 2 * (
        sum(1 for p in report["parts"] if p["chars"]) - 1)  # the separators
    assert report["counts"] == {"blocked": 0, "truncated": 1, "skipped": 1}
    assert {(f["section"], f["kind"]) for f in report["findings"]} == {("context_files", "truncated"),
                                                                      ("platform", "skipped")}


def test_a_failing_plugin_costs_only_its_own_sections(make_host, project: Path) -> None:  # type: ignore[no-untyped-def]
    host = make_host(plugins=(Broken(),))
    prompt = build_system_prompt(host, ctx_for(host, project))
    assert "You are Ada." in prompt.text and "## Skills" in prompt.text


def test_a_failing_part_is_reported_and_the_rest_builds(make_host, project: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from hermes_prompt import skills

    def explode(*_a: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(skills, "skills_section", explode)
    host = make_host()
    prompt = build_system_prompt(host, ctx_for(host, project))
    report = prompt.report()
    assert "You are Ada." in prompt.text and "## Skills" not in prompt.text
    assert {"section": "skills", "kind": "skipped", "reason": "failed: OSError: disk on fire"} in report["findings"]


def test_registered_by_entry_point(make_host, project: Path) -> None:  # type: ignore[no-untyped-def]
    host = make_host(load_entrypoints=True)
    prompt = build_system_prompt(host, ctx_for(host, project))
    assert [s.name for s in prompt.sections][:4] == ["identity", "platform", "skills", "context_files"]


def test_plugin_import_is_cheap() -> None:
    code = ("import sys, hermes_prompt; "
            "print(sorted(m for m in sys.modules if m.startswith('hermes_prompt.') or m == 'yaml'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

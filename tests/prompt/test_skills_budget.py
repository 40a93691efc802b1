"""The skills index stays within skills.index_max_chars, and its snapshot is fsynced."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hermes_prompt import skills

from .conftest import write_skill

DESCRIPTION = "Searches the repository for a symbol and reports every file and line where it is used, grouped"


@pytest.fixture(autouse=True)
def fresh() -> None:
    skills.invalidate()


def many(home: Path, count: int) -> None:
    for i in range(count):
        write_skill(home / "skills", f"cat-{i % 5}/skill-{i:04d}", f"name: skill-{i:04d}\ndescription: {DESCRIPTION}")


@pytest.mark.parametrize("budget", [4_000, 12_000, 30_000])
def test_index_fits_the_budget_and_keeps_every_name_while_it_can(tmp_path: Path, budget: int) -> None:
    many(tmp_path, 300)
    text = skills.build_skills_index(tmp_path, max_chars=budget)[0]
    assert len(text) <= budget
    names = sum(f"- skill-{i:04d}" in text for i in range(300))
    if budget >= 12_000:
        assert names == 300
    else:
        assert 0 < names < 300 and "more skill(s) not listed" in text and "skills.index_max_chars" in text


def test_descriptions_are_cut_at_a_word_with_an_ellipsis(tmp_path: Path) -> None:
    many(tmp_path, 300)
    text = skills.build_skills_index(tmp_path, max_chars=30_000)[0]
    line = next(x for x in text.splitlines() if "- skill-0000:" in x)
    description = line.split(": ", 1)[1]
    assert description.endswith("…") and DESCRIPTION.startswith(description[:-1])
    assert DESCRIPTION[len(description) - 1] == " " or description[-2] != " "  # cut at a word boundary
    small = skills.build_skills_index(tmp_path, max_chars=1_000_000)[0]
    assert f"- skill-0000: {DESCRIPTION}" in small  # under the budget nothing is cut


def test_config_sets_the_budget(make_host: Any, hermes_home: Path) -> None:
    from hermes_core.records import PromptContext
    from hermes_core.session.prompt import build_system_prompt

    many(hermes_home, 300)
    host = make_host(**{"skills.index_max_chars": 5_000})
    prompt = build_system_prompt(host, PromptContext(home=hermes_home, cwd=hermes_home, config=host.config)).text
    block = prompt[prompt.index("## Skills"):prompt.index("</available_skills>")]
    assert len(block) <= 5_000 and "more skill(s) not listed" in block


def test_snapshot_is_fsynced_before_it_replaces_the_old_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    many(tmp_path, 3)
    synced: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        assert any(".skills_prompt_snapshot.json" in s for s in synced), "renamed before fsync"
        real_replace(src, dst)

    monkeypatch.setattr(skills.os, "fsync", fsync)
    monkeypatch.setattr(skills.os, "replace", replace)
    skills.build_skills_index(tmp_path)
    assert (tmp_path / ".skills_prompt_snapshot.json").is_file()


def test_prompt_identity_in_config_replaces_the_default_and_soul_md_still_wins(make_host: Any,
                                                                             hermes_home: Path) -> None:
    from hermes_core.records import PromptContext
    from hermes_core.session.prompt import build_system_prompt

    host = make_host(**{"prompt.identity": "You are Ada, the build bot of Example Corp."})
    ctx = PromptContext(home=hermes_home, cwd=hermes_home, config=host.config)
    text = build_system_prompt(host, ctx).text
    assert text.startswith("You are Ada, the build bot of Example Corp.") and "Nous Research" not in text
    (hermes_home / "SOUL.md").write_text("You are Soul.")
    assert build_system_prompt(host, ctx).text.startswith("You are Soul.")

"""doctor turns the prompt builder's findings into leveled findings with fixes."""

from __future__ import annotations

import os

from hermes_core.apps.doctor import run_doctor


def test_a_fifo_context_file_is_a_warning_with_a_fix_and_no_git_root_is_plain_info(hermes_home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    os.mkfifo(project / "AGENTS.md")
    report = run_doctor(hermes_home, hermes_home / "config.yaml", cwd=project)
    found = {f.message: f for f in report.findings if f.check == "context files"}
    (fifo,) = [f for m, f in found.items() if "AGENTS.md" in m]
    assert fifo.level == "warn" and "not a regular file" in fifo.message
    assert fifo.fix == f"replace {project / 'AGENTS.md'} with a regular text file"
    (git,) = [f for m, f in found.items() if "no git root" in m]
    assert git.level == "info" and " info " not in git.message

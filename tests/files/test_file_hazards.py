"""Files in $HERMES_HOME that could hang or fool hermes-core: one real file per hazard.

Commands run as real processes with a timeout and an address-space limit, so a read
that blocks on a FIFO or never ends on /dev/zero fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_core.text.files import FileRefused, read_text_file

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")
TIMEOUT = 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def cli(home: Path, *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HERMES_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "hermes_core", *argv], capture_output=True, text=True,
                          timeout=TIMEOUT, env=env, cwd=cwd or home, preexec_fn=_limit_memory)


def memories(home: Path) -> Path:
    directory = home / "memories"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.mark.parametrize("name", ["MEMORY.md", "USER.md"])
def test_fifo_as_a_memory_file_hangs_nothing(hermes_home: Path, name: str) -> None:
    os.mkfifo(memories(hermes_home) / name)
    shown = cli(hermes_home, "memory", "show")
    assert shown.returncode == 1 and "FIFO" in shown.stdout + shown.stderr
    target = "memory" if name == "MEMORY.md" else "user"
    added = cli(hermes_home, "memory", "add", "--target", target, "a fact")
    assert added.returncode == 1
    assert name in added.stdout + added.stderr and "not a regular file" in added.stdout + added.stderr
    prompt = cli(hermes_home, "prompt")
    assert prompt.returncode == 0, prompt.stderr
    assert name in prompt.stderr  # the snapshot says which file it skipped
    doctor = cli(hermes_home, "doctor")
    assert "not a regular file" in doctor.stdout
    assert not list((hermes_home / "memories").glob("*.bak.*"))  # a FIFO is never "backed up" (read)


def test_fifo_as_config_yaml_is_an_error_naming_it(hermes_home: Path) -> None:
    os.mkfifo(hermes_home / "config.yaml")
    for argv in (["config", "check"], ["memory", "show"], ["prompt"]):
        done = cli(hermes_home, *argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert "config.yaml: not a regular file (a FIFO)" in done.stderr
        assert "Traceback" not in done.stderr


def test_fifo_as_skills_snapshot_is_ignored(hermes_home: Path) -> None:
    skill = hermes_home / "skills" / "tools" / "grep"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: grep\ndescription: search files\n---\nbody\n")
    os.mkfifo(hermes_home / ".skills_prompt_snapshot.json")
    done = cli(hermes_home, "prompt")
    assert done.returncode == 0, done.stderr
    assert "- grep: search files" in done.stdout


def test_memory_file_linked_to_dev_zero_is_refused(hermes_home: Path) -> None:
    os.symlink("/dev/zero", memories(hermes_home) / "MEMORY.md")
    done = cli(hermes_home, "memory", "add", "a fact")
    assert done.returncode == 1 and "symbolic link" in done.stdout + done.stderr
    with pytest.raises(FileRefused, match="not a regular file"):
        read_text_file("/dev/zero")


def test_link_to_etc_passwd_in_the_memory_dir_is_not_read(hermes_home: Path) -> None:
    os.symlink("/etc/passwd", memories(hermes_home) / "USER.md")
    prompt = cli(hermes_home, "prompt")
    assert prompt.returncode == 0 and "root:" not in prompt.stdout
    assert "USER.md" in prompt.stderr and "symbolic link" in prompt.stderr
    added = cli(hermes_home, "memory", "add", "--target", "user", "a fact")
    assert added.returncode == 1 and "symbolic link" in added.stdout + added.stderr
    assert os.path.islink(hermes_home / "memories" / "USER.md")  # nothing replaced the user's link


def test_dangling_lock_link_creates_nothing(hermes_home: Path, tmp_path: Path) -> None:
    """The lock is the memory directory itself: a ``MEMORY.md.lock`` link (left by another
    tool, or planted) is never opened, so its target is never created."""
    target = tmp_path / "created-by-the-lock"
    os.symlink(target, memories(hermes_home) / "MEMORY.md.lock")
    done = cli(hermes_home, "memory", "add", "a fact")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not target.exists() and os.path.islink(hermes_home / "memories" / "MEMORY.md.lock")


def test_byte_order_mark_does_not_hide_the_first_entry(hermes_home: Path) -> None:
    (memories(hermes_home) / "MEMORY.md").write_bytes("\ufeffFirst fact\n§\nSecond fact\n".encode())
    prompt = cli(hermes_home, "prompt")
    assert "\nFirst fact\n§\nSecond fact" in prompt.stdout
    added = cli(hermes_home, "memory", "add", "Third fact")
    assert added.returncode == 0, added.stdout + added.stderr
    text = (hermes_home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    assert text == "First fact\n§\nSecond fact\n§\nThird fact\n"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to write as root")
def test_root_writing_into_a_users_home_keeps_the_owner(hermes_home: Path) -> None:
    uid, gid = 54321, 54321
    for path in (hermes_home.parent, hermes_home):
        os.chown(path, uid, gid)
    done = cli(hermes_home, "memory", "add", "root was here")  # memories/ does not exist yet
    assert done.returncode == 0, done.stdout + done.stderr
    for path in (hermes_home / "memories", hermes_home / "memories" / "MEMORY.md"):
        st = path.stat()
        assert (st.st_uid, st.st_gid) == (uid, gid), path
    os.chown(hermes_home / "memories" / "MEMORY.md", 777, 777)  # the user's own file, another owner
    assert cli(hermes_home, "memory", "add", "again").returncode == 0
    assert (hermes_home / "memories" / "MEMORY.md").stat().st_uid == 777


def test_link_leaving_its_directory_is_refused_when_asked(tmp_path: Path) -> None:
    inside = tmp_path / "home"
    inside.mkdir()
    (inside / "real.md").write_text("ok")
    os.symlink(inside / "real.md", inside / "near.md")
    os.symlink("/etc/hostname", inside / "far.md")
    assert read_text_file(inside / "near.md", within=inside) == "ok"
    with pytest.raises(FileRefused, match="outside"):
        read_text_file(inside / "far.md", within=inside)
    with pytest.raises(FileRefused, match="symbolic link"):
        read_text_file(inside / "near.md", follow_symlinks=False)


def test_huge_config_is_refused_without_reading_it(hermes_home: Path) -> None:
    with open(hermes_home / "config.yaml", "wb") as fh:
        fh.truncate(2 * 1024 * 1024 * 1024)  # sparse: 2 GB claimed, nothing on disk
    done = cli(hermes_home, "config", "check")
    assert done.returncode == 2 and "too large" in done.stderr and "config.yaml" in done.stderr


def test_json_tool_result_of_memory_cli_names_the_file(hermes_home: Path) -> None:
    os.mkfifo(memories(hermes_home) / "MEMORY.md")
    done = cli(hermes_home, "memory", "add", "--json", "x")
    result = json.loads(done.stdout)
    assert result["success"] is False and "MEMORY.md" in result["error"]


def test_a_projects_context_file_linking_outside_the_project_is_skipped(hermes_home: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("PRIVATE KEY MATERIAL")
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    os.symlink(secret, project / "AGENTS.md")  # a cloned repository can carry such a link
    (project / "docs").mkdir()
    (project / "docs" / "rules.md").write_text("Use tabs.")
    done = cli(hermes_home, "prompt", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "PRIVATE KEY" not in done.stdout
    os.unlink(project / "AGENTS.md")
    os.symlink("docs/rules.md", project / "AGENTS.md")  # a link inside the project is fine
    assert "Use tabs." in cli(hermes_home, "prompt", cwd=project).stdout


def test_fifo_as_the_migration_state_hangs_nothing(hermes_home: Path) -> None:
    (hermes_home / "state").mkdir()
    os.mkfifo(hermes_home / "state" / "migrations.json")
    done = subprocess.run([sys.executable, "-c", "from hermes_core import Session\nwith Session.open(): print('ok')"],
                          capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ,
                                                                                "HERMES_HOME": str(hermes_home)})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_replay_scratch_copy_skips_a_fifo_in_the_memory_dir(hermes_home: Path, tmp_path: Path) -> None:
    os.mkfifo(memories(hermes_home) / "MEMORY.md")
    (hermes_home / "memories" / "USER.md").write_text("Name: Ada\n")
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]))
    done = cli(hermes_home, "replay", str(transcript))
    assert done.returncode == 0, done.stderr

"""FIFOs and devices where the prompt expects text files: skipped and reported, never read.

Each case runs ``hermes-core prompt`` as a real process with a timeout and an address-space
limit, so a build that blocks on a FIFO or reads ``/dev/zero`` forever fails the test
instead of hanging or exhausting the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hermes_prompt.files import read_text

from .conftest import write_skill

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                                reason="needs POSIX FIFOs and /dev/zero")

MEMORY_LIMIT = 1 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def make_special(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink("/dev/zero", path)  # st_size 0, endless data


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize(
    ("where", "rel"),
    [
        ("home", "SOUL.md"),
        ("home", "skills/a/s/SKILL.md"),
        ("home", "skills/a/DESCRIPTION.md"),
        ("cwd", ".hermes.md"),
        ("cwd", "AGENTS.md"),
        ("cwd", "CLAUDE.md"),
        ("cwd", ".cursorrules"),
        ("cwd", ".cursor/rules/a.mdc"),
    ],
)
def test_special_file_is_skipped_not_read(tmp_path: Path, repo: Path, where: str, rel: str, kind: str) -> None:
    home = tmp_path / "home"
    write_skill(home / "skills", "b/ok", "name: ok\ndescription: Still listed")
    (repo / ".cursor" / "rules").mkdir(parents=True)
    (repo / ".cursor" / "rules" / "z.mdc").write_text("fallback rules", encoding="utf-8")
    special = (home if where == "home" else repo) / rel
    make_special(special, kind)
    main = "import sys; from hermes_core.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", main, "prompt", "--json", "--cwd", str(repo)],
        capture_output=True, text=True, timeout=20, preexec_fn=_limit_memory,
        env={**os.environ, "HERMES_HOME": str(home)},
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    skipped = [f for f in report["findings"] if f.get("path") == str(special)]
    assert [f["kind"] for f in skipped] == ["skipped"], report["findings"]
    assert skipped[0]["reason"].startswith("not a regular file")
    assert "You are Hermes Agent" in report["text"] and "- ok: Still listed" in report["text"]
    assert "fallback rules" in report["text"]


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux /proc")
def test_read_never_takes_more_than_max_bytes_plus_one(tmp_path: Path) -> None:
    """/proc files are regular but report st_size 0: the size check alone would read them whole."""
    link = tmp_path / "AGENTS.md"
    os.symlink("/proc/self/maps", link)
    assert Path("/proc/self/maps").stat().st_size == 0
    skipped = read_text(link, max_bytes=16)
    assert not isinstance(skipped, str) and skipped.reason.startswith("too large (more than 16 bytes")
    assert isinstance(read_text(link, max_bytes=1 << 20), str)

"""The durable outbox: order, persistence across reopen, ambiguity marks, rejection, drain lock, modes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hermes_memory_honcho.outbox import Outbox


def test_entries_survive_reopen_in_order(tmp_path: Path) -> None:
    path = tmp_path / "o.sqlite3"
    box = Outbox(path)
    keys = [box.append("turn", "s", {"n": i}) for i in range(5)]
    box.close()
    again = Outbox(path)
    pending = again.pending()
    assert [e.key for e in pending] == keys and [e.payload["n"] for e in pending] == list(range(5))
    again.delivered([pending[0].id, pending[1].id])
    assert [e.payload["n"] for e in again.pending()] == [2, 3, 4]
    assert again.counts()["pending"] == 3


def test_maybe_sent_is_committed_before_the_send(tmp_path: Path) -> None:
    path = tmp_path / "o.sqlite3"
    box = Outbox(path)
    box.append("turn", "s", {"n": 1})
    entry = box.pending()[0]
    box.mark_sending([entry.id])
    box.close()  # the process "dies" mid-request
    reopened = Outbox(path).pending()[0]
    assert reopened.maybe_sent and reopened.attempts == 1


def test_rejected_entries_are_kept_aside_not_dropped(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    box.append("turn", "s", {"n": 1})
    box.append("turn", "s", {"n": 2})
    first = box.pending()[0]
    box.reject(first.id, "HTTP 422: bad")
    assert [e.payload["n"] for e in box.pending()] == [2]
    counts = box.counts()
    assert counts["rejected"] == 1 and counts["pending"] == 1


def test_one_drainer_at_a_time_across_processes(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    code = (
        "import sys; from pathlib import Path; from hermes_memory_honcho.outbox import Outbox\n"
        "with Outbox(Path(sys.argv[1])).drain_lock() as got: print(got)\n"
    )
    with box.drain_lock() as mine:
        assert mine
        other = subprocess.run([sys.executable, "-c", code, str(box.path)], capture_output=True, text=True,
                               check=True)
        assert other.stdout.strip() == "False"
    after = subprocess.run([sys.executable, "-c", code, str(box.path)], capture_output=True, text=True, check=True)
    assert after.stdout.strip() == "True"


def test_appends_from_another_process_are_seen(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3")
    box.append("turn", "s", {"n": 0})
    code = (
        "import sys; from pathlib import Path; from hermes_memory_honcho.outbox import Outbox\n"
        "b = Outbox(Path(sys.argv[1]))\n"
        "[b.append('turn', 's', {'n': i}) for i in range(1, 4)]\n"
    )
    subprocess.run([sys.executable, "-c", code, str(box.path)], check=True)
    assert [e.payload["n"] for e in box.pending()] == [0, 1, 2, 3]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_the_outbox_is_private_to_its_owner(tmp_path: Path, umask_022: None) -> None:
    """It holds whole conversations and conclusions about the user (MEMORY.md is 0600 too)."""
    path = tmp_path / "home" / "honcho" / "outbox.sqlite3"
    box = Outbox(path)
    box.append("turn", "s", {"text": "my bank password is hunter2"})
    files = [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]
    assert oct(_mode(path.parent)) == "0o700"
    assert {f.name: oct(_mode(f)) for f in files} == {f.name: "0o600" for f in files}
    box.close()
    loose = Path(str(path) + "-old")  # a file left by an earlier version with default modes
    loose.write_bytes(path.read_bytes())
    loose.chmod(0o644)
    Outbox(loose).close()
    assert oct(_mode(loose)) == "0o600"

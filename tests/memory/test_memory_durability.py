"""Real processes against one store: no lost or duplicated entries, no partial files."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hermes_memory_builtin.store import MemoryStore, drift_reason, parse
from hermes_memory_builtin.tool import run_memory_tool

WRITER = Path(__file__).with_name("writer.py")
LIMITS = {"memory": 1_000_000, "user": 1_000_000}


def start(directory: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(WRITER), str(directory), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow  # multi-process stress
def test_eight_processes_fifty_writes_each_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    procs = [start(tmp_path, "stress", f"p{i}", "50") for i in range(8)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert json.loads(out) == {"failures": 0}
    entries = MemoryStore(tmp_path, LIMITS).entries("memory")
    expected = {f"p{i}-{'r' if j % 5 == 0 else 'e'}{j};" for i in range(8) for j in range(50)}
    assert len(entries) == len(expected) == 400
    assert set(entries) == expected
    assert not list(tmp_path.glob(".MEMORY.md.*.tmp"))


ENTRY_RX = re.compile(r"k(\d+):((\d{8})\3{249}):end")


def test_sigkill_mid_write_always_leaves_a_committed_file(tmp_path: Path) -> None:
    rng = random.Random(7)
    last_seen, mid_write_kills, rounds = -1, 0, 0
    while rounds < 40 and (rounds < 10 or mid_write_kills < 2):
        rounds += 1
        proc = start(tmp_path, "spin")
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.005, 0.08))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        mid_write_kills += bool(list(tmp_path.glob(".MEMORY.md.*.tmp")))  # killed between mkstemp and rename
        text = (tmp_path / "MEMORY.md").read_bytes().decode("utf-8") if (tmp_path / "MEMORY.md").exists() else ""
        assert drift_reason(text) is None
        entries = parse(text)
        numbers = []
        for entry in entries:
            match = ENTRY_RX.fullmatch(entry)
            assert match, f"torn entry: {entry[:40]}...{entry[-20:]}"
            assert int(match.group(3)) == int(match.group(1))
            numbers.append(int(match.group(1)))
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
        assert len(entries) <= 17
        last_seen = max(numbers, default=last_seen)
    assert last_seen > 0, "the writer never committed anything; the test proved nothing"
    assert mid_write_kills >= 1, "no kill landed mid-write; the test proved nothing"
    # The next writer cleans up temp files the killed ones left behind.
    store = MemoryStore(tmp_path, LIMITS)
    assert run_memory_tool(store, {"action": "add", "content": "after the storm"})["success"]
    assert not list(tmp_path.glob(".MEMORY.md.*.tmp"))


@pytest.mark.slow  # multi-process stress
def test_removing_the_lock_file_while_writers_run_loses_nothing(tmp_path: Path) -> None:
    """Someone deletes MEMORY.md.lock as "stale" while writers hold it: every add that
    reported success must still be on disk (a sidecar lock alone lost ~6% of them)."""
    directory = tmp_path / "memories"
    directory.mkdir()
    acks = [tmp_path / f"ack{n}" for n in range(4)]
    procs = [start(directory, "acked", f"w{n}", "150", str(acks[n])) for n in range(4)]
    lock = directory / "MEMORY.md.lock"
    deadline = time.monotonic() + 120
    while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
        lock.unlink(missing_ok=True)
        time.sleep(0.001)
    for proc in procs:
        assert proc.wait(timeout=60) == 0
    acknowledged = {line.strip() for ack in acks for line in ack.read_text().splitlines()}
    on_disk = set(MemoryStore(directory, {"memory": 10**6, "user": 10**6}).entries("memory"))
    assert len(acknowledged) > 200
    assert acknowledged - on_disk == set()


def test_one_lock_one_read_two_fsyncs_and_the_directory_fsync_after_the_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a write does, in order: lock the directory, read, write + fsync the temp file,
    rename, unlock, fsync the directory. Nothing is listed and no other lock is taken."""
    import fcntl
    import threading

    me = threading.get_ident()  # other threads of the test process (pools, logging) are not this write
    store = MemoryStore(tmp_path, LIMITS)
    assert run_memory_tool(store, {"action": "add", "content": "warm"})["success"]
    events: list[str] = []

    def recorded(name: str, real: Any, describe: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == me:
                events.append(describe(*args))
            return real(*args, **kwargs)
        monkeypatch.setattr(name, call)

    def kind(fd: int) -> str:
        return "dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"

    lock_names = {fcntl.LOCK_UN: "unlock"}
    recorded("fcntl.flock", fcntl.flock, lambda fd, op: f"{lock_names.get(op, 'lock')} {kind(fd)}")
    recorded("os.fsync", os.fsync, lambda fd: f"fsync {kind(fd)}")
    recorded("os.open", os.open, lambda path, *a, **k: f"open {Path(path).name}")
    recorded("os.replace", os.replace, lambda src, dst: f"rename {Path(src).name} {Path(dst).name}")
    recorded("os.scandir", os.scandir, lambda *a: "list")
    recorded("os.listdir", os.listdir, lambda *a: "list")
    assert run_memory_tool(store, {"action": "add", "content": "second"})["success"]
    assert events == [f"open {tmp_path.name}", "lock dir", "open MEMORY.md", "open .MEMORY.md.write.tmp",
                      "fsync file", "rename .MEMORY.md.write.tmp MEMORY.md", "unlock dir", "fsync dir"]


def test_lock_of_a_killed_holder_never_blocks(tmp_path: Path) -> None:
    holder = start(tmp_path, "hold")
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    store = MemoryStore(tmp_path, LIMITS, lock_timeout=0.3)
    blocked = run_memory_tool(store, {"action": "add", "content": "while locked"})
    assert blocked["success"] is False and "locked by another live process" in blocked["error"]
    assert not (tmp_path / "MEMORY.md").exists()

    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=10)
    # Same 0.3 s lock timeout as above: success proves the dead holder's lock is gone.
    assert run_memory_tool(store, {"action": "add", "content": "after the crash"})["success"]
    assert store.entries("memory") == ["after the crash"]


def test_files_are_owner_only(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "memories", LIMITS)
    assert run_memory_tool(store, {"action": "add", "target": "user", "content": "Prefers tabs"})["success"]
    assert stat.S_IMODE((tmp_path / "memories").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "memories" / "USER.md").stat().st_mode) == 0o600
    assert not list((tmp_path / "memories").glob("*.lock"))  # the lock is the directory: no lock file


def test_file_size_limit_mid_write_leaves_the_old_file(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, LIMITS)
    assert run_memory_tool(store, {"action": "add", "content": "existing entry"})["success"]
    before = (tmp_path / "MEMORY.md").read_bytes()
    proc = start(tmp_path, "fsize", "4096", "20000")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    result = json.loads(out)
    assert result["success"] is False
    assert "file size limit" in result["error"] and "not changed" in result["error"]
    assert (tmp_path / "MEMORY.md").read_bytes() == before
    assert not list(tmp_path.glob(".MEMORY.md.*.tmp"))


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    return done.returncode == 0


@pytest.fixture
def tmpfs(tmp_path: Path):  # type: ignore[no-untyped-def]
    mount = tmp_path / "mnt"
    if not _mount_tmpfs(mount, "64k"):
        pytest.skip("cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_gives_a_clear_error_and_keeps_the_file(tmpfs: Path) -> None:
    store = MemoryStore(tmpfs / "memories", LIMITS)
    assert run_memory_tool(store, {"action": "add", "content": "kept"})["success"]
    (tmpfs / "filler").write_bytes(b"\0" * 40_000)
    result = run_memory_tool(store, {"action": "add", "content": "x" * 30_000})
    assert result["success"] is False and "disk is full" in result["error"], result
    assert store.entries("memory") == ["kept"]
    assert not list((tmpfs / "memories").glob(".MEMORY.md.*.tmp"))


def test_read_only_directory_gives_a_clear_error(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    directory = tmp_path / "memories"
    store = MemoryStore(directory, LIMITS)
    assert run_memory_tool(store, {"action": "add", "content": "kept"})["success"]
    if os.geteuid() != 0:
        directory.chmod(0o500)
        request.addfinalizer(lambda: directory.chmod(0o700))
    else:
        mount = request.getfixturevalue("tmpfs")
        directory = mount / "memories"
        store = MemoryStore(directory, LIMITS)
        assert run_memory_tool(store, {"action": "add", "content": "kept"})["success"]
        remount = subprocess.run(["mount", "-o", "remount,ro", str(mount)], capture_output=True)
        if remount.returncode:
            pytest.skip("cannot remount read-only")
    result = run_memory_tool(store, {"action": "add", "content": "new"})
    assert result["success"] is False
    assert "read-only" in result["error"] or "permission denied" in result["error"].lower(), result
    assert store.entries("memory") == ["kept"]


def test_unusable_memory_directory_gives_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "memories").write_text("not a directory")
    store = MemoryStore(tmp_path / "memories", LIMITS)
    result = run_memory_tool(store, {"action": "add", "content": "x"})
    assert result["success"] is False and result["error"].startswith("Cannot create the memory directory")
    assert run_memory_tool(store, {"action": "read"})["success"] is False

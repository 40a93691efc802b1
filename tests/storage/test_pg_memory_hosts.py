"""Four hosts x eight writers x 100 adds against one PostgreSQL: 3,200 entries, none lost.

Each host is a separate process with its own ``$HERMES_HOME``; its writers are sessions
built from that home's config.yaml (``storage.backend: postgres``) and write through the
``memory`` tool. Run with the database restarted mid-run (every add must still succeed,
so this is also the plain case), and with hosts SIGKILLed mid-write (and restarted,
resuming from their acks).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from hermes_memory_builtin.pg_store import PgMemoryStore

from hermes_core.config.models import StorageConfig
from hermes_core.testing.postgres import DSN_ENV, restart_server

HOST = Path(__file__).with_name("pg_host.py")
HOSTS, WRITERS, ADDS = 4, 8, 100
LIMITS = {"memory": 1_000_000, "user": 1_000_000}


def make_home(root: Path, n: int, namespace: str) -> Path:
    home = root / f"host{n}"
    home.mkdir()
    config = {"storage": {"backend": "postgres", "dsn_env": DSN_ENV, "namespace": namespace},
              "memory": {"memory_char_limit": LIMITS["memory"]}}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    return home


def start(home: Path, prefix: str, acks: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "HERMES_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, str(HOST), str(home), prefix, str(WRITERS), str(ADDS), str(acks)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready", proc.stderr and proc.stderr.read()
    return proc


def finish(proc: subprocess.Popen[str]) -> dict[str, dict[str, object]]:
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def expected() -> set[str]:
    return {f"h{h}w{w}-{j}" for h in range(HOSTS) for w in range(WRITERS) for j in range(ADDS)}


def check(namespace: str, acks: Path) -> None:
    entries = PgMemoryStore(StorageConfig(backend="postgres", dsn_env=DSN_ENV, namespace=namespace),
                            LIMITS).entries("memory")
    acked = {line for f in acks.glob("*.ack") for line in f.read_text().split()}
    assert len(entries) == len(set(entries)), "an entry was stored twice"
    assert acked <= set(entries), f"{len(acked - set(entries))} acknowledged writes lost"
    assert set(entries) == expected() and len(entries) == HOSTS * WRITERS * ADDS


@pytest.fixture
def hosts(tmp_path: Path, namespace: str, pg_dsn: str) -> tuple[list[Path], Path]:
    acks = tmp_path / "acks"
    acks.mkdir()
    return [make_home(tmp_path, n, namespace) for n in range(HOSTS)], acks


@pytest.mark.slow
def test_sigkilled_hosts_lose_no_acknowledged_write(hosts: tuple[list[Path], Path], namespace: str) -> None:
    homes, acks = hosts
    rng = random.Random(16)
    procs = {n: start(home, f"h{n}", acks) for n, home in enumerate(homes)}
    kills = 0
    for _ in range(6):  # kill a random host mid-write, then start it again; it resumes from its acks
        time.sleep(rng.uniform(0.3, 0.8))
        n = rng.randrange(HOSTS)
        if procs[n].poll() is None:
            procs[n].send_signal(signal.SIGKILL)
            procs[n].wait(timeout=10)
            kills += 1
        procs[n] = start(homes[n], f"h{n}", acks)
    assert kills >= 3
    for proc in procs.values():
        report = finish(proc)
        assert all(r["failures"] == 0 for r in report.values()), report
    check(namespace, acks)


@pytest.mark.slow
def test_four_hosts_eight_writers_through_a_database_restart_lose_nothing(hosts: tuple[list[Path], Path],
                                                                          namespace: str) -> None:
    homes, acks = hosts
    procs = [start(home, f"h{n}", acks) for n, home in enumerate(homes)]
    deadline = time.monotonic() + 60
    while len([f for f in acks.glob("*.ack") if f.stat().st_size]) < HOSTS * WRITERS:  # every writer is writing
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.05)
    acked_before = sum(len(f.read_text().split()) for f in acks.glob("*.ack"))
    restart_server()
    assert acked_before < HOSTS * WRITERS * ADDS * 0.9, "the restart came too late to be mid-run"
    for proc in procs:
        report = finish(proc)
        assert all(r["failures"] == 0 for r in report.values()), report  # every add succeeded, through the restart
    check(namespace, acks)
    other = PgMemoryStore(StorageConfig(backend="postgres", dsn_env=DSN_ENV, namespace=namespace + "-other"), LIMITS)
    assert other.entries("memory") == []  # and another namespace saw none of it


"""A real PostgreSQL for tests of the ``postgres`` storage backend (and of plugins using it).

``HERMES_TEST_PG_DSN`` names a server (``.ci/run`` starts a throwaway one;
``HERMES_TEST_PG_BIN`` and ``HERMES_TEST_PG_DATA`` let restart tests drive ``pg_ctl``).
Without it, tests skip locally and fail under ``CI=true``. :func:`fresh_database` gives
each test session a database of its own, dropped afterwards, so runs never mix rows.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

DSN_ENV = "HERMES_TEST_STORE_DSN"  # the variable storage.dsn_env names in tests


def require(variable: str) -> str:
    """``$variable``; skip the test when unset, or fail it under ``CI=true``."""
    value = os.environ.get(variable, "")
    if not value:
        message = f"{variable} is not set: no PostgreSQL server for the storage tests"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (required when CI=true; .ci/run starts one)")
        pytest.skip(message)
    return value


@contextmanager
def fresh_database(server: str, env: str = DSN_ENV) -> Iterator[str]:
    """Create a database on ``server``, export its DSN as ``$env`` (subprocesses inherit it), drop it after."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    name = f"hermes_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')  # a name generated here, never user input
    dsn = make_conninfo(server, dbname=name)
    previous = os.environ.get(env)
    os.environ[env] = dsn
    try:
        yield dsn
    finally:
        from hermes_core.storage import locks, pool

        pool.close_all()
        locks.close_all()
        if previous is None:
            os.environ.pop(env, None)
        else:
            os.environ[env] = previous
        try:
            with psycopg.connect(server, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except psycopg.Error:
            pass  # the server is down after a failed restart test; its data dir is throwaway


def restart_server(mode: str = "restart") -> None:
    """``pg_ctl restart`` (or ``stop`` / ``start`` / ``reload``) of the test server, as its owner."""
    pg_bin, pg_data = require("HERMES_TEST_PG_BIN"), require("HERMES_TEST_PG_DATA")
    cmd = [str(Path(pg_bin) / "pg_ctl"), "-D", pg_data, "-w", mode]
    if mode in ("restart", "stop"):
        cmd += ["-m", "fast"]
    if mode in ("restart", "start"):  # the server's output goes to its log, never to a pipe of ours
        cmd += ["-l", str(Path(pg_data) / "server.log")]
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    done = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, timeout=60)
    if done.returncode:
        raise RuntimeError(f"pg_ctl {mode} failed: {done.stderr.strip()}")

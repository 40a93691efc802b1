"""Benchmark the storage backends side by side in one run: files/SQLite vs PostgreSQL.

Needs a PostgreSQL server: ``HERMES_TEST_PG_DSN`` (or ``--dsn``); a fresh database is
created for the run and dropped after it.

Method (2-core machine, noisy; medians; every run checks its own result):

* memory adds/s: writers are threads of a "host" process, each adding entries through
  the ``memory`` tool's dispatcher to one shared store (3,200 adds in total per run, so
  every backend ends with the same store size). files = 1 host x 8 writers on
  MEMORY.md (flock, fsync, rename); postgres = 1 host x 8 writers, and 4 hosts x 8 writers
  (separate processes, each with its own pool). The clock runs from a shared start signal
  to the last writer's end; ``--runs`` runs, median; each run checks 3,200 distinct entries.
* LCM: ``--messages`` corpus messages (the transcripts, cycled under fresh session ids) are
  ingested in turn-sized appends of 8 (ingest: messages/s and per-append p50/p95); open =
  a new store object + the resume reads of one session (layout, messages; PostgreSQL pools
  closed first, so a connection is made), 30 times; grep = ``lcm_grep`` through the tool,
  20 patterns x scope all / session, p50/p95. Sizes above ``--append-max`` load PostgreSQL
  with ``storage migrate``'s bulk copy from the SQLite file instead of appends.
* sessions: N concurrent sessions in one process (built-in memory and LCM on PostgreSQL,
  plus one trivial external provider, as a gateway would hold them); after opening, every
  session runs turns round-robin (at least 3 each and 300 in all: start_turn, request,
  add_response, a memory read);
  per-turn p50/p99, threads, PostgreSQL connections of this database, RSS.

Usage: python benchmarks/bench_storage.py [--messages 100000] [--sessions 1,100,1000] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

DSN_ENV = "HERMES_BENCH_STORE_DSN"
LIMITS = {"memory": 10_000_000, "user": 10_000_000}
TOTAL_ADDS = 3200


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


# -- memory --------------------------------------------------------------------------------------


def _store(backend: str, where: str, namespace: str) -> Any:
    if backend == "files":
        from hermes_memory_builtin.store import MemoryStore

        return MemoryStore(Path(where), LIMITS, lock_timeout=120)
    from hermes_memory_builtin.pg_store import PgMemoryStore

    from hermes_core.config.models import StorageConfig

    return PgMemoryStore(StorageConfig(backend="postgres", dsn_env=DSN_ENV, namespace=namespace), LIMITS,
                         lock_timeout=120)


def host_process(backend: str, where: str, namespace: str, prefix: str, writers: int, adds: int, go: str) -> None:
    """One host: ``writers`` threads adding ``adds`` entries each, after ``go`` appears."""
    from hermes_memory_builtin.tool import run_memory_tool

    store = _store(backend, where, namespace)
    store.entries("memory")  # connect (and create the schema) before the clock starts
    failures: list[str] = []

    def write(w: int) -> None:
        for j in range(adds):
            result = run_memory_tool(store, {"action": "add", "target": "memory", "content": f"{prefix}w{w}-{j}"})
            if not result["success"]:
                failures.append(str(result.get("error")))

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    print("ready", flush=True)
    while not Path(go).exists():
        time.sleep(0.001)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"failures": len(failures), "first": failures[:1]}), flush=True)


def memory_run(backend: str, hosts: int, writers: int) -> float:
    import uuid

    adds = TOTAL_ADDS // (hosts * writers)
    with tempfile.TemporaryDirectory() as where:
        namespace = f"bench-{uuid.uuid4().hex[:8]}"
        go = os.path.join(where, "go")
        procs = [subprocess.Popen([sys.executable, __file__, "--host", backend, where, namespace, f"h{h}",
                                   str(writers), str(adds), go], stdout=subprocess.PIPE, text=True)
                 for h in range(hosts)]
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        start = time.perf_counter()
        Path(go).touch()
        for p in procs:
            out, _ = p.communicate(timeout=600)
            assert json.loads(out)["failures"] == 0, out
        elapsed = time.perf_counter() - start
        entries = _store(backend, where, namespace).entries("memory")
        assert len(entries) == len(set(entries)) == hosts * writers * adds, len(entries)
    return hosts * writers * adds / elapsed


def bench_memory(runs: int) -> list[dict[str, Any]]:
    rows = []
    for label, backend, hosts in (("files, 1 host x 8 writers", "files", 1),
                                  ("postgres, 1 host x 8 writers", "postgres", 1),
                                  ("postgres, 4 hosts x 8 writers", "postgres", 4)):
        rates = [memory_run(backend, hosts, 8) for _ in range(runs)]
        rows.append({"setup": label, "adds_per_s": round(statistics.median(rates), 1),
                     "runs": [round(r, 1) for r in rates]})
        print(f"memory  {label:<32} {statistics.median(rates):8.1f} adds/s  {rates}", file=sys.stderr)
    return rows


# -- LCM --------------------------------------------------------------------------------------------

PATTERNS = ["error", "test", "import os", '"file not found"', "pars*", "python OR rust", "test NOT pytest",
            "Traceback", "README", "docker*", "config yaml", "git commit", "assert", "json", "def", "TODO",
            "permission denied", "install", "version", "timeout"]


def corpus_messages() -> list[list[dict[str, Any]]]:
    from hermes_core.apps.transcripts import load_transcript
    from hermes_core.testing.engine_conformance import corpus_dir

    directory = corpus_dir(Path(__file__).resolve())
    if directory is None:
        raise SystemExit("corpus not found: set HERMES_CORPUS")
    return [load_transcript(p).messages for p in sorted(directory.glob("*.json"))]


class _Engine:
    def __init__(self, store: Any, session_id: str) -> None:
        from hermes_context_lcm.settings import LCMSettings

        self.store, self.session_id, self.settings = store, session_id, LCMSettings()


def _open_sqlite(path: Path) -> Any:
    from hermes_context_lcm.store import SQLiteStore

    return SQLiteStore(path)


def _open_pg(namespace: str) -> Any:
    from hermes_context_lcm.pg_store import PgStore

    from hermes_core.config.models import StorageConfig

    return PgStore(StorageConfig(backend="postgres", dsn_env=DSN_ENV, namespace=namespace))


def bench_lcm(total: int, workdir: Path, pg_load: str = "append") -> list[dict[str, Any]]:
    from hermes_context_lcm.tools import run_tool

    from hermes_core.storage import pool

    transcripts = corpus_messages()
    rows = []
    for backend in ("sqlite", "postgres"):
        namespace = f"lcm-bench-{total}"
        store = _open_sqlite(workdir / f"lcm-{total}.db") if backend == "sqlite" else _open_pg(namespace)
        sessions: list[str] = []
        latencies: list[float] = []
        done, k = 0, 0
        start, cpu = time.perf_counter(), time.process_time()
        if backend == "postgres" and pg_load == "copy":  # the bulk path of `storage migrate`, from the SQLite file
            from hermes_context_lcm.pg_transfer import to_postgres

            report = to_postgres(workdir / f"lcm-{total}.db", store)
            assert report.verified
            done, sessions = report.messages, rows[0]["sessions"]
        while done < total:
            messages = transcripts[k % len(transcripts)]
            session = f"s{k}"
            sessions.append(session)
            k += 1
            for at in range(0, len(messages), 8):
                batch = messages[at:at + 8][: total - done]
                if not batch:
                    break
                t0 = time.perf_counter()
                store.append(session, batch)
                latencies.append(time.perf_counter() - t0)
                done += len(batch)
                if done >= total:
                    break
        store.flush_index()
        ingest, cpu = time.perf_counter() - start, time.process_time() - cpu
        rng = random.Random(7)
        opens = []
        if backend == "sqlite":
            store.close()
        fresh = None
        for _ in range(30):
            session = rng.choice(sessions)
            if backend == "postgres":
                pool.close_all()
            if fresh is not None and backend == "sqlite":
                fresh.close()
            t0 = time.perf_counter()
            fresh = _open_sqlite(workdir / f"lcm-{total}.db") if backend == "sqlite" else _open_pg(namespace)
            fresh.load_layout(session)
            fresh.session_messages(session, after_id=0, limit=1 << 30)
            opens.append(time.perf_counter() - t0)
        store = fresh
        greps: dict[str, list[float]] = {"all": [], "session": []}
        for pattern in PATTERNS:
            for scope in ("all", "session"):
                engine = _Engine(store, rng.choice(sessions))
                t0 = time.perf_counter()
                out = json.loads(run_tool(engine, "lcm_grep", {"pattern": pattern, "scope": scope}) or "{}")
                greps[scope].append(time.perf_counter() - t0)
                assert "error" not in out, out
        if backend == "postgres":
            store._run(lambda conn: conn.execute("ANALYZE lcm_messages"))  # as autovacuum would, soon after
        row = {"backend": backend, "messages": done, "ingest_msgs_per_s": round(done / ingest),
               "ingest_client_cpu_ms_per_msg": round(cpu / done * 1000, 3),
               "load_average": round(os.getloadavg()[0], 1),
               "ingest": "copy (storage migrate)" if backend == "postgres" and pg_load == "copy" else "append",
               "append_p50_ms": round(pct(latencies, 0.5) * 1000, 2),
               "append_p95_ms": round(pct(latencies, 0.95) * 1000, 2),
               "open_p50_ms": round(pct(opens, 0.5) * 1000, 1), "open_p95_ms": round(pct(opens, 0.95) * 1000, 1)}
        for scope, values in greps.items():
            row[f"grep_{scope}_p50_ms"] = round(pct(values, 0.5) * 1000, 1)
            row[f"grep_{scope}_p95_ms"] = round(pct(values, 0.95) * 1000, 1)
        rows.append({**row, "sessions": sessions})
        print(f"lcm     {row}", file=sys.stderr)
        if backend == "sqlite":
            store.close()
    return rows


# -- sessions ---------------------------------------------------------------------------------------


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _connections(dsn: str) -> int:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                           (conninfo_to_dict(dsn)["dbname"],)).fetchone()
    return int(row[0]) if row else 0


def bench_sessions(counts: list[int], dsn: str, workdir: Path) -> list[dict[str, Any]]:
    from hermes_core.config.models import HermesConfig
    from hermes_core.memory.base import MemoryProvider
    from hermes_core.plugin.host import build_host
    from hermes_core.session.session import Session

    class EchoProvider(MemoryProvider):
        """A trivial external provider: what every gateway session would carry besides builtin."""

        @property
        def name(self) -> str:
            return "echo"

        def is_available(self) -> tuple[bool, str]:
            return True, ""

        def initialize(self, session_id: str) -> None:
            self.turns = 0

        def sync_turn(self, user_content: str, assistant_content: str) -> None:
            self.turns += 1

    rows = []
    for n in counts:
        config = HermesConfig.model_validate({
            "storage": {"backend": "postgres", "dsn_env": DSN_ENV, "namespace": f"sessions-{n}"},
            "context": {"engine": "lcm"}, "memory": {"provider": "echo"}})
        threads_before, rss_before = threading.active_count(), _rss_mb()
        t0 = time.perf_counter()
        sessions = [Session(build_host(config, home=workdir, providers={"echo": EchoProvider}))
                    for _ in range(n)]
        opened = time.perf_counter() - t0
        turns: list[float] = []
        for turn in range(max(3, 300 // n)):  # at least 300 turns in all, so p50/p99 mean something
            for i, session in enumerate(sessions):
                t = time.perf_counter()
                session.start_turn(f"turn {turn} of session {i}")
                session.request()
                session.add_response(f"reply {turn}")
                session.call_tool("memory", {"action": "read", "target": "memory"})
                turns.append(time.perf_counter() - t)
        row = {"sessions": n, "open_s": round(opened, 2),
               "turn_p50_ms": round(pct(turns, 0.5) * 1000, 2), "turn_p99_ms": round(pct(turns, 0.99) * 1000, 2),
               "threads": threading.active_count(), "threads_added": threading.active_count() - threads_before,
               "thread_kinds": dict(Counter(t.name.rstrip("0123456789-_ ") or "?"
                                            for t in threading.enumerate()).most_common(3)),
               "pg_connections": _connections(dsn), "rss_mb": round(_rss_mb(), 1),
               "rss_added_mb": round(_rss_mb() - rss_before, 1)}
        for session in sessions:
            session.close()
        rows.append(row)
        print(f"sessions {row}", file=sys.stderr)
    return rows


def markdown(result: dict[str, Any]) -> str:
    lines: list[str] = []
    if result.get("memory"):
        lines += ["| memory setup | adds/s (median) |", "|---|---:|"]
        lines += [f"| {r['setup']} | {r['adds_per_s']:,.0f} |" for r in result["memory"]]
    if result.get("lcm"):
        lines += ["", "| LCM backend | messages | ingest msg/s | append p50/p95 ms | open p50/p95 ms | "
                      "grep all p50/p95 ms | grep session p50/p95 ms |", "|---|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {r['backend']} ({r['ingest']}) | {r['messages']:,} | {r['ingest_msgs_per_s']:,} | "
                  f"{r['append_p50_ms']} / "
                  f"{r['append_p95_ms']} | {r['open_p50_ms']} / {r['open_p95_ms']} | {r['grep_all_p50_ms']} / "
                  f"{r['grep_all_p95_ms']} | {r['grep_session_p50_ms']} / {r['grep_session_p95_ms']} |"
                  for r in result["lcm"]]
    if result.get("sessions"):
        lines += ["", "| sessions | turn p50 ms | turn p99 ms | threads (added) | PG connections | RSS MB (added) |",
                  "|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {r['sessions']:,} | {r['turn_p50_ms']} | {r['turn_p99_ms']} | {r['threads']} "
                  f"({r['threads_added']}) | {r['pg_connections']} | {r['rss_mb']} ({r['rss_added_mb']}) |"
                  for r in result["sessions"]]
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--host":
        backend, where, namespace, prefix, writers, adds, go = sys.argv[2:]
        host_process(backend, where, namespace, prefix, int(writers), int(adds), go)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", default=os.environ.get("HERMES_TEST_PG_DSN", ""))
    parser.add_argument("--messages", default="100000", help="comma-separated LCM sizes (0: skip)")
    parser.add_argument("--sessions", default="1,100,1000", help="comma-separated session counts ('': skip)")
    parser.add_argument("--runs", type=int, default=3, help="memory runs per setup (0: skip)")
    parser.add_argument("--append-max", type=int, default=200_000,
                        help="larger LCM sizes load PostgreSQL with storage migrate's bulk copy, not appends")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.dsn:
        raise SystemExit("no PostgreSQL: pass --dsn or set HERMES_TEST_PG_DSN")
    from hermes_core.testing.postgres import fresh_database

    result: dict[str, Any] = {}
    with fresh_database(args.dsn, env=DSN_ENV) as dsn, tempfile.TemporaryDirectory() as tmp:
        if args.runs:
            result["memory"] = bench_memory(args.runs)
        for size in [int(s) for s in args.messages.split(",") if s.strip() and int(s)]:
            rows = bench_lcm(size, Path(tmp), "copy" if size > args.append_max else "append")
            result.setdefault("lcm", []).extend({k: v for k, v in r.items() if k != "sessions"} for r in rows)
        counts = [int(s) for s in args.sessions.split(",") if s.strip()]
        if counts:
            result["sessions"] = bench_sessions(counts, dsn, Path(tmp))
    print(json.dumps(result, indent=2) if args.json else markdown(result))


if __name__ == "__main__":
    main()

"""LCM at scale, SQLite vs PostgreSQL side by side in one run: bulk load, per-turn ingest at
that size, open, grep p50/p95 by word class, size on disk.

Needs a PostgreSQL server (``--dsn`` or ``HERMES_TEST_PG_DSN``); each size gets a fresh
database, dropped after it. Method (2-core machine, noisy: medians and p95; CPU beside wall):

* data: the corpus transcripts, cycled under fresh session ids until ``--messages``.
* bulk load. SQLite: each transcript copy appended as one batch (the store's own append).
  PostgreSQL: ``storage migrate --to postgres``'s copy from that SQLite file
  (:func:`hermes_context_lcm.pg_transfer.to_postgres`: binary COPY, encoding in worker
  processes, indexes built after the rows), timed with its row-by-row verification, which
  is also reported apart. Client CPU: this process, and apart its worker processes.
  Server CPU = user+system time of the server's processes (/proc, so the server must run
  on this machine).
* per turn at that size: ``--turns`` appends of 8 messages into new sessions, the two
  backends alternating turn by turn; messages/s, append p50/p95.
* open: a new store object and one session's resume reads (layout, messages; PostgreSQL
  pools closed first, so a connection is made), 30 times each, alternating.
* grep: ``lcm_grep`` through the tool, per word class (common words, rare words - in one
  corpus message, so one per copy -, phrases, prefixes, boolean), scope all and session,
  ``--calls`` calls per class, scope and backend, alternating.
* size: the SQLite file (+WAL) and the PostgreSQL database (``pg_database_size``).

Usage: python benchmarks/bench_storage_scale.py [--messages 100000,1000000] [--turns 2000] [--calls 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DSN_ENV = "HERMES_BENCH_SCALE_DSN"
CLASSES: dict[str, list[str]] = {
    "common": ["error", "test", "file", "return", "the"],
    "phrase": ['"file not found"', '"import os"', '"git commit"', '"permission denied"'],
    "prefix": ["pars*", "docker*", "conf*", "instal*"],
    "boolean": ["python OR rust", "test NOT pytest", "import AND json"],
}


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def corpus() -> list[list[dict[str, Any]]]:
    from hermes_core.apps.transcripts import load_transcript
    from hermes_core.testing.engine_conformance import corpus_dir

    directory = corpus_dir(Path(__file__).resolve())
    if directory is None:
        raise SystemExit("corpus not found: set HERMES_CORPUS")
    return [load_transcript(p).messages for p in sorted(directory.glob("*.json"))]


def rare_words(transcripts: list[list[dict[str, Any]]], n: int = 5) -> list[str]:
    """Words in exactly one corpus message (so in one message per copy of the corpus)."""
    seen: dict[str, int] = {}
    for msgs in transcripts:
        for msg in msgs:
            for word in set(re.findall(r"[A-Za-z]{7,}", str(msg.get("content") or ""))):
                seen[word] = seen.get(word, 0) + 1
    once = sorted(w for w, c in seen.items() if c == 1)
    return once[:: max(1, len(once) // n)][:n]


def server_cpu(conn: Any) -> float:
    """User+system seconds of every process of the server ``conn`` talks to (this machine)."""
    tick = os.sysconf("SC_CLK_TCK")
    backend = int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])
    postmaster = int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(stat.parent.name)
        if pid == postmaster:  # its own time and that of its children that exited (parallel workers)
            total += sum(int(f) for f in fields[11:15])
        elif int(fields[1]) == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def _children_cpu() -> float:
    """User+system seconds of this process's finished children (the bulk load's workers)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class _Engine:
    def __init__(self, store: Any, session_id: str) -> None:
        from hermes_context_lcm.settings import LCMSettings

        self.store, self.session_id, self.settings = store, session_id, LCMSettings()


def _sqlite(path: Path) -> Any:
    from hermes_context_lcm.store import SQLiteStore

    return SQLiteStore(path)


def _pg(namespace: str) -> Any:
    from hermes_context_lcm.pg_store import PgStore

    from hermes_core.config.models import StorageConfig

    return PgStore(StorageConfig(backend="postgres", dsn_env=DSN_ENV, namespace=namespace))


def run_size(total: int, server: str, turns: int, calls: int) -> dict[str, Any]:
    from hermes_context_lcm.pg_transfer import to_postgres
    from hermes_context_lcm.tools import run_tool

    from hermes_core.storage import pool
    from hermes_core.testing.postgres import fresh_database

    transcripts = corpus()
    out: dict[str, Any] = {"messages": total, "load_start": round(os.getloadavg()[0], 1)}
    with fresh_database(server, env=DSN_ENV), tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "lcm.db"
        # -- bulk: SQLite, a transcript copy per append ------------------------------------------
        lite = _sqlite(db)
        sessions: list[str] = []
        done, k = 0, 0
        t0, c0 = time.perf_counter(), time.process_time()
        while done < total:
            messages = transcripts[k % len(transcripts)][: total - done]
            sessions.append(f"s{k}")
            lite.append(sessions[-1], messages)
            done += len(messages)
            k += 1
        lite.flush_index()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        out["sqlite_bulk"] = {"msgs_per_s": round(total / wall), "wall_s": round(wall, 1),
                              "client_cpu_ms_per_msg": round(cpu / total * 1000, 3)}
        print(f"[{total}] sqlite bulk {out['sqlite_bulk']}", file=sys.stderr, flush=True)
        # -- bulk: PostgreSQL, storage migrate's copy ---------------------------------------------
        pg = _pg("bench")
        import hermes_context_lcm.pg_transfer as transfer

        phases: dict[str, float] = {}
        real_verify = transfer.verify

        def timed_verify(*args: Any) -> bool:
            start = time.perf_counter()
            try:
                return real_verify(*args)
            finally:
                phases["verify_s"] = time.perf_counter() - start

        transfer.verify = timed_verify  # type: ignore[assignment]
        s0 = pg._run(server_cpu)
        t0, c0, w0 = time.perf_counter(), time.process_time(), _children_cpu()
        report = to_postgres(db, pg)
        wall, cpu, workers = time.perf_counter() - t0, time.process_time() - c0, _children_cpu() - w0
        s1 = pg._run(server_cpu)
        transfer.verify = real_verify  # type: ignore[assignment]
        assert report.verified and report.messages == total, report.as_dict()
        out["pg_bulk"] = {"msgs_per_s": round(total / wall), "wall_s": round(wall, 1),
                          "verify_s": round(phases["verify_s"], 1),
                          "client_cpu_ms_per_msg": round(cpu / total * 1000, 3),
                          "worker_cpu_ms_per_msg": round(workers / total * 1000, 3),
                          "server_cpu_ms_per_msg": round((s1 - s0) / total * 1000, 3),
                          "load": round(os.getloadavg()[0], 1)}
        print(f"[{total}] pg bulk {out['pg_bulk']}", file=sys.stderr, flush=True)
        # -- per turn at that size, alternating ----------------------------------------------------
        times: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        cpus = {"sqlite": 0.0, "postgres": 0.0}
        sent, k = 0, 0
        s0 = pg._run(server_cpu)
        while sent < turns:
            messages = transcripts[k % len(transcripts)]
            session = f"turns{k}"
            k += 1
            for at in range(0, len(messages), 8):
                batch = messages[at : at + 8]
                for name, store in (("sqlite", lite), ("postgres", pg)):
                    t0, c0 = time.perf_counter(), time.process_time()
                    store.append(session, batch)
                    times[name].append(time.perf_counter() - t0)
                    cpus[name] += time.process_time() - c0
                sent += len(batch)
                if sent >= turns:
                    break
        s1 = pg._run(server_cpu)
        lite.flush_index()
        for name in times:
            out[f"{name}_turns"] = {
                "messages": sent, "msgs_per_s": round(sent / sum(times[name])),
                "append_p50_ms": round(pct(times[name], 0.5) * 1000, 2),
                "append_p95_ms": round(pct(times[name], 0.95) * 1000, 2),
                "client_cpu_ms_per_msg": round(cpus[name] / sent * 1000, 3)}
        out["postgres_turns"]["server_cpu_ms_per_msg"] = round((s1 - s0) / sent * 1000, 3)
        print(f"[{total}] turns {out['sqlite_turns']} {out['postgres_turns']}", file=sys.stderr, flush=True)
        lite.close()
        # -- open, alternating ------------------------------------------------------------------------
        rng = random.Random(7)
        opens: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        stores: dict[str, Any] = {}
        for _ in range(30):
            session = rng.choice(sessions)
            for name in ("sqlite", "postgres"):
                if name == "postgres":
                    pool.close_all()
                elif "sqlite" in stores:
                    stores["sqlite"].close()
                t0 = time.perf_counter()
                store = _sqlite(db) if name == "sqlite" else _pg("bench")
                store.load_layout(session)
                store.session_messages(session, after_id=0, limit=1 << 30)
                opens[name].append(time.perf_counter() - t0)
                stores[name] = store
        for name, values in opens.items():
            out[f"{name}_open"] = {"p50_ms": round(pct(values, 0.5) * 1000, 1),
                                   "p95_ms": round(pct(values, 0.95) * 1000, 1)}
        # -- grep by word class, alternating -------------------------------------------------------
        classes = {**CLASSES, "rare": rare_words(transcripts)}
        grep: dict[str, dict[str, Any]] = {}
        for label, patterns in classes.items():
            for scope in ("all", "session"):
                found: dict[str, list[float]] = {"sqlite": [], "postgres": []}
                hits: dict[str, list[int]] = {"sqlite": [], "postgres": []}
                for i in range(calls):
                    args = {"pattern": patterns[i % len(patterns)], "scope": scope, "limit": 10}
                    session = rng.choice(sessions)
                    for name in ("sqlite", "postgres"):
                        engine = _Engine(stores[name], session)
                        t0 = time.perf_counter()
                        result = json.loads(run_tool(engine, "lcm_grep", args) or "{}")
                        found[name].append(time.perf_counter() - t0)
                        assert "error" not in result, (name, args, result)
                        hits[name].append(int(result.get("count", 0)))
                for name in found:
                    grep[f"{name}/{label}/{scope}"] = {
                        "p50_ms": round(pct(found[name], 0.5) * 1000, 1),
                        "p95_ms": round(pct(found[name], 0.95) * 1000, 1),
                        "mean_hits": round(statistics.mean(hits[name]), 1)}
        out["grep"] = grep
        stores["sqlite"].close()
        # -- size ------------------------------------------------------------------------------------
        wal = Path(f"{db}-wal")
        out["sqlite_mb"] = round((db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)) / 2**20)
        out["pg_mb"] = round(stores["postgres"]._rows("SELECT pg_database_size(current_database())", ())[0][0] / 2**20)
        out["load_end"] = round(os.getloadavg()[0], 1)
        pool.close_all()
    print(f"[{total}] done {json.dumps(out)}", file=sys.stderr, flush=True)
    return out


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| messages | backend | bulk load msg/s (wall) | per turn msg/s | append p50 / p95 | open p50 / p95 "
             "| size MB |", "|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        for name, bulk in (("sqlite", "sqlite_bulk"), ("postgres", "pg_bulk")):
            t, o = r[f"{name}_turns"], r[f"{name}_open"]
            lines.append(f"| {r['messages']:,} | {name} | {r[bulk]['msgs_per_s']:,} ({r[bulk]['wall_s']} s) | "
                         f"{t['msgs_per_s']:,} | {t['append_p50_ms']} / {t['append_p95_ms']} ms | "
                         f"{o['p50_ms']} / {o['p95_ms']} ms | {r['sqlite_mb' if name == 'sqlite' else 'pg_mb']:,} |")
    lines += ["", "| messages | class | scope | SQLite p50 / p95 ms | PostgreSQL p50 / p95 ms |",
              "|---:|---|---|---:|---:|"]
    for r in rows:
        for key, value in r["grep"].items():
            name, label, scope = key.split("/")
            if name == "sqlite":
                other = r["grep"][f"postgres/{label}/{scope}"]
                lines.append(f"| {r['messages']:,} | {label} | {scope} | {value['p50_ms']} / {value['p95_ms']} | "
                             f"{other['p50_ms']} / {other['p95_ms']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", default=os.environ.get("HERMES_TEST_PG_DSN", ""))
    parser.add_argument("--messages", default="100000,1000000", help="comma-separated store sizes")
    parser.add_argument("--turns", type=int, default=2000, help="messages appended turn by turn at each size")
    parser.add_argument("--calls", type=int, default=20, help="grep calls per word class, scope and backend")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.dsn:
        raise SystemExit("no PostgreSQL: pass --dsn or set HERMES_TEST_PG_DSN")
    rows = [run_size(int(s), args.dsn, args.turns, args.calls) for s in args.messages.split(",") if s.strip()]
    print(json.dumps(rows, indent=2) if args.json else markdown(rows))


if __name__ == "__main__":
    main()

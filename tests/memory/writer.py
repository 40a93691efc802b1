"""A separate writer process for the multi-process memory tests (not a test module).

Usage: python writer.py DIR MODE [ARGS...]
  stress PREFIX N     N adds through the memory tool, then swap every 5th entry in a batch
  spin                add self-checking entries forever, removing old ones (for SIGKILL)
  hold                take the store's lock like a writer would and sleep forever
  fsize BYTES CHARS   cap the file size at BYTES (RLIMIT_FSIZE) and try to add CHARS chars
  acked PREFIX N ACK  N single adds; append each one that reported success to the file ACK
"""

from __future__ import annotations

import json
import resource
import signal
import sys
import time
from pathlib import Path

from hermes_memory_builtin.operations import Operation, apply_all
from hermes_memory_builtin.store import MemoryStore

LIMITS = {"memory": 1_000_000, "user": 1_000_000}


def spin_entry(n: int) -> str:
    return f"k{n}:" + (f"{n:08d}" * 250) + ":end"


def main() -> None:
    directory, mode, *rest = sys.argv[1:]
    store = MemoryStore(Path(directory), LIMITS, lock_timeout=60)
    if mode == "stress":
        from hermes_memory_builtin.tool import run_memory_tool

        prefix, count = rest[0], int(rest[1])
        failures = 0
        for j in range(count):
            failures += not run_memory_tool(store, {"action": "add", "content": f"{prefix}-e{j};"})["success"]
        for j in range(0, count, 5):  # every 5th entry: swap it for another in one batch
            result = run_memory_tool(
                store, {"operations": [{"action": "remove", "old_text": f"{prefix}-e{j};"},
                                       {"action": "add", "content": f"{prefix}-r{j};"}]})
            failures += not result["success"]
        print(json.dumps({"failures": failures}), flush=True)
    elif mode == "spin":
        print("ready", flush=True)

        def change(entries: list[str]) -> tuple[list[str], None]:
            n = max((int(e[1:].split(":", 1)[0]) for e in entries), default=-1) + 1
            ops = [Operation("add", spin_entry(n))]
            if len(entries) >= 16:
                ops.append(Operation("remove", "", entries[0].split(":", 1)[0] + ":"))
            return apply_all(entries, ops, LIMITS["memory"], "memory")[0], None

        while True:
            store.mutate("memory", change)
    elif mode == "acked":
        prefix, count, ack = rest[0], int(rest[1]), Path(rest[2])
        with ack.open("a") as out:
            for j in range(count):
                entry = f"{prefix}-{j}"
                try:
                    store.mutate("memory", lambda e, entry=entry: apply_all(e, [Operation("add", entry)],
                                                                           LIMITS["memory"], "memory"))
                except Exception:
                    continue
                out.write(entry + "\n")
                out.flush()
    elif mode == "hold":
        store._ensure_directory()
        store._lock_directory(store.path("memory"))  # held until the process dies
        print("locked", flush=True)
        time.sleep(600)
    elif mode == "fsize":
        from hermes_memory_builtin.tool import run_memory_tool

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # so write() fails with EFBIG instead of killing us
        limit = int(rest[0])
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        print(json.dumps(run_memory_tool(store, {"action": "add", "content": "z" * int(rest[1])})), flush=True)
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()

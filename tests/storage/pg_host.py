"""One "host" for the multi-host memory tests (a separate process, not a test module).

Usage: python pg_host.py HOME PREFIX WRITERS ADDS ACKDIR

Builds WRITERS hosts (sessions) from HOME/config.yaml, as a gateway would, and runs them
on WRITERS threads; each adds ADDS entries through the ``memory`` tool and appends every
entry whose add reported success to its own ack file. Entries already acked are skipped,
so a restarted host resumes where its killed predecessor stopped. Prints a JSON summary.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

from hermes_core.plugin.host import build_host


def writer(home: Path, name: str, adds: int, ack: Path, report: dict[str, object]) -> None:
    done = set(ack.read_text().split()) if ack.exists() else set()
    host = build_host(home=home)
    failures, errors = 0, []
    try:
        with ack.open("a") as out:
            for j in range(adds):
                entry = f"{name}-{j}"
                if entry in done:
                    continue
                result = json.loads(host.handle_tool_call("memory", {"action": "add", "target": "memory",
                                                                     "content": entry}))
                if result.get("success") is True:
                    out.write(entry + "\n")
                    out.flush()
                else:
                    failures += 1
                    errors.append(result.get("error"))
    finally:
        host.close()
    report[name] = {"failures": failures, "errors": errors[:3]}


def main() -> None:
    home, prefix, writers, adds, ackdir = sys.argv[1:]
    report: dict[str, object] = {}
    threads = [threading.Thread(target=writer, args=(Path(home), f"{prefix}w{w}", int(adds),
                                                     Path(ackdir) / f"{prefix}w{w}.ack", report))
               for w in range(int(writers))]
    print("ready", flush=True)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()

"""Real processes: two agents sharing one outbox, and an agent killed mid-delivery."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hermes_memory_honcho.fake_server import FakeHonchoServer, Fault

AGENT = """
import sys, time
from pathlib import Path
from hermes_core.plugin.context import PluginContext
from hermes_memory_honcho import HonchoMemoryProvider, HonchoSettings
home, url, session, label, count, linger = sys.argv[1:7]
settings = HonchoSettings(base_url=url, session_strategy="per-session", timeout=2.0, retry_initial=0.05,
                          retry_max=0.2, flush_wait=10.0)
provider = HonchoMemoryProvider(PluginContext.default(home=Path(home), settings=settings))
provider.initialize(session)
for i in range(int(count)):
    provider.sync_turn(f"{label} user {i}", f"{label} assistant {i}")
print("synced", flush=True)
time.sleep(float(linger))
provider.on_session_end(session, [])
provider.shutdown()
"""


def agent(home: Path, server: FakeHonchoServer, session: str, label: str, count: int,
          linger: float = 0.0) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", AGENT, str(home), server.url, session, label, str(count),
                             str(linger)], stdout=subprocess.PIPE, text=True)


def test_two_agents_sharing_a_home_deliver_every_turn_once(
    tmp_path: Path, server: FakeHonchoServer, stored: Any, eventually: Any
) -> None:
    server.faults.append(Fault(delay=0.3, path="/messages", method="POST"))  # slow writes: the two drains would overlap
    procs = [agent(tmp_path, server, "shared", label, 25) for label in ("A", "B")]
    for proc in procs:
        assert proc.wait(60) == 0
    assert eventually(lambda: len(stored(server, "shared")) >= 100, 20)
    time.sleep(0.4)  # a duplicate would still be in flight
    got = stored(server, "shared")
    for label in ("A", "B"):
        mine = [text for text in got if text.startswith(f"{label} ")]
        assert mine == [f"{label} {who} {i}" for i in range(25) for who in ("user", "assistant")]


def test_an_agent_killed_mid_delivery_loses_and_doubles_nothing(
    tmp_path: Path, server: FakeHonchoServer, stored: Any, eventually: Any, make_provider: Any
) -> None:
    server.faults.append(Fault(delay=1.0, path="/messages", method="POST", times=1))
    proc = agent(tmp_path, server, "killed", "K", 6, linger=30)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "synced"
    assert eventually(lambda: any(m == "POST" and p.endswith("/messages") for m, p in server.requests), 10)
    os.kill(proc.pid, signal.SIGKILL)  # while its first batch is in flight
    proc.wait(10)
    time.sleep(1.2)  # the server finishes storing the in-flight batch
    survivor = make_provider(home=tmp_path)
    survivor.initialize("killed")
    survivor.on_session_end("killed", [])
    assert eventually(lambda: len(stored(server, "killed")) >= 12)
    time.sleep(0.2)
    assert stored(server, "killed") == [f"K {who} {i}" for i in range(6) for who in ("user", "assistant")]

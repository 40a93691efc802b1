"""Real processes: two agents sharing one outbox, an agent killed mid-delivery, an agent exiting mid-request."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hermes_memory_honcho.fake_server import Fault

AGENT = """
import sys, time
from pathlib import Path
from hermes_core.plugin.context import PluginContext
from hermes_memory_honcho import HonchoMemoryProvider, HonchoSettings
home, url, session, label, count, linger, workspace = sys.argv[1:8]
settings = HonchoSettings(base_url=url, workspace=workspace, session_strategy="per-session", timeout=2.0,
                          retry_initial=0.05, retry_max=0.2, flush_wait=10.0)
provider = HonchoMemoryProvider(PluginContext.default(home=Path(home), settings=settings))
provider.initialize(session)
for i in range(int(count)):
    provider.sync_turn(f"{label} user {i}", f"{label} assistant {i}")
print("synced", flush=True)
time.sleep(float(linger))
provider.on_session_end(session, [])
provider.shutdown()
"""


def agent(home: Path, server: Any, session: str, label: str, count: int,
          linger: float = 0.0, workspace: str = "hermes") -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", AGENT, str(home), server.url, session, label, str(count),
                             str(linger), workspace], stdout=subprocess.PIPE, text=True)


@pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)
def test_two_agents_sharing_a_home_deliver_every_turn_once(
    tmp_path: Path, backend: Any, stored: Any, eventually: Any
) -> None:
    if backend.kind == "fake":  # slow writes, so the two drains would overlap (the real server is slow enough)
        backend.fake.faults.append(Fault(delay=0.3, path="/messages", method="POST"))
    procs = [agent(tmp_path, backend, "shared", label, 25, workspace=backend.workspace) for label in ("A", "B")]
    for proc in procs:
        assert proc.wait(60) == 0
    assert eventually(lambda: len(stored(backend, "shared")) >= 100, 20)
    time.sleep(0.4)  # a duplicate would still be in flight
    got = stored(backend, "shared")
    for label in ("A", "B"):
        mine = [text for text in got if text.startswith(f"{label} ")]
        assert mine == [f"{label} {who} {i}" for i in range(25) for who in ("user", "assistant")]


@pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)
def test_an_agent_killed_mid_delivery_loses_and_doubles_nothing(
    tmp_path: Path, backend: Any, stored: Any, eventually: Any, make_provider: Any
) -> None:
    if backend.kind == "fake":
        backend.fake.faults.append(Fault(delay=1.0, path="/messages", method="POST", times=1))
    proc = agent(tmp_path, backend, "killed", "K", 6, linger=30, workspace=backend.workspace)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "synced"
    if backend.kind == "fake":
        requests = backend.fake.requests
        assert eventually(lambda: any(m == "POST" and p.endswith("/messages") for m, p in requests), 10)
    else:
        time.sleep(0.3)  # its courier is connecting or sending: the kill lands at some point of that
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    time.sleep(1.2)  # the server finishes storing an in-flight batch
    survivor = make_provider(home=tmp_path)
    survivor.initialize("killed")
    survivor.on_session_end("killed", [])
    assert eventually(lambda: len(stored(backend, "killed")) >= 12)
    time.sleep(0.2)
    assert stored(backend, "killed") == [f"K {who} {i}" for i in range(6) for who in ("user", "assistant")]


EXIT_MID_REQUEST = """
import os, sys, time
from pathlib import Path
from hermes_core.plugin.context import PluginContext
from hermes_memory_honcho import HonchoMemoryProvider, HonchoSettings
home, url = sys.argv[1:3]
settings = HonchoSettings(base_url=url, workspace="hermes", timeout=60.0, flush_wait=3.0, dialectic=True)
provider = HonchoMemoryProvider(PluginContext.default(home=Path(home), settings=settings))
provider.initialize("exit")
provider.sync_turn("We ship on Monday.", "Noted.")
provider.queue_prefetch("when do we ship?")
while provider.link.stalled_for() < 1.5:
    time.sleep(0.05)
provider.shutdown()

class SlowExit:
    def __del__(self, write=os.write, sleep=time.sleep):
        write(1, b"finalizing\\n")
        sleep(3)  # the GIL is free: a thread woken now takes it during finalisation

last = SlowExit()
"""


def test_an_agent_exiting_while_honcho_still_owes_answers_exits_cleanly(tmp_path: Path) -> None:
    """Its requests (recall, delivery, dialectic) hang on a server that never answers; the
    connections end only once the interpreter is finalising. A thread of ours still waiting
    then would wake and abort the process (SIGABRT, exit 134): shutdown cuts them first."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.1)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    proc = subprocess.Popen([sys.executable, "-c", EXIT_MID_REQUEST, str(tmp_path), url],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    held: list[socket.socket] = []
    assert proc.stdout is not None
    try:
        os.set_blocking(proc.stdout.fileno(), False)
        deadline = time.monotonic() + 30
        while "finalizing" not in (proc.stdout.readline() or "") and time.monotonic() < deadline:
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue
        assert len(held) >= 2  # the recall warm-up and the courier at least
    finally:
        for conn in held:
            conn.close()  # the answers it no longer waits for: the connections end now
        listener.close()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err[-2000:]

"""Fixtures: the real Honcho server (``HONCHO_URL``), a fake one for fault injection, and
providers wired to either.

The real server is required when ``CI=true`` (``.ci/run`` starts it and exports
``HONCHO_URL``); locally its tests skip when ``HONCHO_URL`` is unset. Each test gets a
workspace of its own on it. Tests that stop and restart it find the start/stop scripts
in ``$HONCHO_SERVER_DIR``, else ``../shared/honcho-server`` beside the repository (where
CI lays them); the scripts read ``HONCHO_BASE`` as ``.ci/run`` exports it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hermes_memory_honcho import HonchoMemoryProvider, HonchoSettings
from hermes_memory_honcho.fake_server import FakeHonchoServer

from hermes_core.plugin.context import PluginContext

REPO = Path(__file__).resolve().parents[3]


def server_scripts() -> Path:
    if os.environ.get("HONCHO_SERVER_DIR"):
        return Path(os.environ["HONCHO_SERVER_DIR"])
    return Path(os.environ.get("HERMES_SHARED") or REPO.parent / "shared") / "honcho-server"


class RealHoncho:
    """The real server: one workspace per test, read back over HTTP, stopped and started
    with the shared scripts (an API restart takes 5-11 s, so outage tests are few)."""

    kind = "real"

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.workspace = "t" + uuid.uuid4().hex[:12]
        self.http = httpx.Client(base_url=self.url + "/v3", timeout=30)

    def messages(self, session: str | None = None) -> list[dict[str, Any]]:
        assert session is not None, "the real server is read one session at a time"
        rows: list[dict[str, Any]] = []
        page = 1
        while True:
            r = self.http.post(f"/workspaces/{self.workspace}/sessions/{session}/messages/list",
                               params={"page": page, "size": 100}, json={})
            if r.status_code == 404:
                return rows
            r.raise_for_status()
            body = r.json()
            rows += body["items"]
            if page >= body["pages"]:
                return rows
            page += 1

    def delete_session(self, session: str) -> None:
        r = self.http.delete(f"/workspaces/{self.workspace}/sessions/{session}")
        assert r.status_code in (200, 202), r.text

    def _script(self, name: str, *args: str) -> None:
        script = server_scripts() / name
        assert script.exists(), f"{script} not found: set HONCHO_SERVER_DIR to the shared honcho-server folder"
        subprocess.run(["bash", str(script), *args], check=True, capture_output=True, timeout=120)

    def stop(self) -> None:
        """An outage: the API server goes away (its PostgreSQL stays)."""
        self._script("stop", "--server-only")

    def start(self) -> None:
        self._script("start", "--server-only")
        assert wait_for(lambda: _healthy(self.url), 60), "the real Honcho server did not come back"

    def close(self) -> None:
        self.http.close()


class FakeBackend:
    """The fake server behind the same small interface as :class:`RealHoncho`."""

    kind = "fake"
    workspace = "hermes"

    def __init__(self, fake: FakeHonchoServer) -> None:
        self.fake = fake

    @property
    def url(self) -> str:
        return self.fake.url

    def messages(self, session: str | None = None) -> list[dict[str, Any]]:
        return self.fake.messages(session)

    def delete_session(self, session: str) -> None:
        self.fake.delete_session(self.workspace, session)

    def stop(self) -> None:
        self.fake.stop()

    def start(self) -> None:
        self.fake.start()


def _healthy(url: str) -> bool:
    try:
        return httpx.get(url.rstrip("/") + "/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture(scope="session")
def real_honcho_url() -> str:
    """``HONCHO_URL``; skip without it locally, fail without it (or if it is down) in CI."""
    url = os.environ.get("HONCHO_URL", "")
    ci = os.environ.get("CI", "").lower() == "true"
    if not url:
        if ci:
            pytest.fail("CI=true but HONCHO_URL is unset: the real Honcho server tests are required "
                        "(.ci/run starts it)")
        pytest.skip("HONCHO_URL is unset: no real Honcho server")
    if not _healthy(url):
        pytest.fail(f"HONCHO_URL={url} does not answer /health")
    return url


@pytest.fixture
def real(real_honcho_url: str) -> Iterator[RealHoncho]:
    backend = RealHoncho(real_honcho_url)
    yield backend
    if not _healthy(backend.url):  # a test that stopped it failed half-way: leave it running for the next
        backend.start()
    backend.close()


@pytest.fixture
def server() -> Iterator[FakeHonchoServer]:
    fake = FakeHonchoServer().start()
    yield fake
    fake.stop()


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> Any:
    """The fake by default; ``@pytest.mark.parametrize("backend", BOTH, indirect=True)`` runs a
    test against the real server too."""
    if getattr(request, "param", "fake") == "real":
        return request.getfixturevalue("real")
    return FakeBackend(request.getfixturevalue("server"))


@pytest.fixture
def make_provider(tmp_path: Path, backend: Any) -> Iterator[Callable[..., HonchoMemoryProvider]]:
    """``make_provider(home=None, **settings)``: a provider pointed at ``backend``.

    Fast retries and short timeouts keep outage tests quick. Providers are shut down at
    teardown (shutdown is idempotent, so tests may shut down themselves).
    """
    made: list[HonchoMemoryProvider] = []

    def make(home: Path | None = None, **overrides: Any) -> HonchoMemoryProvider:
        settings: dict[str, Any] = {"base_url": backend.url, "workspace": backend.workspace,
                                    "session_strategy": "per-session", "timeout": 1.0,
                                    "retry_initial": 0.05, "retry_max": 0.2, "flush_wait": 5.0,
                                    "first_turn_wait": 1.0}
        settings.update(overrides)
        ctx = PluginContext.default(home=home or tmp_path / "home", settings=HonchoSettings(**settings))
        provider = HonchoMemoryProvider(ctx)
        made.append(provider)
        return provider

    yield make
    for provider in made:
        provider.shutdown()


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


@pytest.fixture
def eventually() -> Callable[..., bool]:
    return wait_for


def contents(server: Any, session: str | None = None) -> list[str]:
    return [m["content"] for m in server.messages(session)]


@pytest.fixture
def stored() -> Callable[..., list[str]]:
    """``stored(server, session=None)``: message contents the server holds, in order."""
    return contents


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A 127.0.0.1 socket that accepts connections and never answers: a hung server."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join(2)
    for conn in held:
        conn.close()
    listener.close()

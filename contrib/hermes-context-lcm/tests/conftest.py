"""Fixtures for the LCM tests: the real corpus, engines on a temporary home, a local summary server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.settings import LCMSettings
from hermes_summarizers.deterministic import DeterministicSummarizer

from hermes_core.apps.transcripts import load_transcript
from hermes_core.config.models import HermesConfig
from hermes_core.plugin.context import PluginContext
from hermes_core.testing.engine_conformance import corpus_dir

CORPUS = corpus_dir(Path(__file__).resolve()) or Path(__file__).resolve().parents[4] / "shared/corpus/transcripts"


@pytest.fixture(scope="session")
def corpus() -> list[Path]:
    files = sorted(CORPUS.glob("*.json"))
    if not files:
        pytest.skip(f"corpus not found at {CORPUS}")
    return files


@pytest.fixture(scope="session")
def corpus_messages(corpus: list[Path]) -> dict[str, list[dict[str, Any]]]:
    return {p.stem: load_transcript(p).messages for p in corpus}


@pytest.fixture
def make_engine(tmp_path: Path) -> Iterator[Callable[..., LCMEngine]]:
    """``make_engine(context_length=16000, summarizer=..., pre_compress=..., **settings)``."""
    built: list[LCMEngine] = []

    def make(context_length: int = 16_000, summarizer: Any = None, pre_compress: Any = None,
             home: Path | None = None, **settings: Any) -> LCMEngine:
        config = HermesConfig.model_validate({"model": {"context_length": context_length}})
        ctx = PluginContext(home=home or tmp_path, config=config, settings=LCMSettings(**settings),
                            summarizer=summarizer or DeterministicSummarizer(),
                            fallback_summarizer=DeterministicSummarizer())
        if pre_compress is not None:
            ctx.pre_compress = pre_compress
        engine = LCMEngine(ctx)
        built.append(engine)
        return engine

    yield make
    for engine in built:
        engine.close()


def _drive(engine: LCMEngine, messages: list[dict[str, Any]], session_id: str = "s1",
           after: Callable[[list[dict[str, Any]]], None] | None = None) -> list[dict[str, Any]]:
    """Feed a transcript the way a runtime does: append, preflight, compact when due
    (``after(live)`` after each compaction)."""
    engine.on_session_start(session_id)
    live: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        live.append(msg)
        if i + 1 < len(messages) and messages[i + 1].get("role") == "tool":
            continue  # mid-group: a runtime only calls the model between complete groups
        if engine.should_compress_preflight(live):
            live = engine.compress(live).messages
            if after is not None:
                after(live)
    return live


@pytest.fixture
def drive() -> Callable[..., list[dict[str, Any]]]:
    """``drive(engine, messages, session_id="s1", after=None)``: the live list after the whole transcript."""
    return _drive


class SummaryServer:
    """A real OpenAI-compatible chat-completions server on 127.0.0.1."""

    def __init__(self) -> None:
        self.mode = "ok"  # ok | error | garbage
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                if outer.mode == "error":
                    self._send(500, b'{"error": "boom"}')
                elif outer.mode == "garbage":
                    self._send(200, b"not json")
                else:
                    message = {"role": "assistant", "content": "Model summary: work on the app."}
                    answer = {"choices": [{"message": message}]}
                    self._send(200, json.dumps(answer).encode())

            def _send(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def summary_server() -> Iterator[SummaryServer]:
    server = SummaryServer()
    yield server
    server.close()


SESSION = r"""
import json, sys
from pathlib import Path
from hermes_context_lcm.engine import LCMEngine
try:
    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.context import PluginContext
except ImportError:
    from hermes_core.config import HermesConfig
    from hermes_core.plugin_context import PluginContext
home, session, turns = sys.argv[1], sys.argv[2], int(sys.argv[3])
config = HermesConfig.model_validate({"model": {"context_length": 4000}})
engine = LCMEngine(PluginContext(home=Path(home), config=config))
engine.on_session_start(session)
live = [{"role": "system", "content": "system prompt"}]
for i in range(turns):
    live.append({"role": "user", "content": f"{session} question {i} about the zebrafish gene " + "words " * 40})
    live.append({"role": "assistant", "content": f"{session} answer {i} " + "text " * 40})
    if engine.should_compress_preflight(live):
        live = engine.compress(live).messages
grep = json.loads(engine.handle_tool_call("lcm_grep", {"pattern": "zebrafish", "scope": "session"}))
status = engine.get_status()
print(json.dumps({"grep": grep, "state": status.get("state"), "store_error": status.get("store_error"),
                  "events": status.get("store_events", []), "summary": status.get("summary"),
                  "stored": engine.store.session_size(engine.session_id), "compactions": engine.compression_count}))
engine.close()
"""


def _run_session(home: Path, session: str, turns: int) -> dict[str, Any]:
    """One real process: an engine over ``turns`` synthetic turns; its status and a grep as JSON."""
    env = dict(os.environ)
    if os.environ.get("LCM_WORKER_PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["LCM_WORKER_PYTHONPATH"]
    done = subprocess.run([sys.executable, "-c", SESSION, str(home), session, str(turns)], capture_output=True,
                          text=True, timeout=120, env=env, cwd=home)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def run_session() -> Callable[[Path, str, int], dict[str, Any]]:
    """``run_session(home, session, turns)`` in a separate Python process (``LCM_WORKER_PYTHONPATH``
    runs it against another checkout)."""
    return _run_session

"""Fixtures for the LCM tests: the real corpus, engines on a temporary home, a local summary server."""

from __future__ import annotations

import json
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

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "transcripts"


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


def _drive(engine: LCMEngine, messages: list[dict[str, Any]], session_id: str = "s1") -> list[dict[str, Any]]:
    """Feed a transcript the way a runtime does: append, preflight, compact when due."""
    engine.on_session_start(session_id)
    live: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        live.append(msg)
        if i + 1 < len(messages) and messages[i + 1].get("role") == "tool":
            continue  # mid-group: a runtime only calls the model between complete groups
        if engine.should_compress_preflight(live):
            live = engine.compress(live)
    return live


@pytest.fixture
def drive() -> Callable[..., list[dict[str, Any]]]:
    """``drive(engine, messages, session_id="s1")``: the live list after the whole transcript."""
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

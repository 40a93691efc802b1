"""Restarts and concurrent processes on one session, with real processes.

A process can die after the engine saved a compaction's layout but before the host saved
the compacted list; the host then hands back the list from before that compaction. And two
processes can be started on the same session id. Neither may duplicate or mix messages.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hermes_core.testing.engine_conformance import corpus_dir

CORPUS = corpus_dir(Path(__file__).resolve()) or Path(__file__).resolve().parents[4] / "shared/corpus/transcripts"
POMODORO = CORPUS / "claude-code_ai-sessions_pomodoro.json"

# Runs one engine over the transcript in its own process. argv: home, session, label,
# crash_at (die right after that compaction, before the host saved its result; 0: never),
# hold (a file: after the first compaction, wait until it exists, holding the session).
WORKER = r"""
import json, os, sys, time
from pathlib import Path
from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.settings import LCMSettings
from hermes_core.config.models import HermesConfig
from hermes_core.plugin.context import PluginContext
from hermes_summarizers.deterministic import DeterministicSummarizer
from hermes_core.apps.transcripts import load_transcript
from hermes_core.testing.engine_conformance import corpus_dir

home, session, label, crash_at, hold, corpus = sys.argv[1:7]
msgs = [m for m in load_transcript(Path(corpus)).messages if m["role"] != "system"]
msgs = [{**m, "content": f"[{label}] {m['content']}"} if isinstance(m.get("content"), str) else m for m in msgs]
config = HermesConfig.model_validate({"model": {"context_length": 8000}})
engine = LCMEngine(PluginContext(home=Path(home), config=config, settings=LCMSettings(large_output_chars=2000),
                                 summarizer=DeterministicSummarizer()))
engine.on_session_start(session)
live, compactions = [], 0
for i, m in enumerate(msgs):
    live.append(m)
    if (i + 1 == len(msgs) or msgs[i + 1]["role"] != "tool") and engine.should_compress_preflight(live):
        before = json.loads(json.dumps(live))
        live = engine.compress(live).messages
        compactions += 1
        if compactions == int(crash_at):
            Path(home, f"host_{label}.json").write_text(json.dumps({"live": before, "seen": i + 1}))  # the host's copy
            os._exit(1)  # the crash: the engine saved its layout, the host never saved `live`
        if hold and compactions == 1:
            Path(home, f"holding_{label}").touch()
            while not Path(hold).exists():
                time.sleep(0.01)
engine.on_session_end(session, live)
Path(home, f"live_{label}.json").write_text(json.dumps({"live": live, "session": engine.session_id}))
"""


def _start(home: Path, session: str, label: str, crash_at: int = 0, hold: Path | None = None) -> subprocess.Popen[str]:
    args = [sys.executable, "-c", WORKER, str(home), session, label, str(crash_at), str(hold or ""), str(POMODORO)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen[str], ok: bool = True) -> None:
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode == 0) == ok, err


@pytest.fixture
def pomodoro() -> list[dict[str, Any]]:
    if not POMODORO.exists():
        pytest.skip(f"corpus not found at {POMODORO}")
    from hermes_core.apps.transcripts import load_transcript

    return [m for m in load_transcript(POMODORO).messages if m["role"] != "system"]


@pytest.mark.parametrize("crash_at", [1, 2])
def test_crash_between_layout_save_and_host_save_stores_nothing_twice(
    make_engine: Any, pomodoro: Any, tmp_path: Path, crash_at: int
) -> None:
    """The reviewer's scenario: the host hands back the list from before the compaction the
    dead process had finished; every message in it is already stored and must be recognised."""
    proc = _start(tmp_path, "crash", "A", crash_at=crash_at)
    _finish(proc, ok=False)
    host = json.loads((tmp_path / "host_A.json").read_text())
    host_list, seen = host["live"], host["seen"]
    engine = make_engine(context_length=8000, large_output_chars=2000)
    engine.on_session_start("crash")
    stored_before = engine.store.session_size("crash")
    engine.should_compress_preflight(host_list)
    assert engine.session_id == "crash"
    assert engine.store.session_size("crash") == stored_before  # was 2x after a crash at the first compaction
    # the conversation goes on from there; every message ends up stored exactly once
    labelled = [{**m, "content": f"[A] {m['content']}"} if isinstance(m.get("content"), str) else m for m in pomodoro]
    live = host_list
    for i, msg in enumerate(labelled[seen:], start=seen):
        live.append(msg)
        if (i + 1 == len(labelled) or labelled[i + 1]["role"] != "tool") and engine.should_compress_preflight(live):
            live = engine.compress(live).messages
    engine.on_session_end("crash", live)
    rows = engine.store.session_messages("crash", limit=100_000)
    assert [r.message() for r in rows] == labelled


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def _covered_ids(store: Any, summary_block: str) -> list[int]:
    """Every message under the summaries a context shows, down the DAG."""
    todo = [int(n) for n in re.findall(r'<summary id="sum_(\d+)"', summary_block)]
    out: list[int] = []
    while todo:
        rows = store.get_summaries(todo)
        out += [m for r in rows if r.covers_kind == "messages" for m in r.covers]
        todo = [c for r in rows if r.covers_kind == "summaries" for c in r.covers]
    return out


def test_two_processes_on_one_session_never_get_each_others_summaries(tmp_path: Path, pomodoro: Any) -> None:
    """B starts while A holds session "shared" (A has compacted once and is still running): B
    stores under a derived id, and neither context nor session holds the other's messages."""
    go = tmp_path / "go"
    a = _start(tmp_path, "shared", "A", hold=go)
    _wait_for(tmp_path / "holding_A", a)
    b = _start(tmp_path, "shared", "B")
    _finish(b)
    go.touch()
    _finish(a)
    from hermes_context_lcm.store import SQLiteStore

    store = SQLiteStore(tmp_path / "lcm.db")
    try:
        for label, other in (("B", "A"), ("A", "B")):
            result = json.loads((tmp_path / f"live_{label}.json").read_text())
            session = result["session"]
            assert f"[{other}]" not in json.dumps(result["live"])
            covered = store.get_messages(_covered_ids(store, result["live"][0]["content"]))
            assert covered and not [m.id for m in covered if f"[{other}]" in (m.content or "")]  # were A's
            assert session == ("shared" if label == "A" else "shared#concurrent-2")
            assert result["live"][0]["content"].startswith("[LCM] Earlier parts")  # both did compact
            rows = store.session_messages(session, limit=100_000)
            labelled = [{**m, "content": f"[{label}] {m['content']}"} if isinstance(m.get("content"), str) else m
                        for m in pomodoro]
            assert [r.message() for r in rows] == labelled  # each conversation stored once, unmixed
            summaries = "".join(s.content for s in store.all_summaries(session))
            assert f"[{label}]" in summaries and f"[{other}]" not in summaries
    finally:
        store.close()


def test_a_second_engine_in_one_process_is_kept_apart_until_the_first_ends(make_engine: Any) -> None:
    first, second = make_engine(), make_engine()
    first.on_session_start("s")
    second.on_session_start("s")
    assert (first.session_id, second.session_id) == ("s", "s#concurrent-2")
    assert "already open" in second.get_status()["session_note"]
    first.on_session_end("s", [{"role": "user", "content": "hello"}])
    second.close()
    third = make_engine()
    third.on_session_start("s")
    assert third.session_id == "s" and third.get_status()["session_note"] == ""

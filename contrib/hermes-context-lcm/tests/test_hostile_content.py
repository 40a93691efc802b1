"""Anything an agent can produce is stored byte-exactly and never stops the session.

Each defect case runs a real process over a real transcript with one hostile tool output
spliced in (see ``lcm_worker.py``); set ``LCM_WORKER_PYTHONPATH`` to an older checkout to
watch today's code fail the same test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hermes_context_lcm import codec
from hermes_context_lcm.store import SQLiteStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_core.testing.engine_conformance import corpus_dir

WORKER = Path(__file__).with_name("lcm_worker.py")
CORPUS = corpus_dir(Path(__file__).resolve())


def run_worker(home: Path, mode: str, context_length: int = 16_000) -> dict[str, Any]:
    if CORPUS is None:
        pytest.skip("corpus not found (set HERMES_CORPUS)")
    transcript = CORPUS / "claude-code_ai-sessions_pomodoro.json"
    env = dict(os.environ)
    if os.environ.get("LCM_WORKER_PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["LCM_WORKER_PYTHONPATH"]
    done = subprocess.run([sys.executable, str(WORKER), str(home), mode, str(context_length), str(transcript)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", ["surrogate", "deep", "nul", "parts", "surrogate-id"])
def test_hostile_tool_output_is_stored_exactly_and_the_session_goes_on(tmp_path: Path, mode: str) -> None:
    out = run_worker(tmp_path, mode)
    assert out["errors"] == [] and out["store_error"] == "", out
    assert out["stored"] == out["expected"], out  # every later turn stored too
    assert out["roundtrip"], out
    assert out["compactions"] >= 1  # compaction kept working after it
    if mode != "deep":
        assert out["biggest_tokens"] <= out["context_length"], out


def test_huge_output_is_stored_whole(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "lcm.db")
    huge = {"role": "tool", "tool_call_id": "h", "content": "0123456789abcdef" * 2_000_000}  # 32 MB
    [mid] = store.append("s", [huge])
    assert store.get_messages([mid])[0].message() == huge


ANY_CHARS = st.characters(categories=("Cs", "Lu", "Ll", "Nd", "Cc", "So", "Lo"))  # Cs: lone surrogates
JSON_LEAF = (st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63)
             | st.floats(allow_nan=False) | st.text(ANY_CHARS))
JSON_VALUE = st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=20)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=JSON_VALUE | st.text(st.characters(categories=("Cs", "Ll", "Cc", "Lo"))), extra=JSON_VALUE)
def test_any_json_message_round_trips(tmp_path: Path, content: Any, extra: Any) -> None:
    msg = {"role": "tool", "content": content, "extra": extra}
    stored, meta = codec.encode_message(msg)
    if isinstance(stored, str):
        stored.encode("utf-8")  # what SQLite will be given is valid UTF-8
    meta.encode("utf-8")
    back = codec.decode_message(stored, meta)
    assert back == msg and list(back) == list(msg)
    assert json.dumps(back, ensure_ascii=True) == json.dumps(msg, ensure_ascii=True)


def test_deep_values_use_the_iterative_codec_and_give_the_same_json() -> None:
    value: Any = "x"
    for _ in range(3000):
        value = [{"k": value}]
    text = codec.dumps(value)
    sys.setrecursionlimit(20_000)
    try:
        assert text == json.dumps(value, ensure_ascii=True)
        assert json.dumps(codec.loads(text), ensure_ascii=True) == text
    finally:
        sys.setrecursionlimit(1000)

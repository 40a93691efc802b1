"""Benchmark the session runtime: overhead per turn without the model, and replaying the largest file.

Method:

* **Per-turn overhead.** A session with the default plugins (built-in ``compressor`` engine,
  ``builtin`` memory provider, prompt plugin) and a window large enough that no compaction
  runs. One turn = ``start_turn`` (on_turn_start, prefetch, fencing, assembly), a reply with
  one tool call, ``add_tool_result``, ``request``, a final reply (update_from_response,
  should_compress, sync and queue_prefetch submitted to the background worker). The model
  is not called; its replies are canned. The history is pre-filled to 10, 100 and 400
  messages (each ~600 chars) because assembly and the preflight estimate are linear in it.
  We time 200 turns per size after 20 warm-up turns and report the median and p95.
* **Replay.** ``replay()`` of the largest corpus transcript (by bytes) at 16k and at 128k
  context with the default plugins, a fresh ``$HERMES_HOME`` each run; median of N runs.

Usage: python benchmarks/bench_session.py [--turns 200] [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "transcripts"


def _host(home: Path, context_length: int) -> Any:
    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.host import build_host

    config = HermesConfig()
    config.model.context_length = context_length
    return build_host(config, home=home)


def per_turn(history: int, turns: int, home: Path) -> dict[str, Any]:
    from hermes_core.session.session import Session

    session = Session(_host(home, 10_000_000), session_id=f"bench-{history}")
    filler = "lorem ipsum dolor sit amet " * 22
    for n in range(history // 2):
        session.messages += [{"role": "user", "content": f"{n} {filler}"}, {"role": "assistant", "content": filler}]
    call = {"id": "", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "ls -la"}'}}
    samples = []
    for n in range(turns + 20):
        started = time.perf_counter()
        request = session.start_turn(f"turn {n}: please list the files")
        (c,) = session.add_response({"role": "assistant", "content": None, "tool_calls": [{**call, "id": f"c{n}"}]},
                                    {"prompt_tokens": request.estimated_tokens, "completion_tokens": 20})
        session.add_tool_result(c["id"], "file-a\nfile-b\n")
        request = session.request()
        session.add_response("Here are the files.", {"prompt_tokens": request.estimated_tokens})
        elapsed = time.perf_counter() - started
        if n >= 20:
            samples.append(elapsed)
        # keep the history length steady so every sample measures the same size
        del session.messages[history: len(session.messages)]
    session.close()
    samples.sort()
    return {"history": history, "median_us": statistics.median(samples) * 1e6,
            "p95_us": samples[int(len(samples) * 0.95)] * 1e6, "turns": turns}


def replay_largest(runs: int, context_length: int) -> dict[str, Any]:
    from hermes_core.apps.replay import replay
    from hermes_core.apps.transcripts import load_transcript

    path = max(CORPUS.glob("*.json"), key=lambda p: p.stat().st_size)
    transcript = load_transcript(path)
    times, result = [], None
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["HERMES_HOME"] = tmp
            host = _host(Path(tmp), context_length)
            started = time.perf_counter()
            result = replay(transcript, host)
            times.append(time.perf_counter() - started)
    assert result is not None
    return {"file": path.name, "bytes": path.stat().st_size, "messages": len(transcript.messages),
            "context_length": context_length, "requests": result.requests, "compactions": result.compactions,
            "invalid_requests": result.invalid_requests, "median_s": statistics.median(times),
            "ms_per_request": statistics.median(times) / max(result.requests, 1) * 1000, "runs": runs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HERMES_HOME"] = tmp
        turns = [per_turn(size, args.turns, Path(tmp)) for size in (10, 100, 400)]
    replays = [replay_largest(args.runs, n) for n in (16_000, 128_000)]
    if args.json:
        print(json.dumps({"per_turn": turns, "replay": replays}, indent=2))
        return 0
    print("Per-turn runtime overhead (model excluded), default plugins, no compaction")
    print(f"{'history msgs':>12}  {'median':>10}  {'p95':>10}")
    for row in turns:
        print(f"{row['history']:>12}  {row['median_us']:>8.0f}us  {row['p95_us']:>8.0f}us")
    print()
    print("Replay of the largest corpus file")
    for row in replays:
        print(f"{row['file']} ({row['bytes']:,} bytes, {row['messages']} msgs) at {row['context_length']:,}: "
              f"{row['median_s'] * 1000:.0f} ms median of {row['runs']}, {row['requests']} requests "
              f"({row['ms_per_request']:.2f} ms each), {row['compactions']} compactions, "
              f"{row['invalid_requests']} invalid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

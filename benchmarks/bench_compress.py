"""Benchmark the built-in compressor, and compare its offline summary with Claude Code's.

Method:

* **Engine time, summarizer excluded.** ``CompressorEngine.compress(messages, force=True)``
  with a stub summarizer that returns a fixed 200-character summary at once, so the time
  is the engine's own work: token estimates, boundaries, pruning, deduplication, building
  the capped summary input, secret redaction of everything that would leave the process,
  assembly and tool-pair repair. A fresh engine per run; median of ``--runs`` runs.
  The same run with the deterministic (offline) summarizer is shown alongside.
* **Per corpus transcript** at ``--context-length`` (default 32k: every file is compacted).
* **Synthetic sessions** of 1k, 10k and 100k messages (seeded: user asks, assistant turns
  with 1-3 parallel tool calls, tool outputs of 100-4000 chars), at a 128k window, to show
  that the time grows linearly with the conversation.
* **Summary recall** on the three corpus files that carry Claude Code's own summary
  (``reference_summary``): from the turns our engine drops (at 32k and 128k), collect the
  file paths (tool-call path arguments and path-like words, matched by their last two
  components), identifiers (backticked code, dotted CamelCase names, ``snake_case(`` calls
  in user/assistant text) and the last user request; count how many survive in our
  deterministic summary and in Claude Code's. Caveat: our summarizer also collects
  backticked terms, so that definition favours it; Claude Code's summary covers the whole
  conversation while ours covers the dropped span only, which is the span scored.

* **Side by side** (``--compare-with DIR``, another checkout of hermes-core, e.g. a
  ``git worktree`` of the previous release): the synthetic sizes run in two worker
  processes, this code and DIR's, taking turns round by round (the first round is a
  warm-up), and ``hermes-core compact`` on one corpus file runs as a whole process the
  same way (with cached bytecode, as installed code runs), once with no config file and
  once with the config.yaml README.md documents; medians of wall and CPU time
  (``time.process_time``; the children's rusage for processes), with the load average
  before and after, since the machine is shared. ``--skip-synthetic`` times only the processes.

* **Where the time goes** (``--phases N``): CPU time of each step of one forced compaction
  of N synthetic messages, beside the least an exact token estimate must do (read every
  content and tool-call length, nothing else).

Usage: python benchmarks/bench_compress.py [--runs 7] [--context-length 32000] [--json]
       [--skip-synthetic] [--sizes 1000,10000,100000] [--compare-with DIR [--rounds 6] [--skip-process]]
       [--phases N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CORPUS = Path(os.environ.get("HERMES_CORPUS") or Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
              / "transcripts")
Message = dict[str, Any]


class StubSummarizer:
    """Returns a fixed summary at once, so only the engine's own work is timed."""

    name = "stub"

    def summarize(self, request: Any) -> Any:
        from hermes_core.engine.summarizer import SummaryResult

        return SummaryResult(text="## Goal\n- benchmark\n" + "x" * 180, source="llm")


def make_engine(context_length: int, summarizer: Any, pre_compress: Any = None) -> Any:
    from hermes_compressor import CompressorEngine
    from hermes_summarizers.deterministic import DeterministicSummarizer

    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.context import PluginContext

    cfg = HermesConfig()
    cfg.model.context_length = context_length
    extra = {"pre_compress": pre_compress} if pre_compress else {}
    return CompressorEngine(PluginContext(home=Path(tempfile.gettempdir()), config=cfg, summarizer=summarizer,
                                          fallback_summarizer=DeterministicSummarizer(), **extra))


def time_compress(messages: list[Message], context_length: int, summarizer: Any, runs: int) -> float:
    """Median seconds of one forced compaction (fresh engine each run)."""
    times = []
    for _ in range(runs):
        engine = make_engine(context_length, summarizer)
        started = time.perf_counter()
        engine.compress(messages, force=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def corpus_table(context_length: int, runs: int) -> list[dict[str, Any]]:
    from hermes_summarizers.deterministic import DeterministicSummarizer

    from hermes_core.apps.transcripts import load_transcript
    from hermes_core.text.tokens import estimate_messages_tokens

    rows = []
    for path in sorted(CORPUS.glob("*.json")):
        messages = load_transcript(path).messages
        engine = make_engine(context_length, StubSummarizer())
        out = engine.compress(messages, force=True).messages
        rows.append({
            "file": path.stem,
            "messages": len(messages),
            "tokens_before": estimate_messages_tokens(messages),
            "tokens_after": estimate_messages_tokens(out),
            "engine_ms": time_compress(messages, context_length, StubSummarizer(), runs) * 1000,
            "with_deterministic_ms": time_compress(messages, context_length, DeterministicSummarizer(), runs) * 1000,
        })
    return rows


def synthetic_session(n: int, seed: int = 7) -> list[Message]:
    """``n`` messages of a plausible agent session (deterministic for a seed)."""
    rng = random.Random(seed)
    words = "the a fix test file module error config value run check update parser token cache".split()

    def prose(lo: int, hi: int) -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(lo, hi)))

    msgs: list[Message] = [{"role": "system", "content": "You are a coding agent. " + prose(100, 200)}]
    call = 0
    while len(msgs) < n - 1:
        msgs.append({"role": "user", "content": prose(10, 60)})
        for _ in range(rng.randint(1, 6)):
            calls = []
            for _ in range(rng.randint(1, 3)):
                call += 1
                args = {"path": f"src/pkg_{rng.randint(0, 300)}/mod_{rng.randint(0, 50)}.py"}
                if rng.random() < 0.1:
                    args["content"] = prose(200, 400)
                name = rng.choice(["read_file", "bash", "edit"])
                calls.append({"id": f"call_{call}", "type": "function",
                              "function": {"name": name, "arguments": json.dumps(args)}})
            msgs.append({"role": "assistant", "content": prose(5, 40), "tool_calls": calls})
            msgs += [{"role": "tool", "tool_call_id": c["id"], "content": prose(15, 600)} for c in calls]
        msgs.append({"role": "assistant", "content": prose(20, 80)})
    msgs = msgs[: n - 1]
    while msgs[-1]["role"] == "assistant" and msgs[-1].get("tool_calls"):
        msgs.pop()
    msgs.append({"role": "user", "content": "what is left to do?"})
    return msgs


def synthetic_table(sizes: list[int], runs: int) -> list[dict[str, Any]]:
    from hermes_core.text.tokens import estimate_messages_tokens

    rows = []
    for n in sizes:
        messages = synthetic_session(n)
        reps = max(1, runs if n <= 10_000 else min(runs, 3))
        seconds = time_compress(messages, 128_000, StubSummarizer(), reps)
        chars = sum(len(str(m.get("content") or "")) for m in messages)
        rows.append({"messages": len(messages), "chars": chars, "tokens": estimate_messages_tokens(messages),
                     "engine_ms": seconds * 1000, "us_per_message": seconds * 1e6 / len(messages), "runs": reps})
    return rows


# -- where the time goes at one size -------------------------------------------------------------

_PHASES = (("measure", "measure: one pass over every message (token estimates, earlier summaries)"),
           ("plan", "plan: head, tail, pinned ask"),
           ("_span_turns", "span: the turns to summarize, sliced"),
           ("summary_turns", "summary input: select, prune, cap and redact ~120k chars"),
           ("extract_ledger", "ledger: must-keep items of the newest 300k chars of the span"),
           ("verify_summary", "verify: the summary against the ledger"),
           ("_assemble", "assemble: head + summary + tail, pairs repaired"))


def read_floor(messages: list[Message]) -> int:
    """The least any exact token estimate must do: read every message's content length and
    every tool call's argument and name lengths, nothing else (no list built, no checks)."""
    chars = 0
    for msg in messages:
        content = msg.get("content")
        if content is not None:
            chars += len(content)
        for call in msg.get("tool_calls") or ():
            fn = call["function"]
            chars += len(fn["arguments"]) + len(fn["name"])
    return chars


def phase_table(n: int, runs: int) -> list[tuple[str, float]]:
    """Median CPU milliseconds of each step of a forced compaction of ``n`` synthetic
    messages (stub summarizer), the rest of the engine, the whole, and :func:`read_floor`."""
    import hermes_compressor.engine as engine_module

    spent: dict[str, float] = {}
    owners = {name: engine_module.CompressorEngine if name.startswith("_") else engine_module for name, _ in _PHASES}
    saved = {name: owner.__dict__[name] for name, owner in owners.items()}

    def timed(name: str, original: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.process_time() - started
        return wrapper

    for name, original in saved.items():
        is_static = isinstance(original, staticmethod)
        wrapper = timed(name, original.__func__ if is_static else original)
        setattr(owners[name], name, staticmethod(wrapper) if is_static else wrapper)
    messages = synthetic_session(n)
    samples: dict[str, list[float]] = {}
    try:
        for _ in range(runs):
            spent.clear()
            engine = make_engine(128_000, StubSummarizer())
            started = time.process_time()
            engine.compress(messages, force=True)
            whole = time.process_time() - started
            spent["rest"], spent["whole"] = whole - sum(spent.values()), whole
            started = time.process_time()
            read_floor(messages)
            spent["floor"] = time.process_time() - started
            for key, value in spent.items():
                samples.setdefault(key, []).append(value)
    finally:
        for name, original in saved.items():
            setattr(owners[name], name, original)
    labels = dict(_PHASES) | {"rest": "the rest (total, result, note)", "whole": "whole compaction",
                              "floor": "floor: only reading every content and tool-call length"}
    return [(labels[k], statistics.median(samples[k]) * 1000) for k in labels if k in samples]


# -- side by side with another checkout -------------------------------------------------------

_WORKER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import bench_compress as b
sessions = {}
for line in sys.stdin:
    n, runs = map(int, line.split())
    msgs = sessions.get(n) or sessions.setdefault(n, b.synthetic_session(n))
    wall, cpu = [], []
    for _ in range(runs):
        engine = b.make_engine(128_000, b.StubSummarizer())
        w, c = time.perf_counter(), time.process_time()
        engine.compress(msgs, force=True)
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    print(json.dumps([wall, cpu]), flush=True)
"""


def _env_for(checkout: Path | None) -> dict[str, str]:
    """The environment that imports hermes-core from ``checkout`` (None: this one)."""
    root = Path(checkout or Path(__file__).resolve().parents[1]).resolve()
    return {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{root / 'plugins'}"}


def _medians(samples: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, float]]:
    return {k: {"wall_ms": statistics.median(w for w, _ in v) * 1000,
                "cpu_ms": statistics.median(c for _, c in v) * 1000,
                "cpu_min_ms": min(c for _, c in v) * 1000, "samples": len(v)} for k, v in samples.items()}


def compare_synthetic(other: Path, sizes: list[int], rounds: int) -> list[dict[str, Any]]:
    """Median engine time per size, this checkout ("new") and ``other`` ("old"), taking turns."""
    workers = {name: subprocess.Popen([sys.executable, "-c", _WORKER, str(root / "benchmarks")], text=True,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_env_for(root),
                                      cwd=tempfile.gettempdir())
               for name, root in (("new", Path(__file__).resolve().parents[1]), ("old", other))}
    samples: dict[int, dict[str, list[tuple[float, float]]]] = {n: {"old": [], "new": []} for n in sizes}
    try:
        for r in range(rounds + 1):
            for n in sizes:
                for name in ("old", "new") if r % 2 else ("new", "old"):
                    proc = workers[name]
                    proc.stdin.write(f"{n} {1 if n >= 50_000 else 3}\n")  # type: ignore[union-attr]
                    proc.stdin.flush()  # type: ignore[union-attr]
                    wall, cpu = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
                    if r:  # round 0 warms up
                        samples[n][name] += zip(wall, cpu, strict=True)
    finally:
        for proc in workers.values():
            proc.stdin.close()  # type: ignore[union-attr]
            proc.wait()
    return [{"messages": n, **_medians(samples[n])} for n in sizes]


def documented_config() -> str:
    """The config.yaml README.md documents (every key at its default): a typical user's file."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    return readme.split("## Configuration", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]


def compare_process(other: Path, transcript: Path, runs: int, config: str | None = None) -> dict[str, dict[str, float]]:
    """``hermes-core compact FILE`` as a whole process, this checkout and ``other``, taking
    turns; with ``config`` as ``$HERMES_HOME/config.yaml`` when given."""
    home = Path(tempfile.mkdtemp(prefix="bench-compact-home-"))
    if config is not None:
        (home / "config.yaml").write_text(config, encoding="utf-8")
    # as installed code runs: with cached bytecode (the warm-up round writes it), else every
    # run would spend most of its time compiling sources
    envs = {name: {k: v for k, v in _env_for(root).items() if k != "PYTHONDONTWRITEBYTECODE"}
            for name, root in (("new", None), ("old", other))}
    samples: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
    for r in range(runs + 1):
        for name in ("old", "new") if r % 2 else ("new", "old"):
            before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            subprocess.run([sys.executable, "-m", "hermes_core", "compact", str(transcript)], check=True,
                           env={**envs[name], "HERMES_HOME": str(home)}, stdout=subprocess.DEVNULL,
                           cwd=tempfile.gettempdir())
            wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
            if r:
                samples[name].append((wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    return _medians(samples)


def print_comparison(other: Path, sizes: list[int], rounds: int, process_runs: int) -> None:
    from hermes_core.cli.output import table

    load = os.getloadavg()
    synthetic = compare_synthetic(other, sizes, rounds) if sizes else []
    transcript = sorted(CORPUS.glob("*.json"))[0]
    processes = {"no config file": compare_process(other, transcript, process_runs),
                 "README's config.yaml": compare_process(other, transcript, process_runs, documented_config())
                 } if process_runs else {}
    after = os.getloadavg()
    print(f"side by side with {other} (old) — load average {load[0]:.1f} before, {after[0]:.1f} after")
    table([(r["messages"], f"{r['old']['wall_ms']:.1f}", f"{r['new']['wall_ms']:.1f}",
            f"{r['old']['wall_ms'] / r['new']['wall_ms']:.2f}x", f"{r['old']['cpu_ms']:.1f}",
            f"{r['new']['cpu_ms']:.1f}",
            f"{r['old']['cpu_ms'] / r['new']['cpu_ms']:.2f}x", f"{r['new']['cpu_ms'] * 1000 / r['messages']:.2f}",
            f"{r['old']['cpu_min_ms']:.1f} / {r['new']['cpu_min_ms']:.1f}", r["new"]["samples"]) for r in synthetic],
          ("MESSAGES", "OLD MS", "NEW MS", "WALL", "OLD CPU MS", "NEW CPU MS", "CPU", "NEW CPU US/MSG",
           "CPU MIN OLD / NEW", "SAMPLES"))
    for label, process in processes.items():
        o, n = process["old"], process["new"]
        print(f"\nhermes-core compact {transcript.name}, whole process, {label}, median of {n['samples']}: "
              f"wall {o['wall_ms']:.0f} -> {n['wall_ms']:.0f} ms ({o['wall_ms'] / n['wall_ms']:.2f}x), "
              f"CPU {o['cpu_ms']:.0f} -> {n['cpu_ms']:.0f} ms ({o['cpu_ms'] / n['cpu_ms']:.2f}x)")


# -- summary recall against Claude Code's reference summaries --------------------------------

_PATH_WORD = re.compile(r"(?:[\w.@-]+/)+[\w.@-]+\.[A-Za-z0-9]{1,6}\b")
_BACKTICK = re.compile(r"`([^`\n]{3,60})`")
_DOTTED = re.compile(r"\b[A-Z][A-Za-z0-9]+(?:\.[A-Z][A-Za-z0-9]+)+\b")
_CALL = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\(")
_PATH_KEYS = ("file_path", "path", "filename", "notebook_path")


def _tail2(path: str) -> str:
    return "/".join(path.rstrip("/").split("/")[-2:])


def dropped_items(turns: list[Message]) -> dict[str, Any]:
    paths: set[str] = set()
    idents: set[str] = set()
    last_user = ""
    for msg in turns:
        text = msg.get("content") if isinstance(msg.get("content"), str) else ""
        if msg.get("role") in ("user", "assistant") and text:
            paths.update(_tail2(p) for p in _PATH_WORD.findall(text))
            idents.update(m.strip() for m in _BACKTICK.findall(text) if "/" not in m)
            idents.update(_DOTTED.findall(text))
            idents.update(_CALL.findall(text))
        last_user = _real_user_text(msg) or last_user
        for call in msg.get("tool_calls") or ():
            try:
                args = json.loads(call["function"]["arguments"])
            except (ValueError, KeyError, TypeError):
                continue
            for key in _PATH_KEYS:
                if isinstance(args, dict) and isinstance(args.get(key), str) and "." in args[key]:
                    paths.add(_tail2(args[key]))
    return {"paths": sorted(paths), "identifiers": sorted(idents), "last_user": last_user}


def _real_user_text(msg: Message) -> str:
    text = msg.get("content") if isinstance(msg.get("content"), str) else ""
    if msg.get("role") != "user" or not text.strip() or text.startswith(("Base directory for this skill", "<")):
        return ""
    return text.strip()


def _verbatim(text: str, summary: str) -> bool | None:
    flat = " ".join(text.split())
    return flat[:300] in " ".join(summary.split()) if flat else None


def survival(items: dict[str, Any], summary: str) -> dict[str, Any]:
    return {
        "paths": sum(p in summary for p in items["paths"]),
        "identifiers": sum(i in summary for i in items["identifiers"]),
        "dropped_ask_verbatim": _verbatim(items["last_user"], summary),
        "summary_chars": len(summary),
    }


def recall_table(context_lengths: tuple[int, ...] = (32_000, 128_000)) -> list[dict[str, Any]]:
    from hermes_summarizers.deterministic import DeterministicSummarizer

    from hermes_core.apps.transcripts import load_transcript

    rows = []
    for path in sorted(CORPUS.glob("*pre-compact.json")):
        transcript = load_transcript(path)
        reference = transcript.meta.get("reference_summary", {}).get("content", "")
        for length in context_lengths:
            captured: list[list[Message]] = []

            def capture(turns: list[Message], into: list[list[Message]] = captured) -> str:
                into.append(turns)
                return ""

            engine = make_engine(length, DeterministicSummarizer(), pre_compress=capture)
            out = engine.compress(transcript.messages, force=True).messages
            if not captured:
                continue
            ours = next(m["content"] for m in out if "CONTEXT COMPACTION" in str(m.get("content")))
            items = dropped_items(captured[0])
            last_ask = next((m for m in reversed(transcript.messages) if _real_user_text(m)), None)
            rows.append({"file": path.stem, "context_length": length, "dropped_messages": len(captured[0]),
                         "paths_total": len(items["paths"]), "identifiers_total": len(items["identifiers"]),
                         "ours": survival(items, ours), "claude_code": survival(items, reference),
                         "last_ask_kept_ours": last_ask is not None and any(m == last_ask for m in out),
                         "last_ask_in_claude_summary": bool(last_ask and _verbatim(last_ask["content"], reference))})
    return rows


_ID_URL = re.compile(r"https?://[^\s<>\"'`)\]]+")
_ID_PATH = re.compile(r"(?:[\w.@~-]+/)+[\w.@-]+\.[A-Za-z0-9]{1,6}\b"
                      r"|\b[\w-]+\.(?:py|ex|exs|md|json|yaml|yml|toml|js|ts|rs|go|sh|heex|eex|txt|css|html|lock)\b")
_ID_TICK = re.compile(r"`([^`\n]{4,80})`")


def issue_identifiers(turns: list[Message]) -> set[str]:
    """File paths with an extension, URLs and backticked names of 4+ chars, in any text or
    tool argument of the dropped turns (the definition the retention target uses)."""
    found: set[str] = set()
    for msg in turns:
        texts = [msg.get("content") if isinstance(msg.get("content"), str) else ""]
        texts += [str((c.get("function") or {}).get("arguments") or "") for c in msg.get("tool_calls") or ()]
        for text in texts:
            found.update(u.rstrip(".,:;") for u in _ID_URL.findall(text))
            found.update(_ID_PATH.findall(text))
            found.update(t.strip() for t in _ID_TICK.findall(text))
    return found


def identifier_table(context_lengths: tuple[int, ...] = (32_000, 128_000)) -> list[dict[str, Any]]:
    """Dropped-span identifiers found in our compacted summary (with its anchor index) vs in
    Claude Code's own summary of the same conversation."""
    from hermes_summarizers.deterministic import DeterministicSummarizer

    from hermes_core.apps.transcripts import load_transcript

    rows = []
    for path in sorted(CORPUS.glob("*pre-compact.json")):
        transcript = load_transcript(path)
        reference = transcript.meta.get("reference_summary", {}).get("content", "")
        for length in context_lengths:
            captured: list[list[Message]] = []
            engine = make_engine(length, DeterministicSummarizer(),
                                 pre_compress=lambda t, c=captured: c.append(t) or "")
            out = engine.compress(transcript.messages, force=True).messages
            ours = next(m["content"] for m in out if "CONTEXT COMPACTION" in str(m.get("content")))
            wanted = issue_identifiers(captured[0])
            rows.append({"file": path.stem, "context_length": length, "identifiers": len(wanted),
                         "ours": sum(i in ours for i in wanted), "claude_code": sum(i in reference for i in wanted),
                         "ours_without_anchors": sum(i in ours.split("## Anchor Index")[0] for i in wanted),
                         "chars_ours": len(ours), "chars_claude_code": len(reference)})
    return rows


def _yn(value: bool | None) -> str:
    return "n/a" if value is None else "yes" if value else "no"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--context-length", type=int, default=32_000)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--skip-process", action="store_true",
                        help="with --compare-with: only the synthetic sizes, not `hermes-core compact` as a process")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--compare-with", metavar="DIR", type=Path,
                        help="another hermes-core checkout: time it and this one side by side, then stop")
    parser.add_argument("--rounds", type=int, default=6, help="rounds of the side-by-side run (one warm-up more)")
    parser.add_argument("--phases", type=int, metavar="N",
                        help="CPU time of each step of one forced compaction of N synthetic messages, then stop")
    args = parser.parse_args()
    if args.phases:
        from hermes_core.cli.output import table

        load = os.getloadavg()
        rows = phase_table(args.phases, args.runs)
        print(f"forced compaction of {args.phases:,} synthetic messages at 128k, stub summarizer: median CPU ms of "
              f"{args.runs} runs, load average {load[0]:.1f} -> {os.getloadavg()[0]:.1f}")
        table([(label, f"{ms:.1f}") for label, ms in rows], ("STEP", "CPU MS"))
        return 0
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}", file=sys.stderr)
        return 1
    if args.compare_with:
        sizes = [] if args.skip_synthetic else [int(s) for s in args.sizes.split(",")]
        print_comparison(args.compare_with, sizes, args.rounds, 0 if args.skip_process else 20)
        return 0
    corpus = corpus_table(args.context_length, args.runs)
    synthetic = [] if args.skip_synthetic else synthetic_table([int(s) for s in args.sizes.split(",")], args.runs)
    recall = recall_table()
    idents = identifier_table()
    if args.json:
        print(json.dumps({"context_length": args.context_length, "runs": args.runs, "corpus": corpus,
                          "synthetic": synthetic, "recall": recall, "identifiers": idents}, indent=2))
        return 0
    from hermes_core.cli.output import table

    print(f"compress(force=True) per corpus transcript at {args.context_length:,} tokens, "
          f"median of {args.runs} (ms)")
    table([(r["file"], r["messages"], r["tokens_before"], r["tokens_after"], f"{r['engine_ms']:.2f}",
            f"{r['with_deterministic_ms']:.2f}") for r in corpus],
          ("FILE", "MSGS", "TOKENS", "AFTER", "ENGINE", "+DETERMINISTIC"))
    print(f"sum of medians: engine {sum(r['engine_ms'] for r in corpus):.1f} ms, "
          f"with deterministic summary {sum(r['with_deterministic_ms'] for r in corpus):.1f} ms\n")
    if synthetic:
        print("synthetic sessions at 128k, summarizer excluded")
        table([(r["messages"], r["chars"], r["tokens"], f"{r['engine_ms']:.1f}", f"{r['us_per_message']:.2f}",
                r["runs"]) for r in synthetic], ("MESSAGES", "CHARS", "TOKENS", "MEDIAN MS", "US/MESSAGE", "RUNS"))
        print()
    print("items from the dropped turns that survive in the summary: ours (deterministic) vs Claude Code's")
    table([(r["file"][:32], r["context_length"], r["dropped_messages"],
            f"{r['ours']['paths']}/{r['paths_total']} vs {r['claude_code']['paths']}/{r['paths_total']}",
            f"{r['ours']['identifiers']}/{r['identifiers_total']} vs "
            f"{r['claude_code']['identifiers']}/{r['identifiers_total']}",
            _yn(r["ours"]["dropped_ask_verbatim"]) + " vs " + _yn(r["claude_code"]["dropped_ask_verbatim"]),
            f"{_yn(r['last_ask_kept_ours'])} vs {_yn(r['last_ask_in_claude_summary'])}",
            f"{r['ours']['summary_chars']} vs {r['claude_code']['summary_chars']}") for r in recall],
          ("FILE", "CTX", "DROPPED", "PATHS", "IDENTIFIERS", "DROPPED ASK", "LAST ASK KEPT", "CHARS"))
    print("\ndropped-span identifiers (paths with an extension, URLs, `backticked` 4+) kept: ours vs Claude Code's")
    table([(r["file"][:32], r["context_length"], r["identifiers"], r["ours"], r["ours_without_anchors"],
            r["claude_code"], f"{r['chars_ours']} vs {r['chars_claude_code']}") for r in idents],
          ("FILE", "CTX", "IDENTIFIERS", "OURS", "WITHOUT ANCHORS", "CLAUDE CODE", "CHARS"))
    print("DROPPED ASK: the last real user request inside the dropped turns, verbatim in the summary (n/a: none "
          "was dropped).\nLAST ASK KEPT: the conversation's last real user request, verbatim in our compacted "
          "context vs in Claude Code's summary.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

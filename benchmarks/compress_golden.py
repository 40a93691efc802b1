"""Golden diff of compactions and redactions: an older checkout against this one.

    python benchmarks/compress_golden.py --base /tmp/old-checkout   # diff, exit 1 on any difference
    python benchmarks/compress_golden.py --dump out.json            # this checkout's results only

A speed change to the compressor (its measuring pass, boundaries, summary input, ledger)
or to redaction must leave every result as it was. The cases:

* every corpus transcript at 16k and 64k, forced and automatic, three cycles each, with the
  offline deterministic summarizer (the output of one cycle is the input of the next), and
  once forced with a focus topic;
* the seeded synthetic sessions of ``bench_compress.py`` (1k, 10k and 100k messages, forced at
  128k, stub summarizer; 10k also with the deterministic one);
* seeded odd-shaped conversations: part-list and non-string contents, images, earlier
  summaries, tool calls with dict arguments or odd names, orphans, unknown roles;
* ``redact()`` on every corpus message text and tool argument, the planted-secret set of the
  tests, and seeded random splices of them.

Each result (messages, note, summary, source) is hashed; each checkout runs in its own
process with its own ``hermes_core`` first on ``sys.path``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
Message = dict[str, Any]


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False).encode()).hexdigest()


def _corpus() -> Path:
    env = os.environ.get("HERMES_CORPUS")
    return Path(env) if env else HERE.parents[1] / "shared" / "corpus" / "transcripts"


def _odd_conversation(rng: random.Random) -> list[Message]:
    """A short conversation with the shapes transcripts can hold (deterministic for ``rng``)."""
    from hermes_compressor.constants import SUMMARY_END, SUMMARY_PREFIX

    words = "fix the config.yaml at src/app.py `parse_tokens` error: Traceback FAILED 1234567 a1b2c3d4e5 ok".split()

    def text(lo: int = 1, hi: int = 400) -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(lo, hi)))

    def content() -> Any:
        roll = rng.random()
        if roll < 0.55:
            return text()
        if roll < 0.65:
            return None
        if roll < 0.8:
            return [{"type": "text", "text": text()}, {"type": "image_url", "image_url": {"url": "data:x"}}][
                : rng.randint(1, 2)]
        if roll < 0.85:
            return rng.choice([7, {"odd": True}, ["bare", 3]])
        if roll < 0.93:
            return f"{SUMMARY_PREFIX}\n\nold summary {text(1, 40)}\n\n{SUMMARY_END}" + rng.choice(["", "\n\nmore"])
        return [{"type": "text", "text": f"{SUMMARY_PREFIX}\n\n{text(1, 30)}\n\n{SUMMARY_END}"}]

    msgs: list[Message] = [{"role": "system", "content": "system " + text(1, 30)}] if rng.random() < 0.8 else []
    call = 0
    for _ in range(rng.randint(2, 40)):
        role = rng.choice(["user", "user", "assistant", "assistant", "tool", "developer"])
        msg: Message = {"role": role, "content": content()}
        if role == "assistant" and rng.random() < 0.5:
            calls = []
            for _ in range(rng.randint(1, 3)):
                call += 1
                args: Any = json.dumps({"path": f"src/m{call}.py", "content": text(0, 200)})
                args = rng.choice([args, args, {"path": "dict.py"}, None, "not json " + text(1, 5)])
                calls.append({"id": f"c{call}", "type": "function",
                              "function": {"name": rng.choice(["bash", "read_file", "", None]), "arguments": args}})
            msg["tool_calls"] = calls
            if rng.random() < 0.3:
                msg["reasoning_content"] = text(1, 20)
        if role == "tool":
            msg["tool_call_id"] = f"c{rng.randint(0, call + 2)}"
        msgs.append(msg)
    return msgs


def _result(engine: Any, messages: list[Message], **kwargs: Any) -> tuple[list[Message], list[Any]]:
    out = engine.compress(messages, **kwargs)
    return out.messages, [out.messages, out.note, out.summary, out.summary_source]


def compactions() -> dict[str, str]:
    sys.path.insert(0, str(HERE))
    import bench_compress as bench
    from hermes_summarizers.deterministic import DeterministicSummarizer

    from hermes_core.apps.transcripts import load_transcript

    found: dict[str, str] = {}
    for path in sorted(_corpus().glob("*.json")):
        messages = load_transcript(path).messages
        for length in (16_000, 64_000):
            for force in (True, False):
                engine = bench.make_engine(length, DeterministicSummarizer())
                current = messages
                for cycle in range(3):
                    current, result = _result(engine, current, force=force,
                                              current_tokens=None if force else 10 ** 9)
                    found[f"corpus:{path.stem}:{length}:{force}:{cycle}"] = _digest(result)
        engine = bench.make_engine(16_000, DeterministicSummarizer())
        found[f"corpus:{path.stem}:focus"] = _digest(_result(engine, messages, force=True, focus_topic="error test")[1])
    for n in (1_000, 10_000, 100_000):
        session = bench.synthetic_session(n)
        found[f"synthetic:{n}"] = _digest(_result(bench.make_engine(128_000, bench.StubSummarizer()), session,
                                                  force=True)[1])
        if n == 10_000:
            found[f"synthetic:{n}:deterministic"] = _digest(
                _result(bench.make_engine(128_000, DeterministicSummarizer()), session, force=True)[1])
    rng = random.Random("hermes-compress-golden-1")
    for i in range(150):
        messages = _odd_conversation(rng)
        length = rng.choice([1_000, 2_000, 4_000])
        engine = bench.make_engine(length, DeterministicSummarizer())
        current = messages
        for cycle in range(2):
            current, result = _result(engine, current, force=cycle == 0, current_tokens=None if cycle == 0 else 10**9)
            found[f"odd:{i}:{cycle}"] = _digest(result)
    return found


def redaction_texts() -> list[tuple[str, str]]:
    from hermes_core.apps.transcripts import load_transcript
    from hermes_core.text.messages import text_of

    out: list[tuple[str, str]] = []
    for path in sorted(_corpus().glob("*.json")):
        for n, message in enumerate(load_transcript(path).messages):
            if text := text_of(message.get("content")):
                out.append((f"transcript:{path.stem}:{n}", text))
            for k, call in enumerate(message.get("tool_calls") or ()):
                args = (call.get("function") or {}).get("arguments") if isinstance(call, dict) else None
                if isinstance(args, str):
                    out.append((f"args:{path.stem}:{n}:{k}", args))
    tests = HERE.parent / "tests" / "compressor"
    if (tests / "planted_secrets.py").is_file():
        sys.path.insert(0, str(tests))
        import planted_secrets

        out += [(f"planted:{i}", p.text) for i, p in enumerate(planted_secrets.planted())]
        out += [(f"lookalike:{i}", p.text) for i, p in enumerate(planted_secrets.look_alikes())]
    rng = random.Random("hermes-redact-golden-1")
    pool = [t for _, t in out if len(t) < 20_000]
    for i in range(3_000):
        parts = []
        for _ in range(rng.randint(1, 6)):
            source = rng.choice(pool)
            start = rng.randrange(max(1, len(source)))
            parts.append(source[start: start + rng.randint(1, 400)])
            parts.append(rng.choice(["", " ", "\n", '"', "\\\"", "=", ": ", "-----END ", "://", "@"]))
        out.append((f"splice:{i}", "".join(parts)))
    return out


def redactions() -> dict[str, str]:
    from hermes_core.text.redact import redact

    return {tid: _digest(redact(text)) for tid, text in redaction_texts()}


def dump(path: Path) -> None:
    import hermes_core

    path.write_text(json.dumps({"code": hermes_core.__file__, "results": {**compactions(), **redactions()}}))


def _run(checkout: Path, out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{checkout / 'plugins'}"}
    subprocess.run([sys.executable, __file__, "--dump", str(out)], env=env, cwd=tempfile.gettempdir(), check=True)
    return json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--base", type=Path, help="an older checkout to compare with")
    args = parser.parse_args()
    if args.dump:
        dump(args.dump)
        return
    if not args.base:
        parser.error("--base or --dump")
    tmp = Path(tempfile.gettempdir())
    old = _run(args.base.resolve(), tmp / "compress_golden_base.json")["results"]
    new = _run(HERE.parent, tmp / "compress_golden_new.json")["results"]
    diffs = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    print(json.dumps({"cases": len(new), "compactions": sum(not k.startswith(("transcript:", "args:", "planted:",
                                                                                 "lookalike:", "splice:"))
                                                                for k in new),
                      "differences": len(diffs), "examples": diffs[:10]}, indent=2))
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()

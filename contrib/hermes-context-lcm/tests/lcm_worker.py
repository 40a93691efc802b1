"""A real process driving one LCM engine over a corpus transcript with hostile content in it.

    python lcm_worker.py HOME MODE CONTEXT_LENGTH TRANSCRIPT

MODE picks what is spliced into the transcript (see ``_hostile``); ``surrogate-id`` also runs
the session under an id holding a lone surrogate and NUL (as a host may derive one from a
file name). The worker feeds the messages the way a runtime does (append, preflight, compact
when due) and prints one JSON line: how many messages were stored, whether each hostile one reads back exactly, the
store error and status the engine reports, and the largest context it handed back. It
imports only the engine's public API, so it runs against older versions too (the defect
tests run it to show today's code failing, with ``LCM_WORKER_PYTHONPATH``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for i in range(depth):
        value = {"level": i, "child": [value]}
    return value


def _hostile(mode: str) -> list[dict[str, Any]]:
    """Messages an agent can produce that a store must take as they are."""
    call = {"id": "hostile-1", "type": "function", "function": {"name": "list_dir", "arguments": '{"path": "."}'}}
    ask = {"role": "assistant", "content": None, "tool_calls": [call]}
    if mode in ("surrogate", "surrogate-id"):  # a non-UTF-8 file name, as os.listdir returns it
        name = os.fsdecode(b"report-\xff\xfe.txt")
        return [ask, {"role": "tool", "tool_call_id": "hostile-1", "content": f"files:\n{name}\nnotes.md"}]
    if mode == "deep":
        return [ask, {"role": "tool", "tool_call_id": "hostile-1", "content": "nested output",
                      "metadata": _deep(1500)}]
    if mode == "nul":
        return [ask, {"role": "tool", "tool_call_id": "hostile-1", "content": "before\x00after\x00"}]
    if mode == "parts":
        return [ask, {"role": "tool", "tool_call_id": "hostile-1",
                      "content": [{"type": "text", "text": "odd"}, {"type": "image_url", "image_url": {"url": "x"}},
                                  42, None, {"no": "text"}, "plain"]}]
    if mode == "huge":
        return [ask, {"role": "tool", "tool_call_id": "hostile-1", "content": "line of output\n" * 1_500_000}]
    raise SystemExit(f"unknown mode {mode}")


def _same(a: Any, b: Any) -> bool:
    """Exact equality, also for values too deep for ``==`` (compared as JSON text)."""
    try:
        return bool(a == b) and json.dumps(a, ensure_ascii=True) == json.dumps(b, ensure_ascii=True)
    except RecursionError:
        sys.setrecursionlimit(20_000)
        try:
            return json.dumps(a, ensure_ascii=True) == json.dumps(b, ensure_ascii=True)
        finally:
            sys.setrecursionlimit(1000)


def main() -> int:
    home, mode, context_length, transcript = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    from hermes_context_lcm.engine import LCMEngine
    from hermes_context_lcm.settings import LCMSettings

    try:
        from hermes_core.config.models import HermesConfig
        from hermes_core.plugin.context import PluginContext
    except ImportError:  # older layout
        from hermes_core.plugin_context import PluginContext  # type: ignore[no-redef]

        from hermes_core.config import HermesConfig  # type: ignore[no-redef]
    try:
        from hermes_core.apps.transcripts import load_transcript
    except ImportError:
        from hermes_core.transcripts import load_transcript  # type: ignore[no-redef]
    try:
        from hermes_summarizers.deterministic import DeterministicSummarizer
    except ImportError:
        from hermes_core.summary_client import DeterministicSummarizer  # type: ignore[no-redef]

    base = [m for m in load_transcript(Path(transcript)).messages if m.get("role") != "system"]
    groups_at = [i for i in range(5, len(base)) if base[i].get("role") == "user"][:1] or [len(base)]
    hostile = _hostile(mode)
    messages = [*base[: groups_at[0]], *hostile, *base[groups_at[0]:]]
    config = HermesConfig.model_validate({"model": {"context_length": context_length}})
    kwargs: dict[str, Any] = {"home": Path(home), "config": config, "settings": LCMSettings(),
                              "summarizer": DeterministicSummarizer()}
    if "fallback_summarizer" in PluginContext.__dataclass_fields__:
        kwargs["fallback_summarizer"] = DeterministicSummarizer()
    engine = LCMEngine(PluginContext(**kwargs))
    session = os.fsdecode(b"run-\xff\xfe") + "\x00x" if mode == "surrogate-id" else "hostile"
    engine.on_session_start(session)
    live: list[dict[str, Any]] = []
    biggest = 0
    errors: list[str] = []
    for i, msg in enumerate(messages):
        live.append(msg)
        if i + 1 < len(messages) and messages[i + 1].get("role") == "tool":
            continue
        try:
            if engine.should_compress_preflight(live):
                live = engine.compress(live).messages
        except Exception as exc:  # what a host would swallow
            errors.append(f"{type(exc).__name__}: {str(exc)[:200]}")
        tokens = sum(len(json.dumps(m, default=str)) // 4 for m in live[-400:]) if mode != "deep" else 0
        biggest = max(biggest, tokens)
    status = engine.get_status()
    store = engine.store
    rows = store.session_messages(session, limit=1 << 30)
    stored = [r.message() for r in rows if r.role != "system"]
    roundtrip = all(any(_same(h, s) for s in stored) for h in hostile) and all(r.session_id == session for r in rows)
    print(json.dumps({
        "stored": len(stored), "expected": len(messages), "roundtrip": roundtrip,
        "store_error": status.get("store_error", ""), "state": status.get("state", ""), "errors": errors[:3],
        "compactions": engine.compression_count, "biggest_tokens": biggest, "context_length": context_length,
    }))
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

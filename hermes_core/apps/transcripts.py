"""Reading OpenAI chat transcripts: a JSON list, an object with ``messages``, or JSONL."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_core.text.files import FileRefused, read_text_file
from hermes_core.text.json_depth import MAX_TRANSCRIPT_DEPTH, JSONTooDeep, loads_bounded

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024


class TranscriptError(ValueError):
    """The file is not a readable chat transcript; the message says why in one line."""


@dataclass
class Transcript:
    messages: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)  # every top-level key but messages
    path: Path | None = None


def load_transcript(path: Path | str) -> Transcript:
    """Load a transcript; raise :class:`TranscriptError` naming the file and the problem."""
    p = Path(path)
    try:
        text = read_text_file(p, max_bytes=MAX_TRANSCRIPT_BYTES)
    except FileNotFoundError:
        raise TranscriptError(f"{p}: no such file") from None
    except FileRefused as exc:
        raise TranscriptError(str(exc)) from None
    except OSError as exc:
        raise TranscriptError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return parse_transcript(text, source=str(p), path=p)


def parse_transcript(text: str, *, source: str = "<input>", path: Path | None = None) -> Transcript:
    stripped = text.strip()
    if not stripped:
        raise TranscriptError(f"{source}: empty file")
    try:
        data: Any = loads_bounded(stripped, source, MAX_TRANSCRIPT_DEPTH)
    except JSONTooDeep as exc:
        raise TranscriptError(f"{exc.msg}; is this a chat transcript?") from None
    except json.JSONDecodeError as first_error:
        data = _parse_jsonl(stripped, source, first_error)
    meta: dict[str, Any] = {}
    if isinstance(data, dict):
        if not isinstance(data.get("messages"), list):
            raise TranscriptError(f"{source}: a JSON object must have a 'messages' list")
        meta = {k: v for k, v in data.items() if k != "messages"}
        data = data["messages"]
    if not isinstance(data, list):
        raise TranscriptError(f"{source}: expected a list of messages, got {type(data).__name__}")
    for i, msg in enumerate(data):
        if not isinstance(msg, dict):
            raise TranscriptError(f"{source}: message {i} is a {type(msg).__name__}, not an object")
        if not isinstance(msg.get("role"), str):
            raise TranscriptError(f"{source}: message {i} has no 'role'")
    if not data:
        raise TranscriptError(f"{source}: no messages")
    return Transcript(messages=data, meta=meta, path=path)


def _parse_jsonl(text: str, source: str, first_error: json.JSONDecodeError) -> list[Any]:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        raise TranscriptError(
            f"{source}: not valid JSON (line {first_error.lineno}, column {first_error.colno}: {first_error.msg})"
        )
    out = []
    for n, line in enumerate(lines, 1):
        try:
            out.append(loads_bounded(line, f"{source}: line {n}", MAX_TRANSCRIPT_DEPTH))
        except JSONTooDeep as exc:
            raise TranscriptError(f"{exc.msg}; is this a chat transcript?") from None
        except json.JSONDecodeError as exc:
            raise TranscriptError(f"{source}: not valid JSON or JSONL (line {n}: {exc.msg})") from None
    return out

"""The context-engine conformance suite: what every engine's ``compress()`` must honour.

Use it from any engine's tests::

    from hermes_core.testing.engine_conformance import check_engine, corpus_cases, engine_factory
    from hermes_core.apps.transcripts import load_transcript

    @pytest.mark.parametrize(("path", "context_length"), corpus_cases())  # corpus x 16k..128k
    def test_conformance(path, context_length, tmp_path):
        messages = load_transcript(path).messages
        problems = check_engine(engine_factory(MyEngine, tmp_path), messages, context_length)
        assert not problems, "\\n".join(problems)

``engine_factory(cls, home)`` builds the engine offline (deterministic summarizer) for a
given context length; any ``callable(context_length) -> ContextEngine`` works instead.
``corpus_cases()`` finds a corpus via ``$HERMES_CORPUS`` or ``shared/corpus/transcripts``
above the current directory (a larger one), else uses the seven real transcripts shipped in
``hermes_core/testing/corpus`` (347 KB, MIT; sources in its README), so it always runs.

:func:`check_engine` returns a list of human-readable problems (empty means conformant).
It checks, on a fresh engine per phase: below the threshold ``compress()`` is a no-op;
automatic and forced compaction give an API-valid list (``hermes_core.text.messages.api_problems``;
as many adjacent same-role pairs as the input already had are excused: an engine may not
add any, but need not rewrite the user's turns to remove them), keep the system message
and the last user message's content (in a user message: annotated or merged with the
summary is fine), never mutate the input, and fit under the threshold or say why in the
result's ``note`` (``last_compaction_note`` for an engine that returns a bare list);
compacting the result again keeps all of that.
A forced compaction of a list over the threshold must return fewer estimated tokens than
it was given, unless the system message and the last user message alone already reach
the threshold (then a note saying why is enough). ``compress()`` may return a
:class:`~hermes_core.records.CompactionResult` or a bare list.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.engine.runtime import as_result, keeps_user_ask
from hermes_core.text.messages import api_problems, text_of
from hermes_core.text.tokens import estimate_messages_tokens

if TYPE_CHECKING:
    from hermes_core.engine.base import ContextEngine
    from hermes_core.engine.summarizer import Summarizer

Message = dict[str, Any]
EngineFactory = Callable[[int], "ContextEngine"]

CONTEXT_LENGTHS = (16_000, 32_000, 64_000, 128_000)


def engine_factory(
    engine_cls: type[ContextEngine],
    home: Path,
    *,
    settings: Any = None,
    summarizer: Summarizer | None = None,
    config: Any = None,
) -> EngineFactory:
    """A factory building ``engine_cls`` for a given context length, offline by default.

    The engine gets a :class:`~hermes_core.plugin.context.PluginContext` rooted at
    ``home`` whose summarizer is the installed offline one (``deterministic``, also its
    ``fallback_summarizer``) unless ``summarizer`` is given.
    """
    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.context import PluginContext
    from hermes_core.plugin.host import build_host

    offline = build_host(HermesConfig(), home=home).fallback_summarizer

    def build(context_length: int) -> ContextEngine:
        cfg = (config or HermesConfig()).model_copy(deep=True)
        cfg.model.context_length = int(context_length)
        ctx = PluginContext(home=home, config=cfg, settings=settings,
                            summarizer=summarizer or offline, fallback_summarizer=offline)
        return engine_cls(ctx)

    return build


SHIPPED_CORPUS = Path(__file__).resolve().parent / "corpus"


def shipped_corpus() -> Path:
    """The small real-transcript corpus inside this package (seven files, MIT; see its README)."""
    return SHIPPED_CORPUS


def corpus_dir(start: Path | None = None, *, shipped: bool = True) -> Path | None:
    """The real-transcript corpus: ``$HERMES_CORPUS``, else ``shared/corpus/transcripts`` found
    by walking up from ``start`` (default: the current directory and this package), else the
    corpus shipped in ``hermes_core.testing`` (unless ``shipped=False``)."""
    env = os.environ.get("HERMES_CORPUS")
    if env:
        return Path(env) if Path(env).is_dir() else None
    roots = [start] if start else [Path.cwd(), Path(__file__).resolve()]
    for root in roots:
        for parent in [root, *root.parents]:
            candidate = parent / "shared" / "corpus" / "transcripts"
            if candidate.is_dir():
                return candidate
    return SHIPPED_CORPUS if shipped and SHIPPED_CORPUS.is_dir() else None


def corpus_cases(directory: Path | None = None, lengths: tuple[int, ...] = CONTEXT_LENGTHS) -> list[Any]:
    """``pytest.param(path, length)`` for every corpus transcript and context length."""
    import pytest

    directory = directory or corpus_dir()
    if directory is None:
        return [pytest.param(None, 0, marks=pytest.mark.skip(reason="transcript corpus not found"))]
    return [
        pytest.param(path, length, id=f"{path.stem}-{length // 1000}k")
        for path in sorted(directory.glob("*.json"))
        for length in lengths
    ]


def _snapshot(messages: list[Message]) -> str:
    return json.dumps(messages, sort_keys=True, default=repr)


def _same_role_pairs(messages: list[Message]) -> int:
    """How many adjacent user/user or assistant/assistant pairs a list has."""
    return sum(1 for a, b in itertools.pairwise(messages)
               if a.get("role") == b.get("role") and a.get("role") in ("user", "assistant"))


def _validity(out: list[Message], excused: int) -> Iterator[str]:
    for problem in api_problems(out):
        if "two consecutive" in problem and excused > 0:
            excused -= 1
            continue
        yield f"not API-valid: {problem}"


def _last_user(messages: list[Message]) -> Message | None:
    for msg in reversed(messages):
        if msg.get("role") == "user":
            return msg
    return None


def check_output(
    engine: ContextEngine,
    original: list[Message],
    given: list[Message],
    out: Any,
    *,
    label: str,
    note: str | None = None,
) -> list[str]:
    """Problems with one ``compress()`` result ``out`` for input ``given`` (derived from ``original``).

    ``out`` is the result's message list; ``note`` its note (default: the engine's
    ``last_compaction_note``).
    """
    note = _note(engine, note)
    problems: list[str] = []
    if not isinstance(out, list) or not all(isinstance(m, dict) for m in out):
        return [f"{label}: compress() returned {type(out).__name__}, not a list of message dicts"]
    if not out:
        return [f"{label}: compress() returned an empty list"]
    problems += [f"{label}: {p}" for p in _validity(out, _same_role_pairs(given))]
    if original and original[0].get("role") == "system":
        kept = out[0].get("role") == "system" and text_of(out[0].get("content")).startswith(
            text_of(original[0].get("content")))
        if not kept:
            problems.append(f"{label}: the system message was not kept at the start")
    if not keeps_user_ask(out, _last_user(original)):
        problems.append(f"{label}: the last user message's content was not kept in a user message")
    tokens = estimate_messages_tokens(out)
    threshold = getattr(engine, "threshold_tokens", 0)
    if threshold and tokens >= threshold and not note.strip():
        problems.append(f"{label}: result is ~{tokens} tokens, over the {threshold} threshold, and "
                        "last_compaction_note does not say why")
    return problems


def check_engine(factory: EngineFactory, messages: list[Message], context_length: int) -> list[str]:
    """Every conformance problem of the engine built by ``factory`` on ``messages``."""
    problems: list[str] = []
    before = _snapshot(messages)

    notes: dict[int, str] = {}

    def compress(engine: ContextEngine, given: list[Message], **kwargs: Any) -> Any:
        """The result's messages (a bare list as is); its note is kept for the checks."""
        raw = engine.compress(given, **kwargs)
        result = as_result(raw, engine)
        if result is None:
            return raw
        notes[id(result.messages)] = result.note
        return result.messages

    def run(label: str, given: list[Message], **kwargs: Any) -> tuple[ContextEngine, Any]:
        engine = factory(context_length)
        try:
            out = compress(engine, given, **kwargs)
        except Exception as exc:
            problems.append(f"{label}: compress() raised {type(exc).__name__}: {exc}")
            return engine, None
        if _snapshot(messages) != before:
            problems.append(f"{label}: compress() mutated its input")
        return engine, out

    probe = factory(context_length)
    threshold = probe.threshold_tokens
    estimate = estimate_messages_tokens(messages)

    # Below the threshold: a no-op (a prefix that fits, and the whole list if it fits).
    prefix, size = [], 0
    for msg in messages:
        size += estimate_messages_tokens([msg])
        if size >= threshold // 2:
            break
        prefix.append(msg)
    for label, given in (("below-threshold prefix", prefix), ("below-threshold", messages)):
        if given and estimate_messages_tokens(given) < threshold:
            _engine, out = run(label, given)
            if out is not None and out != given:
                problems.append(f"{label}: compress() changed a conversation under the threshold")

    # Automatic compaction when over the threshold, forced compaction always.
    phases: list[tuple[str, dict[str, Any]]] = [("forced", {"force": True})]
    if estimate >= threshold:
        phases.insert(0, ("automatic", {"current_tokens": estimate}))
    for label, kwargs in phases:
        engine, out = run(label, messages, **kwargs)
        if out is None:
            continue
        found = check_output(engine, messages, messages, out, label=label, note=notes.get(id(out)))
        if label == "forced":
            found += _shrinks(engine, messages, out, label=label, note=notes.get(id(out)))
        problems += found
        if label == "forced" and not found:
            snapshot = _snapshot(out)
            try:
                again = compress(engine, out, force=True)
            except Exception as exc:
                problems.append(f"forced twice: compress() raised {type(exc).__name__}: {exc}")
                continue
            if _snapshot(out) != snapshot:
                problems.append("forced twice: compress() mutated its input")
            note = notes.get(id(again))
            problems += check_output(engine, messages, out, again, label="forced twice", note=note)
    return problems


def irreducible_tokens(messages: list[Message]) -> int:
    """Estimated tokens of what every compaction must keep: the system message and the
    last user message."""
    kept = [m for m in messages[:1] if m.get("role") == "system"]
    last = _last_user(messages)
    return estimate_messages_tokens(kept + ([last] if last is not None else []))


def _note(engine: ContextEngine, note: str | None) -> str:
    return str(getattr(engine, "last_compaction_note", "") if note is None else note)


def _shrinks(
    engine: ContextEngine, given: list[Message], out: Any, *, label: str, note: str | None = None
) -> list[str]:
    """A forced compaction of a list over the threshold must make it smaller, unless what
    it must keep is itself over the threshold and the note says so."""
    threshold = getattr(engine, "threshold_tokens", 0)
    before = estimate_messages_tokens(given)
    if not threshold or before < threshold or not isinstance(out, list) or not all(isinstance(m, dict) for m in out):
        return []  # under the threshold, or a wrong type check_output reports
    after = estimate_messages_tokens(out)
    if after < before:
        return []
    floor = irreducible_tokens(given)
    if floor >= threshold and _note(engine, note).strip():
        return []
    return [f"{label}: forced compaction of ~{before} tokens (threshold {threshold}) returned ~{after} tokens; "
            f"the system and last user messages alone are ~{floor} tokens, so it could have shrunk"]

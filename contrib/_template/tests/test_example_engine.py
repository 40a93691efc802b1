"""Tests for the example engine, using hermes-core's plugin-author fixtures."""

from __future__ import annotations

import pytest

from hermes_core.text.messages import api_problems


def conversation(turns: int) -> list[dict]:
    messages = [{"role": "system", "content": "You are terse."}]
    for i in range(turns):
        messages.append({"role": "user", "content": f"question {i}"})
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": "read", "arguments": "{}"}}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"output {i}"})
        messages.append({"role": "assistant", "content": f"answer {i}"})
    return messages


def test_found_through_its_entry_point_and_configured(make_host):
    host = make_host(load_entrypoints=True, **{"context.engine": "example", "plugins.example": {"keep_last": 5}})
    assert host.engine.name == "example"
    assert host.engine.ctx.settings.keep_last == 5


def test_compress_keeps_system_and_newest_turns_and_stays_valid(make_host):
    host = make_host(load_entrypoints=True, **{"context.engine": "example", "plugins.example": {"keep_last": 6}})
    messages = conversation(10)
    snapshot = [dict(m) for m in messages]
    out = host.compress(messages, force=True).messages
    assert out[0] == messages[0]
    assert out[-1] == messages[-1]
    assert len(out) < len(messages)
    assert api_problems(out) == []
    assert messages == snapshot  # the input is never mutated


def test_bad_settings_are_a_clear_config_error(make_host):
    from hermes_core import ConfigError

    with pytest.raises(ConfigError, match=r"plugins\.example\.keep_last"):
        make_host(load_entrypoints=True, **{"context.engine": "example", "plugins.example": {"keep_last": 1}})


def test_conformance_on_real_transcripts(tmp_path):
    """hermes-core's engine conformance suite, on the real transcripts it ships tests with."""
    from hermes_context_example import ExampleEngine

    from hermes_core.apps.transcripts import load_transcript
    from hermes_core.testing.engine_conformance import check_engine, corpus_cases, corpus_dir, engine_factory

    if corpus_dir() is None:
        pytest.skip("no transcript corpus found (set HERMES_CORPUS)")
    cases = corpus_cases()  # every transcript x 16k, 32k, 64k, 128k
    for case in cases:
        path, context_length = case.values
        problems = check_engine(engine_factory(ExampleEngine, tmp_path), load_transcript(path).messages, context_length)
        assert not problems, f"{path.name}: " + "\n".join(problems)

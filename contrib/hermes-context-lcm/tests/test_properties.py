"""Property tests: any well-formed conversation compacts to an API-valid list that keeps the
newest user message verbatim and leaves every message either summarized or in context."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.store import SQLiteStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_core.config.models import HermesConfig
from hermes_core.plugin.context import PluginContext
from hermes_core.text.messages import api_problems

text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60).map(
    lambda s: s * 7)
group = st.one_of(
    st.tuples(st.just("user"), text),
    st.tuples(st.just("assistant"), text),
    st.tuples(st.just("tools"), st.lists(text, min_size=1, max_size=3)),
)


def conversation(groups: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    for n, (kind, payload) in enumerate(groups):
        if kind == "tools" and messages[-1]["role"] != "assistant":
            calls = [{"id": f"c{n}_{i}", "type": "function", "function": {"name": "t", "arguments": "{}"}}
                     for i in range(len(payload))]
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
            messages += [{"role": "tool", "tool_call_id": c["id"], "content": out}
                         for c, out in zip(calls, payload, strict=True)]
        elif kind == "user" and messages[-1]["role"] != "user":
            messages.append({"role": "user", "content": payload})
        elif kind == "assistant" and messages[-1]["role"] != "assistant":
            messages.append({"role": "assistant", "content": payload})
    return messages


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(groups=st.lists(group, min_size=1, max_size=60), context_length=st.sampled_from([1200, 3000, 9000]))
def test_compaction_invariants(tmp_path: Path, groups: list[tuple[str, Any]], context_length: int) -> None:
    messages = conversation(groups)
    assert not api_problems(messages)
    config = HermesConfig.model_validate({"model": {"context_length": context_length}})
    store = SQLiteStore(":memory:")
    engine = LCMEngine(PluginContext(home=tmp_path, config=config, extras={"lcm_store": store}))
    engine.on_session_start("p")
    after = engine.compress(messages, force=True).messages
    assert not api_problems(after), api_problems(after)
    newest = max(i for i, m in enumerate(messages) if m["role"] == "user")
    assert any(m is messages[newest] for m in after)
    assert after[-1] is messages[-1] or after[-1].get("tool_call_id") == messages[-1].get("tool_call_id")
    stored = {r.id for r in store.session_messages("p", limit=10_000)}
    assert len(stored) == len(messages)
    covered = {m for s in store.all_summaries("p") if s.covers_kind == "messages" for m in s.covers}
    assert stored <= covered | {mid for _, mid in engine._tracked if mid is not None}
    assert [r.message() for r in store.session_messages("p", limit=10_000)] == messages
    store.close()


json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), text)
json_value = st.recursive(json_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system"])},
    optional={"content": st.one_of(text, st.none(), st.lists(st.fixed_dictionaries({"type": st.just("text"),
                                                                                     "text": text}), max_size=3)),
              "name": st.text(max_size=10), "tool_call_id": st.text(max_size=10), "extra": json_value},
)


@settings(max_examples=80, deadline=None)
@given(batch=st.lists(message, min_size=1, max_size=6))
def test_store_round_trip_is_exact(batch: list[dict[str, Any]]) -> None:
    store = SQLiteStore(":memory:")
    ids = store.append("rt", batch)
    back = [m.message() for m in store.get_messages(ids)]
    assert back == batch
    assert [json.dumps(m, ensure_ascii=False) for m in back] == [json.dumps(m, ensure_ascii=False) for m in batch]
    store.close()

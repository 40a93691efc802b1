"""A minimal context engine: keep the first message and the newest ones that fit.

Run it on the shipped real transcript, then through the conformance suite every engine
must pass::

    python examples/minimal_engine.py

To publish it, put the class in a package and add to its pyproject.toml::

    [project.entry-points."hermes.context_engines"]
    keep-recent = "my_package:KeepRecent"

then select it with ``context.engine: keep-recent`` in config.yaml.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hermes_core import ContextEngine, build_host
from hermes_core.apps.replay import replay
from hermes_core.testing.engine_conformance import check_engine, engine_factory, shipped_corpus
from hermes_core.text.messages import sanitize_tool_pairs
from hermes_core.text.tokens import estimate_messages_tokens


class KeepRecent(ContextEngine):
    """Drops the oldest turns; the system message and the newest user message are always kept."""

    @property
    def name(self) -> str:
        return "keep-recent"

    def update_from_response(self, usage: dict[str, Any]) -> None:
        self.last_prompt_tokens = int(usage.get("prompt_tokens") or 0)

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        return tokens >= self.threshold_tokens > 0

    def compress(self, messages: list[dict[str, Any]], current_tokens: int | None = None,
                 focus_topic: str | None = None, force: bool = False) -> Any:
        tokens = current_tokens if current_tokens is not None else estimate_messages_tokens(messages)
        if not force and tokens + self.request_overhead_tokens < self.threshold_tokens:
            return messages  # below the threshold: unchanged (the conformance suite checks this)
        head = messages[:1] if messages and messages[0].get("role") == "system" else []
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
        if last_user is None:
            return self.result(messages, note="no user message to keep: nothing dropped")
        budget = self.threshold_tokens // 2 - self.request_overhead_tokens
        start = last_user  # the newest user message, verbatim, and what follows it
        while start > len(head) and estimate_messages_tokens([*head, *messages[start - 1:]]) <= budget:
            start -= 1
        while start > len(head) and messages[start].get("role") != "user":
            start -= 1  # a kept tail starts at a user message, so roles stay in order
        kept = sanitize_tool_pairs([*head, *messages[start:]])  # no tool result without its call, and the reverse
        self.compression_count += 1
        return self.result(kept, note=f"dropped {len(messages) - len(kept)} older messages, no summary")


def main() -> int:
    path = shipped_corpus() / "claude-code_ai-sessions_pomodoro.json"
    with tempfile.TemporaryDirectory() as home:
        host = build_host(home=Path(home), engines={"keep-recent": KeepRecent}, load_entrypoints=False,
                          overrides={"context.engine": "keep-recent", "model.context_length": 16_000})
        result = replay(path, host)
        print(f"replay: {result.requests} requests, {result.compactions} compactions, "
              f"API-valid: {not result.invalid_requests}")
        from hermes_core.apps.transcripts import load_transcript

        problems = check_engine(engine_factory(KeepRecent, Path(home)), load_transcript(path).messages, 16_000)
        print("conformance:", "passed" if not problems else "\n  ".join(["FAILED", *problems]))
        return 0 if not problems and result.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

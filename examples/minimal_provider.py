"""A minimal memory provider: remembers each turn in a JSON-lines file and recalls by keyword.

    python examples/minimal_provider.py

To publish it, put the class in a package and add to its pyproject.toml::

    [project.entry-points."hermes.memory_providers"]
    jsonl-notes = "my_package:JsonlNotes"

then select it with ``memory.provider: jsonl-notes``. It runs next to the built-in
MEMORY.md/USER.md provider; hermes-core fences what ``prefetch`` returns as recalled
context on the current user message, never in the system prompt.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hermes_core import MemoryProvider, Session


class JsonlNotes(MemoryProvider):
    """Every finished turn appended to ``$HERMES_HOME/notes.jsonl``; recall = turns sharing a word."""

    @property
    def name(self) -> str:
        return "jsonl-notes"

    def is_available(self) -> tuple[bool, str]:
        return True, ""  # no network here: doctor calls this before initialize()

    def initialize(self, session_id: str) -> None:
        self.path = self.ctx.home / "notes.jsonl"
        self.session_id = session_id

    def sync_turn(self, user_content: str, assistant_content: str) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"session": self.session_id, "user": user_content,
                                 "assistant": assistant_content}) + "\n")

    def prefetch(self, query: str) -> str:
        if not self.path.exists():
            return ""
        words = {w.lower() for w in query.split() if len(w) > 3}
        hits = [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines()]
        hits = [h for h in hits if words & {w.lower() for w in h["user"].split()}]
        return "\n".join(f"- earlier: {h['user']} -> {h['assistant']}" for h in hits[-3:])


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        options = {"home": home, "providers": {"jsonl-notes": JsonlNotes}, "load_entrypoints": False,
                   "overrides": {"memory.provider": "jsonl-notes"}}
        with Session.open(**options) as session:
            session.start_turn("My favourite editor is Helix")
            session.add_response("Got it: Helix.")
        with Session.open(**options) as session:  # a new session recalls the old turn
            request = session.start_turn("Which editor should I configure?")
            recalled = str(request.messages[-1]["content"])
            print("recalled:", "Helix" in recalled)
            return 0 if "Helix" in recalled else 1


if __name__ == "__main__":
    raise SystemExit(main())

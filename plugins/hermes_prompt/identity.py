"""Identity (seed 3.2): ``$HERMES_HOME/SOUL.md`` replaces the default identity when present."""

from __future__ import annotations

from pathlib import Path

from hermes_core.records import PromptSection

from .files import Skip, load_guarded

ORDER = 100
DEFAULT_AGENT_IDENTITY = (
    "You are Hermes Agent, an intelligent AI assistant created by Nous Research. "
    "You are helpful, knowledgeable, and direct. You assist with a wide range of tasks: "
    "answering questions, writing and editing code, analysing information and taking actions "
    "with the tools you have. Be concise unless detail is asked for, say when you are unsure, "
    "and prefer doing the work over describing it."
)


def identity_section(home: Path, max_chars: int, configured: str = "") -> PromptSection:
    """SOUL.md after scanning and truncation, else ``prompt.identity`` from config, else the default.

    A blocked SOUL.md keeps the default identity and appends the BLOCKED notice, so the
    agent still knows who it is and the user can see why their persona did not load.
    """
    default, source = (configured.strip(), "config") if configured.strip() else (DEFAULT_AGENT_IDENTITY, "default")
    path = home / "SOUL.md"
    if not path.exists():
        return PromptSection("identity", default, order=ORDER, source=source)
    loaded = load_guarded(path, "SOUL.md", max_chars, strip_header=False)
    if isinstance(loaded, Skip):
        return PromptSection("identity", default, order=ORDER, source=source, findings=[loaded.finding()])
    text, findings = loaded
    if not text:
        return PromptSection("identity", default, order=ORDER, source=source)
    if any(f["kind"] == "blocked" for f in findings):
        return PromptSection("identity", f"{default}\n\n{text}", order=ORDER, source=str(path),
                             findings=findings)
    return PromptSection("identity", text, order=ORDER, source=str(path), findings=findings)

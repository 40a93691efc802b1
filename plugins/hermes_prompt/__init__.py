"""The built-in system-prompt sections (placeholder)."""

from __future__ import annotations

from hermes_core import hookimpl
from hermes_core.records import PromptContext, PromptSection


@hookimpl
def hermes_system_prompt_sections(ctx: PromptContext) -> list[PromptSection]:
    return [PromptSection("identity", "You are Hermes Agent.", order=100, source="default")]

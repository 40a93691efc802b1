"""The built-in system-prompt sections (seed section 3), one module per part.

identity (100, SOUL.md), platform hints (200), skills index (300), project context
files (400), behavioural guidance (600) and model-specific guidance (610). The memory
snapshot (500) and the compaction note come from the core assembler,
:func:`hermes_core.session.prompt.build_system_prompt`.

Importing this package is cheap: the parts are imported when the hook first fires. A
part that fails is reported as a skipped section; the others still build.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from hermes_core import hookimpl
from hermes_core.records import PromptContext, PromptSection

log = logging.getLogger("hermes_prompt")


def _isolated(name: str, order: int, build: Callable[[], PromptSection]) -> PromptSection:
    try:
        return build()
    except Exception as exc:  # one broken part must not cost the whole prompt
        log.warning("prompt part %s failed: %s: %s", name, type(exc).__name__, exc)
        return PromptSection(name, "", order=order, source="error",
                             findings=[{"kind": "skipped", "reason": f"failed: {type(exc).__name__}: {exc}"}])


@hookimpl
def hermes_system_prompt_sections(ctx: PromptContext) -> list[PromptSection]:
    from hermes_core import HermesConfig

    from . import context_files, guidance, identity, models, platform, skills

    config: HermesConfig = ctx.config or HermesConfig()
    max_chars = config.prompt.context_file_max_chars
    platform_name = (ctx.platform or config.prompt.platform or "cli").strip().lower()
    sections = [
        _isolated("identity", identity.ORDER, lambda: identity.identity_section(
            ctx.home, max_chars, config.prompt.identity)),
        _isolated("platform", platform.ORDER, lambda: platform.platform_section(platform_name)),
        _isolated("skills", skills.ORDER, lambda: skills.skills_section(
            ctx.home, tuple(config.skills.external_dirs), platform_name, config.skills.index_max_chars)),
        _isolated("context_files", context_files.ORDER,
                  lambda: context_files.context_files_section(ctx.cwd, max_chars)),
    ]
    memory_on = config.memory.memory_enabled or config.memory.user_profile_enabled
    has_skills = bool(sections[2].text)
    sections.append(_isolated("guidance", guidance.ORDER,
                              lambda: guidance.guidance_section(memory=memory_on, skills=has_skills)))
    sections.append(_isolated("model_guidance", models.ORDER,
                              lambda: models.model_section(ctx.model or config.model.name)))
    return sections

"""Model-specific guidance (seed 3.7): extra rules for model families with known habits.

The family is read from the model name (``openai/gpt-4.1`` -> ``openai``). GPT-style
models tend to describe actions instead of taking them and to compute in their head;
Gemini models tend to ask before acting and to paraphrase file contents.
"""

from __future__ import annotations

from hermes_core.records import PromptSection

ORDER = 610

TOOL_USE_ENFORCEMENT_GUIDANCE = (
    "<tool_use>\n"
    "When a task needs an action (reading a file, running a command, searching), call the tool in this "
    "turn. Do not say you will do something and then stop: either do it now or explain why you cannot.\n"
    "</tool_use>"
)

OPENAI_MODEL_EXECUTION_GUIDANCE = (
    "<mandatory_tool_use>\n"
    "NEVER answer these from memory or mental computation — ALWAYS use a tool:\n"
    "- Arithmetic, math, calculations → use terminal\n"
    "- Hashes, encodings → use terminal\n"
    "- Current time, date → run `date`\n"
    "- System state → use terminal\n"
    "</mandatory_tool_use>\n\n"
    "<act_dont_ask>\n"
    "When a question has an obvious default interpretation, act on it\n"
    "immediately instead of asking for clarification.\n"
    "</act_dont_ask>"
)

GOOGLE_MODEL_OPERATIONAL_GUIDANCE = (
    "<operational_rules>\n"
    "- Use absolute paths with file tools; resolve relative paths against the working directory first.\n"
    "- Read a file before editing it, and quote exact text when replacing; never paraphrase file contents.\n"
    "- Prefer acting over asking: make a reasonable assumption, state it, and continue.\n"
    "- Run independent tool calls in parallel when the platform allows it.\n"
    "</operational_rules>"
)

# (family, name fragments). First match wins; fragments are matched in the lower-cased name.
FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("openai", ("gpt", "codex", "o1-", "o3", "o4-", "chatgpt", "grok")),
    ("google", ("gemini", "gemma")),
    ("anthropic", ("claude",)),
    ("open-weights", ("qwen", "deepseek", "llama", "mistral", "mixtral", "kimi", "glm", "hermes", "minimax")),
)

GUIDANCE_BY_FAMILY: dict[str, tuple[str, ...]] = {
    "openai": (TOOL_USE_ENFORCEMENT_GUIDANCE, OPENAI_MODEL_EXECUTION_GUIDANCE),
    "google": (TOOL_USE_ENFORCEMENT_GUIDANCE, GOOGLE_MODEL_OPERATIONAL_GUIDANCE),
    "open-weights": (TOOL_USE_ENFORCEMENT_GUIDANCE,),
}


def model_family(model: str) -> str:
    """``openai``, ``google``, ``anthropic``, ``open-weights`` or ``""`` (unknown or unset)."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    if name.startswith(("o1", "o3", "o4")):
        return "openai"
    for family, fragments in FAMILIES:
        if any(fragment in name for fragment in fragments):
            return family
    return ""


def model_section(model: str) -> PromptSection:
    family = model_family(model)
    text = "\n\n".join(GUIDANCE_BY_FAMILY.get(family, ()))
    return PromptSection("model_guidance", text, order=ORDER, source=family or "none")

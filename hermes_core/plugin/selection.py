"""The one selection policy: which engine runs and which memory providers join it.

Used by the host, by ``hermes-core plugins`` and (through the host) by ``doctor``, so the
three never disagree. Exactly one context engine (``context.engine``, default
``compressor``); the built-in memory provider when memory is on, plus at most one
external provider: the first one ``memory.provider`` names. Every other external name is
refused, with a note that says which one is active.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_core.config.raw import BUILTIN_PROVIDER, ConfigError, raw_selection, section

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig

DEFAULT_ENGINE = "compressor"


class SelectionError(ConfigError):
    """The config names an engine, provider or summarizer that cannot be used."""


@dataclass(frozen=True)
class Selection:
    """What the config asks for, after the policy: the names to activate and the refused ones."""

    engine: str = DEFAULT_ENGINE
    providers: tuple[str, ...] = (BUILTIN_PROVIDER,)
    refused: tuple[str, ...] = ()
    disabled: frozenset[str] = field(default_factory=frozenset)

    @property
    def external(self) -> str | None:
        return next((name for name in self.providers if name != BUILTIN_PROVIDER), None)

    def refusal(self, name: str) -> str:
        """Why ``name`` is not active, for listings, warnings and ``doctor``."""
        return (
            f"refused: only one external memory provider may be active, and '{self.external}' is "
            "(memory.provider names it first)"
        )


def select(engine: str, memory_on: bool, externals: list[str], disabled: set[str] | frozenset[str]) -> Selection:
    """Apply the policy to the names the config gives."""
    wanted = [name for name in dict.fromkeys(externals) if name != BUILTIN_PROVIDER]
    providers = ([BUILTIN_PROVIDER] if memory_on else []) + wanted[:1]
    return Selection(engine or DEFAULT_ENGINE, tuple(providers), tuple(wanted[1:]), frozenset(disabled))


def from_config(config: HermesConfig) -> Selection:
    mem = config.memory
    return select(
        config.context.engine,
        mem.memory_enabled or mem.user_profile_enabled,
        config.external_providers(),
        config.disabled_plugins(),
    )


def from_raw(raw: dict[str, Any]) -> Selection:
    """The same policy from a raw mapping, without pydantic (for the quick listing)."""
    engine, externals, disabled = raw_selection(raw)
    mem = section(raw, "memory")
    memory_on = bool(mem.get("memory_enabled", True) or mem.get("user_profile_enabled", True))
    return select(engine, memory_on, externals, disabled)

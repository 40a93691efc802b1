"""Honcho (Plastic Labs) as a hermes-core memory provider, built on the ``honcho-ai`` SDK.

Select it with ``memory.provider: honcho`` and configure ``plugins.honcho`` in
config.yaml; see README.md. Importing the package is cheap: the provider, its pydantic
settings and the SDK load on first use (``hermes-core plugins`` imports only the
migration module).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_memory_honcho.provider import HonchoMemoryProvider
    from hermes_memory_honcho.settings import HonchoSettings

__all__ = ["HonchoMemoryProvider", "HonchoSettings"]


def __getattr__(name: str) -> Any:
    if name == "HonchoMemoryProvider":
        from hermes_memory_honcho.provider import HonchoMemoryProvider

        return HonchoMemoryProvider
    if name == "HonchoSettings":
        from hermes_memory_honcho.settings import HonchoSettings

        return HonchoSettings
    raise AttributeError(name)

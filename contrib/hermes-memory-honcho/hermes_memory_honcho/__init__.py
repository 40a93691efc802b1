"""Honcho (Plastic Labs) as a hermes-core memory provider, built on the ``honcho-ai`` SDK.

Select it with ``memory.provider: honcho`` and configure ``plugins.honcho`` in
config.yaml; see README.md. The SDK is imported only when the provider starts.
"""

from __future__ import annotations

from hermes_memory_honcho.provider import HonchoMemoryProvider
from hermes_memory_honcho.settings import HonchoSettings

__all__ = ["HonchoMemoryProvider", "HonchoSettings"]

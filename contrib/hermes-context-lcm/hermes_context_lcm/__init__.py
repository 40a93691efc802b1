"""hermes-context-lcm: the lossless context engine for hermes-core.

Select it with ``context.engine: lcm``; configure it under ``plugins.lcm`` in config.yaml.
The engine class is :class:`hermes_context_lcm.engine.LCMEngine` (imported lazily so that
discovering the plugin stays cheap).
"""

from __future__ import annotations

from typing import Any

__all__ = ["LCMEngine", "LCMSettings"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "LCMEngine":
        from hermes_context_lcm.engine import LCMEngine

        return LCMEngine
    if name == "LCMSettings":
        from hermes_context_lcm.settings import LCMSettings

        return LCMSettings
    raise AttributeError(name)

"""The built-in ``compressor`` context engine (seed section 2), a default plugin."""

from __future__ import annotations

from hermes_compressor.engine import CompressorEngine

__all__ = ["CompressorEngine"]

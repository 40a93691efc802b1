"""Tenant namespaces: checked once, then only ever passed to SQL as a bound parameter.

A namespace is a value in a ``namespace`` column, never part of an identifier or of SQL
text, so quotes, ``%``, ``_`` or ``;`` are harmless. What is refused is what PostgreSQL
cannot store (NUL) or what would make two namespaces look alike to a person (control
characters, surrounding blanks, an empty name).
"""

from __future__ import annotations

import unicodedata

MAX_NAMESPACE_CHARS = 200


def check_namespace(value: str) -> str:
    """``value`` unchanged when it is a usable namespace; ``ValueError`` naming the problem."""
    if not value:
        raise ValueError("storage.namespace must not be empty")
    if len(value) > MAX_NAMESPACE_CHARS:
        raise ValueError(f"storage.namespace is {len(value)} characters; at most {MAX_NAMESPACE_CHARS} are allowed")
    if value != value.strip():
        raise ValueError(f"storage.namespace {value!r} has leading or trailing whitespace")
    for ch in value:
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            raise ValueError(
                f"storage.namespace {value!r} contains the control or invisible character U+{ord(ch):04X}"
            )
    return value

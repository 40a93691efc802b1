"""Which memory-provider tool calls write memory: the ``writes_memory`` key of a tool schema.

A write asked for while tool output or recalled memory is in the model's context is marked,
held for confirmation or refused (``memory.untrusted_writes``). The session must know which
calls write, for every provider, not only the built-in ``memory`` tool. A provider says so in
the schema it offers (the key is removed before the schema reaches the model):

* ``"writes_memory": true``: every call of the tool writes;
* ``"writes_memory": {"action": ["add", "remove"], "operations": "*"}``: a call writes when one
  of the named arguments has one of the listed values, or (``"*"``) is present at all.

A tool without the key never writes memory. A malformed value counts every call as a write
(the safe reading) and is reported once.
"""

from __future__ import annotations

from typing import Any

KEY = "writes_memory"

Flag = bool | dict[str, tuple[str, ...] | None]  # None: "*", any value


def parse(value: Any) -> Flag:
    """The flag in a schema; ``ValueError`` naming what is wrong."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, dict) or not value:
        raise ValueError(f"'{KEY}' must be true, false or a non-empty mapping of argument names, not {value!r}")
    flag: dict[str, tuple[str, ...] | None] = {}
    for arg, values in value.items():
        if values == "*":
            flag[str(arg)] = None
        elif isinstance(values, list) and values and all(isinstance(v, str) for v in values):
            flag[str(arg)] = tuple(values)
        else:
            raise ValueError(f"'{KEY}.{arg}' must be \"*\" or a non-empty list of strings, not {values!r}")
    return flag


def is_write(flag: Flag, args: dict[str, Any]) -> bool:
    if isinstance(flag, bool):
        return flag
    for arg, values in flag.items():
        if arg in args and args[arg] is not None and (values is None or args[arg] in values):
            return True
    return False

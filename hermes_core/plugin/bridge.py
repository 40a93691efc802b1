"""One bridge per engine or provider object: its methods, as pluggy hookimpls.

Authors subclass :class:`~hermes_core.ContextEngine` or :class:`~hermes_core.MemoryProvider`
and override plain methods. The host registers one bridge per object, so the object's
methods answer the ``hermes_engine_*`` / ``hermes_memory_*`` hooks through pluggy's own
caller and general plugins can wrap or observe them like any other hook.

The bridge classes are generated from the hookspecs: every ``hermes_engine_<m>`` spec
becomes a hookimpl calling ``engine.<m>(...)`` through the object's :class:`Guard`
(isolated, bounded, on deep copies of mutable arguments). Adding a lifecycle method takes
two edits: the method on the base class and its hookspec. Hook-specific behaviour (what
runs in the background, which results are checked) lives in the small tables below and
defaults to "a bounded call whose result is passed on".
"""

from __future__ import annotations

import inspect
import logging
from typing import Any, ClassVar

from hermes_core import hookspecs
from hermes_core.guard import Guard, deep_copy, real_interrupt
from hermes_core.hookspecs import hookimpl
from hermes_core.records import CompactionResult

log = logging.getLogger("hermes_core.plugins")

ENGINE_PREFIX = "hermes_engine_"
MEMORY_PREFIX = "hermes_memory_"

#: Provider calls queued on the provider's own worker, in call order, not waited for.
BACKGROUND = frozenset({"sync_turn", "queue_prefetch", "on_session_end", "shutdown"})
#: Provider calls queued after the provider's pending work and waited for (session boundary).
ORDERED = frozenset({"initialize", "system_prompt_block"})
#: Inputs copied even for hermes-core's own objects: rare calls whose lists are the history.
ALWAYS_COPY = frozenset({"compress", "on_pre_compress", "on_session_end"})
#: Calls of hermes-core's own objects that need nothing but isolation (the hot path of a turn).
_INLINE = frozenset(
    {"update_from_response", "should_compress", "should_compress_preflight", "on_turn_start", "prefetch",
     "sync_turn", "queue_prefetch", "get_status", "system_prompt_block", "initialize", "on_delegation"}
)
#: What a result must be; anything else is refused with a warning naming the plugin.
EXPECTED: dict[str, tuple[type, ...]] = {
    "prefetch": (str,),
    "system_prompt_block": (str,),
    "on_pre_compress": (str,),
    "get_tool_schemas": (list, tuple),
    "handle_tool_call": (str,),
    "get_status": (dict,),
    "is_available": (tuple, list),
    "compress": (list, CompactionResult),
}


def spec_names(prefix: str) -> list[str]:
    """The hookspecs of one lifecycle, in declaration order."""
    return [name for name in vars(hookspecs) if name.startswith(prefix) and callable(getattr(hookspecs, name))]


def spec_params(hook: str) -> list[str]:
    return list(inspect.signature(getattr(hookspecs, hook)).parameters)


def _is_void(hook: str) -> bool:
    return inspect.signature(getattr(hookspecs, hook)).return_annotation in (None, "None")


class Bridge:
    """The hookimpls of one engine or provider object; see the module docstring."""

    prefix: ClassVar[str] = ""
    _void: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, obj: Any, guard: Guard, *, trusted: bool = False) -> None:
        self.obj = obj
        self.guard = guard
        self.trusted = trusted
        #: The tool schemas the object offered at the last ``get_tool_schemas``.
        self.offered: list[dict[str, Any]] = []
        #: The tool names this object owns (set by whoever builds the tool table).
        self.tools: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        return str(getattr(self.obj, "name", type(self.obj).__name__))

    def _call(self, method: str, args: tuple[Any, ...]) -> Any:
        if self.trusted and method in _INLINE:  # hermes-core's own objects: isolated, no copy, no thread
            try:
                value = getattr(self.obj, method)(*args)
            except BaseException as exc:
                if real_interrupt(exc):
                    raise
                self.guard.failed(self.prefix + method, f"{type(exc).__name__}: {exc}", exc)
                return None
            return None if method in self._void else self._checked(method, value)
        hook = self.prefix + method
        if method == "handle_tool_call" and args[0] not in self.tools:
            return None  # not this object's tool: the owner answers (firstresult)
        if not self.trusted or method in ALWAYS_COPY:
            args = tuple(deep_copy(arg) for arg in args)
        fn = getattr(self.obj, method)
        if method == "update_model" and not _accepts(fn, 3):  # engines written before max_tokens
            max_tokens, args = args[2], args[:2]
            fn = _then_set(fn, self.obj, "max_tokens", max_tokens)  # the standard attribute, set after the call
        guard = self.guard
        provider = self.prefix == MEMORY_PREFIX  # the ordered worker is a provider's; an engine's calls are waited for
        if guard.bounded and provider and method in BACKGROUND:
            guard.submit(hook, fn, *args)
            return None
        if guard.bounded and provider and method in ORDERED:
            ok, value = guard.ordered(hook, fn, *args, skip_if_late=method == "system_prompt_block")
        else:
            ok, value = guard.call(hook, fn, *args)
        if not ok or method in self._void:
            return None
        return self._checked(method, value)

    def _checked(self, method: str, value: Any) -> Any:
        expected = EXPECTED.get(method)
        if expected is not None and not isinstance(value, expected):
            if value is None and method == "handle_tool_call":
                return None
            self.guard.failed(
                self.prefix + method,
                f"returned a {type(value).__name__}, expected {' or '.join(t.__name__ for t in expected)}",
            )
            return None
        if method in ("should_compress", "should_compress_preflight"):
            return bool(value)
        if method == "is_available":
            if len(value) != 2:
                self.guard.failed(self.prefix + method, f"returned {len(value)} values, expected (ok, reason)")
                return None
            return bool(value[0]), str(value[1] or "")
        if method == "get_tool_schemas":
            self.offered = [schema for schema in (_normalize_schema(raw) for raw in value) if schema is not None]
            return self.offered
        if method == "get_status":
            return {"provider": self.name, **value} if self.prefix == MEMORY_PREFIX else value
        return value


def _then_set(fn: Any, obj: Any, attr: str, value: Any) -> Any:
    def call(*args: Any) -> Any:
        result = fn(*args)
        setattr(obj, attr, value)
        return result

    return call


def _accepts(fn: Any, count: int) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return True
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) >= count


def _normalize_schema(raw: Any) -> dict[str, Any] | None:
    """A bare ``{name, description, parameters}``; unwraps ``{"type": "function", ...}``."""
    if not isinstance(raw, dict):
        return None
    if raw.get("type") == "function" and isinstance(raw.get("function"), dict):
        return dict(raw["function"])
    return raw


def _generate(name: str, prefix: str) -> type[Bridge]:
    """A Bridge subclass with one hookimpl per ``prefix*`` hookspec, named and shaped like the spec."""
    namespace: dict[str, Any] = {"prefix": prefix, "__module__": __name__, "__doc__": f"Generated: {prefix}* hooks."}
    void = set()
    for hook in spec_names(prefix):
        params = spec_params(hook)
        method = hook[len(prefix) :]
        signature = "".join(f", {p}" for p in params)
        packed = "".join(f"{p}, " for p in params)
        local: dict[str, Any] = {}
        exec(f"def {hook}(self{signature}):\n    return self._call({method!r}, ({packed}))\n", {}, local)
        namespace[hook] = hookimpl(local[hook])
        if _is_void(hook):
            void.add(method)
    namespace["_void"] = frozenset(void)
    return type(name, (Bridge,), namespace)


EngineBridge = _generate("EngineBridge", ENGINE_PREFIX)
ProviderBridge = _generate("ProviderBridge", MEMORY_PREFIX)

"""Registering a general plugin with pluggy, refusing what would misbehave later.

Shared by the host and by ``hermes-core plugins``, so the listing calls ``failed``
exactly what the host would refuse: a hook name without a spec (a misspelling that would
never fire), a hookimpl asking for arguments the spec does not have, or an object that
another plugin already registered (the error names both).

:func:`isolate` then wraps each of the plugin's hookimpls in its :class:`Guard`, in place,
so pluggy keeps calling them in its own order (LIFO, ``tryfirst``/``trylast``, wrappers
around the rest) while each one is isolated, bounded and fed its own copy of the
arguments. On ``hermes_engine_*`` and ``hermes_memory_*`` hooks a general plugin is an
observer: its return value is dropped and a wrapper cannot replace the result.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Generator
from typing import Any

import pluggy

from hermes_core import hookspecs
from hermes_core.guard import Guard, deep_copy
from hermes_core.plugin.bridge import BACKGROUND

log = logging.getLogger("hermes_core.plugins")

OBSERVED_PREFIXES = ("hermes_engine_", "hermes_memory_")


class RegistrationError(Exception):
    """The plugin was not registered; the message says why."""


class HermesPluginManager(pluggy.PluginManager):
    """pluggy's manager, skipping private and dunder attributes when it looks for hookimpls.

    Every hook is named ``hermes_*``; looking up the ~30 dunders of each plugin object
    statically was most of the cost of building a host.
    """

    def parse_hookimpl_opts(self, plugin: object, name: str) -> pluggy.HookimplOpts | None:
        if name.startswith("_"):
            return None
        return super().parse_hookimpl_opts(plugin, name)


def new_plugin_manager() -> pluggy.PluginManager:
    pm = HermesPluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def register_checked(
    pm: pluggy.PluginManager, plugin: object, name: str | None, describe: Callable[[str], str] = str
) -> str:
    """Register ``plugin`` and return its name, or raise :class:`RegistrationError`.

    ``describe`` turns a registered plugin name into "name (distribution version)" for the
    message about a duplicate.
    """
    existing = pm.get_name(plugin) if pm.is_registered(plugin) else None
    if existing is not None:
        raise RegistrationError(f"the same object is already registered as {describe(existing)}")
    if name is not None and pm.has_plugin(name):
        raise RegistrationError(f"the name '{name}' is already taken by {describe(name)}")
    try:
        registered = pm.register(plugin, name=name)
    except ValueError as exc:
        raise RegistrationError(f"already registered: {exc}") from None
    except pluggy.PluginValidationError as exc:
        if pm.is_registered(plugin):  # pluggy leaves it half-registered
            pm.unregister(plugin)
        raise RegistrationError(str(exc).replace("\n", "; ")) from None
    if registered is None:
        raise RegistrationError("blocked")
    unknown = [
        caller.name
        for caller in pm.get_hookcallers(plugin) or ()
        if not caller.has_spec() and not any(i.plugin is plugin and i.optionalhook for i in caller.get_hookimpls())
    ]
    if unknown:
        pm.unregister(plugin)
        raise RegistrationError(f"implements unknown hook(s) {', '.join(sorted(unknown))}")
    return registered


def isolate(pm: pluggy.PluginManager, plugin: object, guard: Guard) -> None:
    """Wrap every hookimpl of the registered ``plugin`` in ``guard``, keeping pluggy's order."""
    for name in dir(plugin):  # only this plugin's hooks (pm.get_hookcallers scans every hook)
        caller = getattr(pm.hook, name, None) if name.startswith("hermes_") else None
        for impl in caller.get_hookimpls() if caller is not None else ():
            if impl.plugin is plugin:
                impl.function = _guarded(impl, caller.name, guard)  # type: ignore[misc, union-attr]


def _guarded(impl: pluggy.HookImpl, hook: str, guard: Guard) -> Callable[..., Any]:
    fn = impl.function
    observer = hook.startswith(OBSERVED_PREFIXES)
    copy = guard.bounded  # hermes-core's own plugins do not edit their inputs

    def prepare(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Callable[[], Any]:
        if copy:
            args, kwargs = deep_copy(list(args)), deep_copy(kwargs)
        return functools.partial(fn, *args, **kwargs)

    if impl.wrapper:

        def wrapper(*args: Any, **kwargs: Any) -> Generator[None, Any, Any]:
            inner = _begin(guard, hook, prepare(args, kwargs))
            result = yield
            if inner is None:
                return result
            ok, value = guard.call(hook, _finish, inner, result)
            return result if observer or not ok else value

        return wrapper

    if impl.hookwrapper:

        def legacy(*args: Any, **kwargs: Any) -> Generator[None, Any, None]:
            inner = _begin(guard, hook, prepare(args, kwargs))
            outcome = yield
            if inner is None:
                return
            kept = outcome.get_result() if outcome.exception is None else None
            guard.call(hook, _finish_legacy, inner, outcome)
            if observer and outcome.exception is None and outcome.get_result() is not kept:
                guard.failed(hook, "an observer may not replace the result; kept the original")
                outcome.force_result(kept)

        return legacy

    if observer and guard.bounded and hook.removeprefix("hermes_memory_") in BACKGROUND:

        def queued(*args: Any, **kwargs: Any) -> None:  # in order on the plugin's own worker, like a provider's
            guard.submit(hook, prepare(args, kwargs))

        return queued

    def plain(*args: Any, **kwargs: Any) -> Any:
        ok, value = guard.call(hook, prepare(args, kwargs))
        return None if observer or not ok else value

    return plain


def _begin(guard: Guard, hook: str, start: Callable[[], Any]) -> Generator[None, Any, Any] | None:
    """Run a wrapper up to its ``yield``; ``None`` when it failed, so the call goes on without it."""

    def first_half() -> Generator[None, Any, Any]:
        gen = start()
        try:
            next(gen)
        except StopIteration:
            raise RuntimeError("the wrapper did not yield") from None
        return gen  # type: ignore[no-any-return]

    ok, gen = guard.call(hook, first_half)
    return gen if ok else None


def _finish(gen: Generator[None, Any, Any], result: Any) -> Any:
    try:
        gen.send(result)
    except StopIteration as stop:
        return stop.value
    gen.close()
    raise RuntimeError("the wrapper yielded more than once")


def _finish_legacy(gen: Generator[None, Any, None], outcome: Any) -> None:
    try:
        gen.send(outcome)
    except StopIteration:
        return
    gen.close()
    raise RuntimeError("the hookwrapper yielded more than once")

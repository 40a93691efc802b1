"""Registering a general plugin with pluggy, refusing what would misbehave later.

Shared by the host and by ``hermes-core plugins``, so the listing calls ``failed``
exactly what the host would refuse: a hook name without a spec (a misspelling that would
never fire), a hookimpl asking for arguments the spec does not have, or an object that
another entry point already registered.
"""

from __future__ import annotations

import pluggy

from hermes_core import hookspecs


class RegistrationError(Exception):
    """The plugin was not registered; the message says why."""


def new_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def register_checked(pm: pluggy.PluginManager, plugin: object, name: str | None) -> str:
    """Register ``plugin`` and return its name, or raise :class:`RegistrationError`."""
    try:
        registered = pm.register(plugin, name=name)
    except ValueError:
        raise RegistrationError("already registered (another entry point names the same object)") from None
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

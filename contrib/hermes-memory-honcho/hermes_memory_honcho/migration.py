"""General plugin: the seed's one-time migration (1.7) that turns Honcho on.

Users who configured Honcho before ``memory.provider`` existed would silently lose it
on upgrade. When ``plugins.honcho`` names a server (``base_url``) or its API key is in
the environment, but ``memory.provider`` is empty, this sets it to ``honcho``; the host
persists the change and records the migration so it never runs again.
"""

from __future__ import annotations

import os
from typing import Any

from hermes_core import hookimpl
from hermes_core.records import ConfigMigration

MIGRATION_ID = "honcho.enable-provider"


def honcho_configured(raw: dict[str, Any]) -> bool:
    plugins = raw.get("plugins")
    section = plugins.get("honcho") if isinstance(plugins, dict) else None
    if not isinstance(section, dict):
        return False
    key_env = section.get("api_key_env") or "HONCHO_API_KEY"
    return bool(section.get("base_url")) or bool(os.environ.get(str(key_env)))


def enable_honcho(raw: dict[str, Any]) -> bool:
    """Set ``memory.provider: honcho`` when Honcho is configured and none is chosen."""
    memory = raw.get("memory")
    if memory is not None and not isinstance(memory, dict):
        return False
    if (memory or {}).get("provider") or not honcho_configured(raw):
        return False
    raw.setdefault("memory", {})
    raw["memory"] = {**(raw["memory"] or {}), "provider": "honcho"}
    return True


@hookimpl
def hermes_config_migrations() -> list[ConfigMigration]:
    return [ConfigMigration(MIGRATION_ID, "select the Honcho memory provider when Honcho is configured",
                            enable_honcho)]

"""Reading config.yaml as a plain mapping, without pydantic.

Kept apart from :mod:`hermes_core.config.models` so fast paths (``hermes-core plugins``) can
read ``plugins.disabled`` and the selected names without paying for model validation.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

BUILTIN_PROVIDER = "builtin"
MAX_CONFIG_BYTES = 1024 * 1024  # a config file is a few KB; a FIFO or /dev/zero is refused before this


class ConfigError(Exception):
    """config.yaml (or a plugin's section of it) is unreadable or invalid."""


def load_raw_config(path: Path) -> dict[str, Any]:
    """The YAML mapping in ``path`` ({} if missing); ConfigError if unreadable."""
    from hermes_core.text.files import FileRefused, read_text_file

    try:
        text = read_text_file(path, max_bytes=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return {}
    except FileRefused as exc:
        raise ConfigError(f"cannot read config: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config: {exc.strerror or exc}") from None
    data = _parse_yaml(path, text)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level, got {type(data).__name__}")
    from hermes_core.text.json_depth import MAX_JSON_DEPTH, depth_exceeds

    if depth_exceeds(data, MAX_JSON_DEPTH):
        raise ConfigError(f"{path}: nested deeper than {MAX_JSON_DEPTH} levels; config is a few levels deep")
    return data


def _parse_yaml(path: Path, text: str) -> Any:
    """PyYAML's reading of ``text``, remembered by the text's SHA-256 between processes.

    Importing PyYAML is most of what reading a small config costs a short command (its
    reader compiles a large Unicode class at import). The answer for the same bytes is
    always the same, so a value JSON holds exactly (mappings with string keys, lists,
    strings, numbers, booleans, null) is kept in :mod:`hermes_core.config.user_cache`; anything
    else (dates, other keys, errors) is parsed every time.
    """
    from hermes_core.config import user_cache

    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    name = "config-parse.json"  # the last file read: a key of its bytes, wherever it lives
    cached = user_cache.read(name)
    if isinstance(cached, dict) and cached.get("sha256") == digest and "data" in cached:
        return cached["data"]
    import yaml  # only when there is a file to parse: keeps `hermes-core plugins` quick

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}{where}: not valid YAML: {problem}") from None
    if _json_exact(data):
        user_cache.write(name, {"sha256": digest, "data": data})
    return data


def _json_exact(value: Any, depth: int = 0) -> bool:
    """Whether JSON gives ``value`` back equal and of the same types (NaN and infinities are
    refused when it is written)."""
    if depth > 64:
        return False
    if value is None or isinstance(value, (str, bool, int, float)):
        return True
    if isinstance(value, list):
        return all(_json_exact(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_exact(v, depth + 1) for k, v in value.items())
    return False


def env_flag(name: str) -> bool:
    """An on/off environment switch: 1, true, yes or on (any case) mean on."""
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def env_disabled_plugins() -> set[str]:
    """``HERMES_DISABLE_PLUGINS``: comma-separated names blocked before import."""
    return {p.strip() for p in os.environ.get("HERMES_DISABLE_PLUGINS", "").split(",") if p.strip()}


def raw_selection(raw: dict[str, Any]) -> tuple[str, list[str], set[str]]:
    """``(engine, external providers, disabled)`` read leniently from a raw mapping."""
    ctx, mem, plugins = section(raw, "context"), section(raw, "memory"), section(raw, "plugins")
    engine = str(ctx.get("engine") or "compressor")
    providers = split_names(mem.get("provider"))
    disabled = {str(x) for x in (plugins.get("disabled") or []) if isinstance(x, str)}
    return engine, providers, disabled | env_disabled_plugins()


def section(raw: dict[str, Any], key: str) -> dict[str, Any]:
    """``raw[key]`` if it is a mapping, else {} (the typed loader reports the error)."""
    value = raw.get(key)
    return value if isinstance(value, dict) else {}


def split_names(value: Any) -> list[str]:
    """A provider setting as a list: ``"honcho"``, ``"a,b"`` or ``[a, b]``."""
    if not value:
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(x).strip() for x in items if str(x).strip()]


def provider_names(memory_on: bool, externals: list[str]) -> list[str]:
    """The providers to activate, in order: the built-in one (when memory is on), then
    the external ones; the host refuses all but the first external."""
    return ([BUILTIN_PROVIDER] if memory_on else []) + [n for n in externals if n != BUILTIN_PROVIDER]

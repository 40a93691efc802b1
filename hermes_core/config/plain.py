"""The configuration without pydantic, for commands whose config is certainly valid.

Importing pydantic and building the config models costs a short command such as
``hermes-core compact FILE`` about half its run time. When the config file is missing,
empty, or holds only known keys with plainly valid values (the right type, inside the
bounds :data:`FIELDS` describes; ``tests/host/test_plain_config.py`` derives the same table
from the models and holds the two equal), and only overrides that are valid by
construction, a :class:`PlainConfig` answers every read from those values instead.
Anything else (an unknown key, which the models warn about; a value the models would
coerce or refuse) goes to the models, so their warnings and error messages are the ones
users get. Anything a :class:`PlainConfig` does not know (``model_dump()``, an assignment)
builds the real :class:`~hermes_core.config.models.HermesConfig` from the same values
first, so callers see the same answers either way.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from hermes_core.config.raw import ConfigError, env_disabled_plugins, load_raw_config, split_names

#: ``HermesConfig().model_dump()``; tests/host/test_plain_config.py holds the two equal.
DEFAULTS: dict[str, dict[str, Any]] = {
    "memory": {"memory_enabled": True, "user_profile_enabled": True, "memory_char_limit": 2200,
               "user_char_limit": 1375, "nudge_interval": 10, "flush_min_turns": 6, "provider": "",
               "prefetch_timeout": 8.0, "recall_max_share": 0.1, "untrusted_writes": "allow"},
    "context": {"engine": "compressor", "threshold_percent": 0.5, "protect_first_n": 3, "summary_target_ratio": 0.2,
                "summary_model_override": "", "quiet_mode": False},
    "model": {"name": "", "context_length": 128000},
    "auxiliary": {"base_url": "", "model": "", "api_key_env": "OPENAI_API_KEY", "timeout": 120.0, "max_retries": 2,
                  "summarizer": "auto"},
    "skills": {"external_dirs": [], "index_max_chars": 64000},
    "prompt": {"platform": "cli", "context_file_max_chars": 20000, "identity": ""},
    "plugins": {"disabled": []},
    "hooks": {"timeouts": {}, "worker_pool_size": None},
    "storage": {"backend": "files", "dsn_env": "HERMES_PG_DSN", "namespace": "default", "pool_size": 8},
}


#: Every key of every section with its type and bounds, as the models declare them.
#: Kinds: bool, int, float, str, literal (``values``), list[str], dict[str, float] and
#: int|None; bounds: gt, ge, lt, le, min_length. ``plugins`` also takes plugin sections.
FIELDS: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {
    "memory": {"memory_enabled": ("bool", {}), "user_profile_enabled": ("bool", {}),
               "memory_char_limit": ("int", {"gt": 0}), "user_char_limit": ("int", {"gt": 0}),
               "nudge_interval": ("int", {"ge": 0}), "flush_min_turns": ("int", {"ge": 0}), "provider": ("str", {}),
               "prefetch_timeout": ("float", {"gt": 0}), "recall_max_share": ("float", {"gt": 0, "le": 1}),
               "untrusted_writes": ("literal", {"values": ("allow", "confirm", "refuse")})},
    "context": {"engine": ("str", {}), "threshold_percent": ("float", {"gt": 0, "le": 1}),
                "protect_first_n": ("int", {"ge": 0}), "summary_target_ratio": ("float", {"gt": 0, "lt": 1}),
                "summary_model_override": ("str", {}), "quiet_mode": ("bool", {})},
    "model": {"name": ("str", {}), "context_length": ("int", {"gt": 0})},
    "auxiliary": {"base_url": ("str", {}), "model": ("str", {}), "api_key_env": ("str", {}),
                  "timeout": ("float", {"gt": 0}), "max_retries": ("int", {"ge": 0}), "summarizer": ("str", {})},
    "skills": {"external_dirs": ("list[str]", {}), "index_max_chars": ("int", {"ge": 1000})},
    "prompt": {"platform": ("str", {}), "context_file_max_chars": ("int", {"gt": 100}), "identity": ("str", {})},
    "plugins": {"disabled": ("list[str]", {})},
    "hooks": {"timeouts": ("dict[str, float]", {"gt": 0}), "worker_pool_size": ("int|None", {"ge": 1, "le": 1024})},
    "storage": {"backend": ("literal", {"values": ("files", "postgres")}), "dsn_env": ("str", {"min_length": 1}),
                "namespace": ("str", {}), "pool_size": ("int", {"ge": 1, "le": 200})},
}
#: Fields the models check with their own validator: accepted plainly only inside a
#: subset that validator certainly accepts (the models say why anything else is refused).
CUSTOM_CHECKS = {
    # 1-200 printable ASCII characters with no blanks around: no control or invisible character
    ("storage", "namespace"): lambda v: 0 < len(v) <= 200 and v == v.strip() and v.isascii() and v.isprintable(),
}
_REJECT = object()


def _number(value: Any) -> bool:
    """An int or a float (not a bool, not NaN) that converts to a float exactly as the models do."""
    return (type(value) is float and value == value) or (type(value) is int and abs(value) < 2 ** 53)


def _in_bounds(value: Any, bounds: dict[str, Any]) -> bool:
    size = len(value) if isinstance(value, str) else None
    return not (("gt" in bounds and not value > bounds["gt"]) or ("ge" in bounds and not value >= bounds["ge"])
                or ("lt" in bounds and not value < bounds["lt"]) or ("le" in bounds and not value <= bounds["le"])
                or ("min_length" in bounds and (size is None or size < bounds["min_length"])))


def _plain_value(kind: str, bounds: dict[str, Any], value: Any) -> Any:
    """``value`` as the models would store it, or ``_REJECT`` unless it is certainly valid."""
    if kind == "bool":
        return value if type(value) is bool else _REJECT
    if kind == "int" or (kind == "int|None" and value is not None):
        return value if type(value) is int and _in_bounds(value, bounds) else _REJECT
    if kind == "int|None":
        return None
    if kind == "float":
        return float(value) if _number(value) and _in_bounds(value, bounds) else _REJECT
    if kind == "str":
        return value if type(value) is str and _in_bounds(value, bounds) else _REJECT
    if kind == "literal":
        return value if type(value) is str and value in bounds["values"] else _REJECT
    if kind == "list[str]":
        return list(value) if type(value) is list and all(type(x) is str for x in value) else _REJECT
    if kind == "dict[str, float]" and type(value) is dict:
        if all(type(k) is str and _number(v) and _in_bounds(v, bounds) for k, v in value.items()):
            return {k: float(v) for k, v in value.items()}
    return _REJECT


def plain_values(raw: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """The config values of ``raw`` (a config.yaml mapping) on top of :data:`DEFAULTS`, equal
    to ``HermesConfig.model_validate(raw).model_dump()``, when every key is known and every
    value plainly valid; None otherwise (the models then say what is wrong or coerce)."""
    values = copy.deepcopy(DEFAULTS)
    for name, given in raw.items():
        fields = FIELDS.get(name) if type(name) is str else None
        if fields is None or type(given) is not dict:
            return None
        for key, value in given.items():
            if key in fields:
                plain = _plain_value(*fields[key], value)
                check = CUSTOM_CHECKS.get((name, key))
                if plain is _REJECT or (check is not None and not check(plain)):
                    return None
                values[name][key] = plain
            elif name == "plugins" and type(key) is str:
                values[name][key] = copy.deepcopy(value)  # a plugin's own section: the plugin validates it
            else:
                return None  # unknown: the models warn with a did-you-mean
    return values


def _positive_int(value: Any) -> bool:
    return type(value) is int and value > 0


#: Overrides that need no validation when their value passes this check.
SAFE_OVERRIDES = {"context.engine": lambda v: isinstance(v, str), "model.context_length": _positive_int}


class PlainSection:
    """One section's values as attributes; anything else is asked of the real model's section."""

    def __init__(self, owner: PlainConfig, name: str, values: dict[str, Any]) -> None:
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_values", values)

    def __getattr__(self, attr: str) -> Any:
        owner, values = object.__getattribute__(self, "_owner"), object.__getattribute__(self, "_values")
        if not owner.built and attr in values:
            return values[attr]
        return getattr(getattr(owner.validated(), self._name), attr)

    def __setattr__(self, attr: str, value: Any) -> None:
        setattr(getattr(self._owner.validated(), self._name), attr, value)  # validated there

    def section(self, name: str) -> dict[str, Any]:
        """``plugins.section(name)``: a plugin's own section (a mapping, else {})."""
        if self._owner.built:
            return self._owner.validated().plugins.section(name)
        value = self._values.get(name) if name not in FIELDS["plugins"] else None
        return value if isinstance(value, dict) else {}


class PlainConfig:
    """The config as plain values, until something needs the validated model.

    Once the model is built (:meth:`validated`), every read goes to it, so an assignment
    made there is what later reads see.
    """

    def __init__(self, values: dict[str, dict[str, Any]], raw: dict[str, Any] | None = None) -> None:
        self._values = values
        #: the mapping read from config.yaml ({} when there is none), for the plugins' migrations
        self.raw: dict[str, Any] = raw if raw is not None else {}
        self._model: Any = None
        self._sections = {name: PlainSection(self, name, section) for name, section in values.items()}

    @property
    def built(self) -> bool:
        return self._model is not None

    def validated(self) -> Any:
        """The validated ``HermesConfig`` with these values (imports pydantic the first time)."""
        if self._model is None:
            from hermes_core.config.models import HermesConfig

            self._model = HermesConfig.model_validate(self._values)
        return self._model

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        if self._model is None and attr in self._sections:
            return self._sections[attr]
        return getattr(self.validated(), attr)

    def external_providers(self) -> list[str]:
        return split_names(self.memory.provider) if self._model is None else self._model.external_providers()

    def disabled_plugins(self) -> set[str]:
        return set(self.plugins.disabled) | env_disabled_plugins() if self._model is None \
            else self._model.disabled_plugins()


def plain_config(path: Path) -> PlainConfig | None:
    """The config in ``path`` (defaults when it is missing or empty) as a
    :class:`PlainConfig` when it is certainly valid (:func:`plain_values`); None otherwise
    (the caller then loads and validates it the usual way)."""
    try:
        raw = load_raw_config(path)
    except ConfigError:
        return None  # the usual loader reports it
    values = plain_values(raw)
    return PlainConfig(values, raw) if values is not None else None


def apply_overrides(config: Any, overrides: dict[str, Any]) -> Any:
    """``config`` with dotted-key ``overrides``: plainly while every one is safe
    (:data:`SAFE_OVERRIDES`), else through the validating ``with_overrides``."""
    if not overrides:
        return config
    if isinstance(config, PlainConfig):
        if not config.built and all(key in SAFE_OVERRIDES and SAFE_OVERRIDES[key](v) for key, v in overrides.items()):
            values = copy.deepcopy(config._values)
            for key, value in overrides.items():
                section, leaf = key.split(".")
                values[section][leaf] = value
            return PlainConfig(values, config.raw)
        config = config.validated()
    from hermes_core.config.models import with_overrides

    return with_overrides(config, overrides)

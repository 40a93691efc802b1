"""The default configuration without pydantic, for commands that have nothing to validate.

Importing pydantic and building the config models costs a short command such as
``hermes-core compact FILE`` about half its run time. When there is nothing to validate
(no config file, or an empty one, and only overrides that are valid by construction), a
:class:`PlainConfig` answers every read from :data:`DEFAULTS` instead. Anything it does
not know (``model_dump()``, an assignment, a plugin's section) builds the real
:class:`~hermes_core.config.models.HermesConfig` from the same values first, so callers
see the same answers either way; whenever validation is needed, the models run and their
error messages are the ones users get.
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
        """``plugins.section(name)``: a plugin's own section; a default config has none."""
        return self._owner.validated().plugins.section(name) if self._owner.built else {}


class PlainConfig:
    """The config as plain values, until something needs the validated model.

    Once the model is built (:meth:`validated`), every read goes to it, so an assignment
    made there is what later reads see.
    """

    def __init__(self, values: dict[str, dict[str, Any]]) -> None:
        self._values = values
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
    """The defaults as a :class:`PlainConfig` when ``path`` is missing or empty; None when
    it holds anything (the caller then loads and validates it the usual way)."""
    if path.exists():
        try:
            if load_raw_config(path):
                return None
        except ConfigError:
            return None  # the usual loader reports it
    return PlainConfig(copy.deepcopy(DEFAULTS))


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
            return PlainConfig(values)
        config = config.validated()
    from hermes_core.config.models import with_overrides

    return with_overrides(config, overrides)

"""config.yaml: typed models with the seed's defaults, loading, and clear errors.

An invalid file raises :class:`ConfigError` whose message names the file, the key path,
the bad value and what was expected. Unknown keys are warnings with a did-you-mean.
Plugins validate their own section (``plugins.<name>``) with :func:`validate_section`,
which reports errors in the same form.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, ValidationError, field_validator

from hermes_core.config.paths import config_path
from hermes_core.config.raw import ConfigError, env_disabled_plugins, load_raw_config, split_names
from hermes_core.config.state import (  # noqa: F401  (re-exported: they lived here before)
    MIGRATIONS_STATE,
    applied_migrations,
    record_migrations,
    write_raw_config,
)

M = TypeVar("M", bound=BaseModel)

__all__ = [
    "AuxiliaryConfig",
    "ConfigError",
    "ContextConfig",
    "HermesConfig",
    "HooksConfig",
    "LoadedConfig",
    "MemoryConfig",
    "ModelConfig",
    "PluginsConfig",
    "PromptConfig",
    "SkillsConfig",
    "StorageConfig",
    "load_config",
    "load_raw_config",
    "validate_section",
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)


class MemoryConfig(_Section):
    """Seed 1.8. Limits count characters of the joined entries, not tokens."""

    memory_enabled: bool = True
    user_profile_enabled: bool = True
    memory_char_limit: int = Field(2200, gt=0)
    user_char_limit: int = Field(1375, gt=0)
    nudge_interval: int = Field(10, ge=0)
    flush_min_turns: int = Field(6, ge=0)
    provider: str = ""
    prefetch_timeout: float = Field(8.0, gt=0)
    recall_max_share: float = Field(0.10, gt=0, le=1)  # recalled text per turn, as a share of the window
    # a memory write made while tool output or recalled memory is in the turn's context:
    # allow (marked), confirm (held until Session.confirm_memory_write) or refuse
    untrusted_writes: Literal["allow", "confirm", "refuse"] = "allow"


class ContextConfig(_Section):
    """Seed 4.3: which engine runs and how the built-in compressor is tuned."""

    engine: str = "compressor"
    threshold_percent: float = Field(0.50, gt=0, le=1)
    protect_first_n: int = Field(3, ge=0)
    summary_target_ratio: float = Field(0.20, gt=0, lt=1)
    summary_model_override: str = ""
    quiet_mode: bool = False


class ModelConfig(_Section):
    """The main model: its name picks model-specific guidance, its window sets budgets."""

    name: str = ""
    context_length: int = Field(128_000, gt=0)


class AuxiliaryConfig(_Section):
    """The OpenAI-compatible model used for summaries.

    ``summarizer`` picks the backend: ``auto`` uses ``llm`` when ``base_url`` and
    ``model`` are set, else the offline ``deterministic`` one.
    """

    base_url: str = ""
    model: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = Field(120.0, gt=0)
    max_retries: int = Field(2, ge=0)
    summarizer: str = "auto"


class SkillsConfig(_Section):
    """``index_max_chars`` caps the skills index in the prompt: past it, descriptions shorten."""

    external_dirs: list[str] = Field(default_factory=list)
    index_max_chars: int = Field(64_000, ge=1000)


class PromptConfig(_Section):
    """``identity`` replaces the default "You are Hermes Agent..." (``SOUL.md`` still wins)."""

    platform: str = "cli"
    context_file_max_chars: int = Field(20_000, gt=100)
    identity: str = ""


class StorageConfig(_Section):
    """Where the built-in memory and the LCM engine keep their data (see hermes_core.storage).

    ``files`` is the embedded default (MEMORY.md/USER.md, lcm.db); ``postgres`` shares one
    database between hosts, every row scoped by ``namespace``; the DSN is read from the
    environment variable ``dsn_env`` so no password sits in config.yaml.
    """

    backend: Literal["files", "postgres"] = "files"
    dsn_env: str = Field("HERMES_PG_DSN", min_length=1)
    namespace: str = "default"
    pool_size: int = Field(8, ge=1, le=200)

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, value: str) -> str:
        """Any text works (it is only ever a bound parameter), except what PostgreSQL cannot store
        (NUL) or what makes two namespaces look alike (control or invisible characters, blanks around)."""
        import unicodedata

        if not value or len(value) > 200:
            raise ValueError("storage.namespace must be 1 to 200 characters")
        if value != value.strip():
            raise ValueError(f"storage.namespace {value!r} has leading or trailing whitespace")
        bad = next((ch for ch in value if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")), None)
        if bad is not None:
            raise ValueError(f"storage.namespace {value!r} contains the control or invisible character "
                             f"U+{ord(bad):04X}")
        return value


class HooksConfig(_Section):
    """Time bounds of plugin hooks in seconds, by hook name without ``hermes_`` (``memory_prefetch``,
    ``engine_compress``, ``system_prompt_sections``) or ``default``; PLUGIN_GUIDE.md lists the defaults."""

    timeouts: dict[str, PositiveFloat] = Field(default_factory=dict)
    #: Threads of the process-wide pool that runs every plugin's background queue (one
    #: gateway, many sessions); ``HERMES_WORKER_POOL_SIZE`` overrides it. Default: min(32, 4 x cores), at least 8.
    worker_pool_size: int | None = Field(None, ge=1, le=1024)


class PluginsConfig(BaseModel):
    """``disabled`` blocks plugins before import; every other key is a plugin's section."""

    model_config = ConfigDict(extra="allow")

    disabled: list[str] = Field(default_factory=list)

    def section(self, name: str) -> dict[str, Any]:
        value = (self.model_extra or {}).get(name)
        return value if isinstance(value, dict) else {}


class HermesConfig(_Section):
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    model: ModelConfig = Field(default_factory=ModelConfig)
    auxiliary: AuxiliaryConfig = Field(default_factory=AuxiliaryConfig)
    skills: SkillsConfig = Field(default_factory=SkillsConfig)
    prompt: PromptConfig = Field(default_factory=PromptConfig)
    plugins: PluginsConfig = Field(default_factory=PluginsConfig)
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    storage: StorageConfig = Field(default_factory=StorageConfig)

    def external_providers(self) -> list[str]:
        """``memory.provider`` as a list (a comma-separated value names several)."""
        return split_names(self.memory.provider)

    def disabled_plugins(self) -> set[str]:
        """``plugins.disabled`` plus ``HERMES_DISABLE_PLUGINS`` (comma-separated)."""
        return set(self.plugins.disabled) | env_disabled_plugins()


@dataclass
class LoadedConfig:
    config: HermesConfig
    path: Path | None
    raw: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


# -- loading ------------------------------------------------------------------------


def load_config(path: Path | str | None = None, home: Path | None = None) -> LoadedConfig:
    """Load and validate config.yaml (``path``, else ``$HERMES_HOME/config.yaml``)."""
    p = Path(path) if path is not None else config_path(home)
    raw = load_raw_config(p)
    config = validate_section(HermesConfig, raw, source=str(p))
    warnings = unknown_keys(HermesConfig, raw, source=str(p))
    return LoadedConfig(config=config, path=p, raw=raw, warnings=warnings)


def with_overrides(config: HermesConfig, overrides: dict[str, Any]) -> HermesConfig:
    """``config`` with dotted-key overrides applied and validated (``{"context.engine": "lcm"}``)."""
    if not overrides:
        return config
    data = config.model_dump()
    for dotted, value in overrides.items():
        node = data
        *parents, leaf = dotted.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    return validate_section(HermesConfig, data, source="overrides")


def validate_section(model: type[M], raw: Any, *, source: str, prefix: str = "") -> M:
    """Validate ``raw`` against ``model``; ConfigError listing every problem, one a line."""
    try:
        return model.model_validate(raw if raw is not None else {})
    except ValidationError as exc:
        lines = [_describe(err, source, prefix) for err in exc.errors()]
        raise ConfigError("\n".join(lines)) from None


def _describe(err: Any, source: str, prefix: str) -> str:
    loc = ".".join(str(part) for part in (*([prefix] if prefix else []), *err["loc"]))
    value = err.get("input")
    shown = json.dumps(value, default=str) if not isinstance(value, dict) else "a mapping"
    if len(shown) > 60:
        shown = shown[:57] + "..."
    expected = err["msg"]
    if err["type"] == "model_type" or err["type"] == "dict_type":
        expected = "a mapping"
    return f"{source}: {loc or '<top>'}: got {shown}; expected {_lower_first(expected)}"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def unknown_keys(model: type[BaseModel], raw: Any, *, source: str, prefix: str = "") -> list[str]:
    """Warnings for keys the model does not define, with a did-you-mean."""
    if not isinstance(raw, dict) or model.model_config.get("extra") == "allow":
        return []
    warnings = []
    fields = model.model_fields
    for key, value in raw.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in fields:
            close = difflib.get_close_matches(str(key), list(fields), n=1)
            hint = f"; did you mean '{prefix + '.' if prefix else ''}{close[0]}'?" if close else ""
            warnings.append(f"{source}: unknown key '{path}'{hint}")
            continue
        annotation = fields[key].annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            warnings.extend(unknown_keys(annotation, value, source=source, prefix=path))
    return warnings

"""The plugin-author kit: pytest fixtures for testing hermes-core plugins.

Installed as a pytest plugin (entry point ``pytest11``), so the fixtures are available
in any project that has hermes-core installed:

* ``hermes_home``: a temporary, empty ``$HERMES_HOME`` (the env var points at it), and a
  temporary ``$HERMES_CACHE_DIR``.
* ``write_config``: write ``config.yaml`` into that home from a mapping.
* ``make_host``: build a :class:`~hermes_core.PluginHost` from chosen plugins, with
  entry-point autoloading off unless asked for.
* ``installed_distribution``: install a real distribution (a ``.dist-info`` with your
  entry points, plus modules) on ``sys.path`` for one test, so discovery finds it
  exactly as it finds a pip-installed package.

Conformance suites live beside this module: :mod:`hermes_core.testing.engine_conformance`
and :mod:`hermes_core.testing.provider_conformance`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from hermes_core.plugin.host import PluginHost


@pytest.fixture
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh ``$HERMES_HOME`` for one test; plugin env switches are cleared."""
    home = tmp_path / "hermes-home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HERMES_CACHE_DIR", str(tmp_path / "hermes-cache"))  # the entry-point listing, kept apart
    for var in ("HERMES_DISABLE_PLUGINS", "HERMES_STRICT_PLUGINS", "HERMES_TRACE_PLUGINS"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def write_config(hermes_home: Path) -> Callable[[dict[str, Any]], Path]:
    """Write a mapping as ``$HERMES_HOME/config.yaml``; returns the path."""
    import yaml

    def write(data: dict[str, Any]) -> Path:
        path = hermes_home / "config.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    return write


@pytest.fixture
def make_host(hermes_home: Path) -> Iterator[Callable[..., PluginHost]]:
    """Build hosts for a test and close them afterwards.

    ``make_host(config=None, *, engines={}, providers={}, plugins=(), load_entrypoints=False,
    **config_overrides)``: without ``config``, the one ``write_config`` wrote (else the
    defaults); ``config_overrides`` are dotted keys applied on top, e.g.
    ``make_host(**{"context.engine": "mine", "model.context_length": 16000})``.
    Engines and providers passed here are registered in-process under the given names.
    """
    from hermes_core.config.models import HermesConfig, load_config, with_overrides
    from hermes_core.plugin.host import build_host

    built: list[PluginHost] = []

    def make(
        config: HermesConfig | None = None,
        *,
        engines: dict[str, type] | None = None,
        providers: dict[str, type] | None = None,
        plugins: tuple[object, ...] | list[object] = (),
        load_entrypoints: bool = False,
        strict: bool | None = None,
        **overrides: Any,
    ) -> PluginHost:
        if config is None:  # what write_config wrote, else the defaults
            config = load_config(home=hermes_home).config
        cfg = with_overrides(config, {k.replace("__", "."): v for k, v in overrides.items()})
        host = build_host(
            cfg,
            home=hermes_home,
            load_entrypoints=load_entrypoints,
            plugins=plugins,
            engines=engines,
            providers=providers,
            strict=strict,  # type: ignore[arg-type]
        )
        built.append(host)
        return host

    yield make
    for host in built:
        host.close()


@pytest.fixture
def installed_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Install a distribution for the duration of one test; returns its site directory.

    ``installed_distribution(name, version="1.0", entry_points={group: {ep: "mod:attr"}},
    modules={"mod.py": source})``. The directory is prepended to ``sys.path`` and to
    ``PYTHONPATH`` (so subprocesses such as the ``hermes-core`` CLI see it too).
    """
    import importlib
    import os
    import sys

    from hermes_core.testing.distributions import write_distribution

    def install(
        name: str,
        version: str = "1.0",
        entry_points: dict[str, dict[str, str]] | None = None,
        modules: dict[str, str] | None = None,
    ) -> Path:
        site = tmp_path / f"site-{name}"
        write_distribution(site, name, version, entry_points or {}, modules or {})
        monkeypatch.syspath_prepend(str(site))
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
        for rel in modules or {}:  # a module of that name imported by an earlier test must not be reused
            top = Path(rel).parts[0].removesuffix(".py")
            for loaded in [m for m in sys.modules if m == top or m.startswith(f"{top}.")]:
                monkeypatch.delitem(sys.modules, loaded)
        importlib.invalidate_caches()
        return site

    return install


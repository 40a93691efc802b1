"""Benchmark the plugin host: ``hermes-core plugins`` as a whole process, and a warm build.

Method: a fresh venv gets hermes-core (a regular, non-editable install) and 20 third-party
plugin distributions (8 engines, 6 memory providers, 6 general plugins, each a real
``.dist-info`` with entry points). Then:

* ``hermes-core plugins`` is run as a whole process N times (after 3 warm-ups), without
  and with a config.yaml that selects a third-party engine and provider (so their code is
  imported) and disables one plugin; we report the median and p95 wall time, next to
  ``python -c pass`` in the same venv;
* inside that venv, ``build_host()`` with the default plugins (and the 6 general
  plugins registered) is timed 300 times after warm-up; we report the median.

Usage: python benchmarks/bench_plugins.py [--runs 30] [--venv DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENGINE = """
from hermes_core import ContextEngine


class Engine(ContextEngine):
    @property
    def name(self):
        return "{name}"

    def update_from_response(self, usage):
        pass

    def should_compress(self, prompt_tokens=None):
        return False

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):
        return messages
"""

PROVIDER = """
from hermes_core import MemoryProvider


class Provider(MemoryProvider):
    @property
    def name(self):
        return "{name}"

    def is_available(self):
        return True, ""

    def initialize(self, session_id):
        pass
"""

GENERAL = """
from hermes_core import hookimpl


@hookimpl
def hermes_compaction_finished(report):
    pass
"""

CONFIG = """\
context:
  engine: benchengine3
memory:
  provider: benchmemory2
plugins:
  disabled: [benchplugin5]
"""

WARM_BUILD = """
import json, statistics, tempfile, time, pathlib
from hermes_core import build_host, HermesConfig
home = pathlib.Path(tempfile.mkdtemp())
cfg = HermesConfig()
for _ in range(20):
    build_host(cfg, home=home).close()
times = []
for _ in range(300):
    t = time.perf_counter(); host = build_host(cfg, home=home); times.append(time.perf_counter() - t); host.close()
print(json.dumps({"median_ms": statistics.median(times) * 1000, "p95_ms": sorted(times)[284] * 1000,
                  "general_plugins": len([i for i in host.plugin_infos() if i.kind == "plugin"])}))
"""


def make_venv(venv: Path) -> Path:
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(ROOT)], check=True)
    site = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return Path(site)


def install_plugins(site: Path) -> int:
    from hermes_core.testing.distributions import write_distribution

    count = 0
    for kind, group, source, n in (
        ("engine", "hermes.context_engines", ENGINE, 8),
        ("memory", "hermes.memory_providers", PROVIDER, 6),
        ("plugin", "hermes.plugins", GENERAL, 6),
    ):
        for i in range(n):
            name = f"bench{kind}{i}"
            target = f"{name}_mod" + (":Engine" if kind == "engine" else ":Provider" if kind == "memory" else "")
            write_distribution(
                site,
                f"hermes-{kind}-{name}",
                "1.0",
                {group: {name: target}},
                {f"{name}_mod.py": source.replace("{name}", name)},
            )
            count += 1
    return count


def timed_runs(cmd: list[str], runs: int, env: dict[str, str]) -> list[float]:
    for _ in range(3):
        subprocess.run(cmd, check=True, capture_output=True, env=env)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - t)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--venv", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    venv = args.venv or Path(tempfile.mkdtemp()) / "venv"
    site = make_venv(venv)
    installed = install_plugins(site)
    home = Path(tempfile.mkdtemp())
    env = {"HERMES_HOME": str(home), "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
    plugins = timed_runs([str(venv / "bin" / "hermes-core"), "plugins"], args.runs, env)
    configured_home = Path(tempfile.mkdtemp())
    (configured_home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    configured = timed_runs([str(venv / "bin" / "hermes-core"), "plugins"], args.runs,
                            {**env, "HERMES_HOME": str(configured_home)})
    bare = timed_runs([str(venv / "bin" / "python"), "-c", "pass"], args.runs, env)
    listed = subprocess.run(
        [str(venv / "bin" / "hermes-core"), "plugins", "--json", "--all"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    warm = json.loads(
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", WARM_BUILD], check=True, capture_output=True, text=True, env=env
        ).stdout
    )
    result = {
        "third_party_plugins_installed": installed,
        "plugins_listed": len(json.loads(listed)["plugins"]),
        "plugins_cmd_median_ms": statistics.median(plugins) * 1000,
        "plugins_cmd_p95_ms": sorted(plugins)[int(0.95 * (len(plugins) - 1))] * 1000,
        "plugins_cmd_with_config_median_ms": statistics.median(configured) * 1000,
        "python_startup_median_ms": statistics.median(bare) * 1000,
        "build_host_warm_median_ms": warm["median_ms"],
        "build_host_warm_p95_ms": warm["p95_ms"],
        "runs": args.runs,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        print(f"{key:34} {value:.2f}" if isinstance(value, float) else f"{key:34} {value}")


if __name__ == "__main__":
    main()

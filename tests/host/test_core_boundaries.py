"""The core stays small: cheap to import, and it never imports a plugin module."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "hermes_core"
PLUGIN_PACKAGES = {
    "hermes_compressor",
    "hermes_memory_builtin",
    "hermes_prompt",
    "hermes_summarizers",
    "hermes_context_lcm",
    "hermes_memory_honcho",
}


def test_core_never_imports_a_plugin_module():
    offenders = []
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in PLUGIN_PACKAGES]
    assert offenders == []


def test_importing_hermes_core_has_no_side_effects_and_is_cheap():
    code = (
        "import sys, hermes_core; "
        "heavy = [m for m in ('pydantic', 'pluggy', 'httpx', 'yaml') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    assert out.stderr == ""


def test_listing_plugins_does_not_load_pydantic(hermes_home):
    code = (
        "import sys; from hermes_core.cli import main; main(['plugins', '--json']); "
        "sys.stderr.write(str('pydantic' in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.endswith("False")

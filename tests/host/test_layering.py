"""Which subpackage of hermes_core may import which (CONTRIBUTING.md, "Layering"), and the public API
that plugins/ and contrib/ are held to. Imports under ``if TYPE_CHECKING:`` are typing only and free."""

from __future__ import annotations

import ast
from pathlib import Path

import hermes_core

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "hermes_core"

# layer -> the layers it may import (besides itself). Lower layers never import upper ones.
ALLOWED: dict[str, set[str]] = {
    "text": set(),
    "guard": set(),
    "records": set(),
    "hookspecs": {"records"},
    "config": {"text", "records"},
    "engine": {"text", "records", "config", "guard", "hookspecs", "plugin.context"},
    "memory": {"text", "records", "config", "guard", "hookspecs", "plugin.context"},
    "plugin": {"text", "records", "config", "guard", "hookspecs", "engine", "memory"},
    "session": {"text", "records", "config", "guard", "hookspecs", "engine", "memory", "plugin"},
    "apps": {"text", "records", "config", "guard", "hookspecs", "engine", "memory", "plugin", "session"},
    "cli": {"text", "records", "config", "guard", "hookspecs", "engine", "memory", "plugin", "session", "apps"},
    "testing": {"text", "records", "config", "guard", "hookspecs", "engine", "memory", "plugin", "session", "apps"},
}

#: What plugins/ and contrib/ packages may import: the names in ``hermes_core.__all__`` (from
#: ``hermes_core`` itself) and these documented helper modules.
PUBLIC_MODULES = ("hermes_core.hookspecs", "hermes_core.records", "hermes_core.text", "hermes_core.testing",
                  "hermes_core.engine.summarizer", "hermes_core.memory.fencing")


def runtime_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """``(line, module, names)`` of every import outside ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            test = getattr(child, "test", None)
            if isinstance(child, ast.If) and getattr(test, "id", getattr(test, "attr", "")) == "TYPE_CHECKING":
                for sub in child.orelse:
                    visit(sub)
                continue
            if isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.append((child.lineno, child.module, [a.name for a in child.names]))
            elif isinstance(child, ast.Import):
                found.extend((child.lineno, a.name, []) for a in child.names)
            visit(child)

    visit(tree)
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "hermes_core" or len(parts) == 1:
        return None
    if parts[1] == "plugin" and parts[2:3] == ["context"]:
        return "plugin.context"
    return parts[1].removesuffix(".py")


def test_each_subpackage_imports_only_the_layers_below_it():
    problems = []
    for path in sorted(CORE.rglob("*.py")):
        rel = path.relative_to(CORE)
        own = rel.parts[0].removesuffix(".py")
        if own in ("__init__", "__main__"):
            continue
        allowed = ALLOWED[own] | {own}
        for line, module, _names in runtime_imports(path):
            target = layer_of(module)
            if target is None or target in allowed or (target == "plugin.context" and "plugin" in allowed):
                continue
            problems.append(f"hermes_core/{rel}:{line} ({own}) imports {module} ({target})")
    assert not problems, "\n".join(problems)


def test_every_subpackage_has_a_layer():
    packages = {p.name.removesuffix(".py") for p in CORE.iterdir() if not p.name.startswith("_")}
    packages.discard("py.typed")
    assert packages - {"__pycache__"} == set(ALLOWED)


def shipped_sources() -> list[Path]:
    """The code plugins/ and contrib/ ship (tests and benchmarks may reach further)."""
    paths = []
    for base in (ROOT / "plugins", *(ROOT / "contrib").glob("*")):
        for path in base.rglob("*.py"):
            rel = path.relative_to(base).parts
            if not {"tests", "benchmarks"} & set(rel):
                paths.append(path)
    return paths


def test_plugins_and_contrib_use_only_the_public_api():
    public = set(hermes_core.__all__)
    problems = []
    for path in shipped_sources():
        for line, module, names in runtime_imports(path):
            if not module.startswith("hermes_core"):
                continue
            if module == "hermes_core" and set(names) <= public:
                continue
            if module.startswith(PUBLIC_MODULES):
                continue
            problems.append(f"{path.relative_to(ROOT)}:{line}: {module} ({', '.join(names)})")
    assert not problems, "import these from hermes_core (its __all__) instead:\n" + "\n".join(problems)

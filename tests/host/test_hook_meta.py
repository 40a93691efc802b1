"""Meta-tests: every hookspec is called by the core, tested, documented, bounded as documented,
and ``firstresult`` only where one answer is meant. Adding a lifecycle method takes two edits."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from hermes_core import hookspecs
from hermes_core.guard.bounds import DEFAULT_BOUNDS, DEFAULT_TIMEOUT
from hermes_core.plugin.bridge import ENGINE_PREFIX, MEMORY_PREFIX, EngineBridge, ProviderBridge, spec_names

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted(n for n in vars(hookspecs) if n.startswith("hermes_") and callable(getattr(hookspecs, n)))
CORE_SOURCE = "\n".join(
    p.read_text(encoding="utf-8") for p in (ROOT / "hermes_core").rglob("*.py") if p.name != "hookspecs.py"
)
TEST_SOURCE = "\n".join(
    p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py") if p.name != Path(__file__).name
)
GUIDE = (ROOT / "PLUGIN_GUIDE.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("hook", SPECS)
def test_every_hook_is_called_through_pluggy_by_the_core(hook):
    called = re.search(rf"hook\.{hook}\b", CORE_SOURCE) or re.search(rf"subset_hook_caller\(\s*\"{hook}\"", CORE_SOURCE)
    assert called, f"{hook} is declared but the core never calls it: call it or delete it"


@pytest.mark.parametrize("hook", SPECS)
def test_every_hook_is_named_in_a_test(hook):
    short = hook.removeprefix("hermes_engine_").removeprefix("hermes_memory_")
    assert hook in TEST_SOURCE or f"def {short}(" in TEST_SOURCE, f"no test exercises {hook}"


@pytest.mark.parametrize("hook", SPECS)
def test_every_hook_is_in_the_plugin_guide(hook):
    assert f"`{hook}" in GUIDE, f"PLUGIN_GUIDE.md does not document {hook}"


@pytest.mark.parametrize("hook", SPECS)
def test_firstresult_only_where_one_answer_is_meant(hook):
    spec = getattr(hookspecs, hook)
    firstresult = getattr(spec, f"{hookspecs.PROJECT}_spec", {}).get("firstresult", False)
    void = inspect.signature(spec).return_annotation in (None, "None")
    assert not (firstresult and void), f"{hook} returns nothing, so firstresult means nothing"


@pytest.mark.parametrize(("prefix", "bridge"), [(ENGINE_PREFIX, EngineBridge), (MEMORY_PREFIX, ProviderBridge)])
def test_the_bridges_are_generated_from_the_hookspecs(prefix, bridge):
    """A lifecycle method is its base-class method plus its hookspec: the bridge needs no edit."""
    assert {n for n in dir(bridge) if n.startswith(prefix)} == set(spec_names(prefix))
    for hook in spec_names(prefix):
        impl = getattr(bridge, hook)
        assert getattr(impl, f"{hookspecs.PROJECT}_impl", None) is not None, hook
        spec_args = list(inspect.signature(getattr(hookspecs, hook)).parameters)
        assert list(inspect.signature(impl).parameters)[1:] == spec_args, hook


def test_the_guide_lists_the_default_time_bounds():
    section = GUIDE[GUIDE.index("### Time bounds") :]
    section = section[: section.index("\n## ")]
    table = dict(re.findall(r"^\| `([a-z_]+)` \| ([0-9.]+) \|", section, re.M))
    assert {k: float(v) for k, v in table.items()} == {**DEFAULT_BOUNDS, "default": DEFAULT_TIMEOUT}

"""Source code of the general plugins the contract tests install as real distributions.

Each plugin appends what it saw to ``hermes_calls.CALLS`` (a module of the first
distribution), so a test reads the real call order across distributions.
"""

CALLS = """
CALLS = []
"""

HOOKS = {
    "host": ("hermes_system_prompt_sections", "ctx"),
    "memory": ("hermes_memory_on_turn_start", "turn_number, message"),
    "engine": ("hermes_engine_update_from_response", "usage"),
}


def ordered_plugin(label: str, opts: str) -> str:
    """A plugin that records ``label`` on each of the three hooks; ``opts`` are hookimpl options."""
    parts = ["from hermes_core import hookimpl", "import hermes_calls", ""]
    for _group, (hook, args) in HOOKS.items():
        parts.append(f"@hookimpl({opts})\ndef {hook}({args}):\n    hermes_calls.CALLS.append(({hook!r}, {label!r}))\n")
    return "\n".join(parts)


def wrapping_plugin(style: str) -> str:
    """A wrapper on the three hooks, new style (``wrapper=True``) or old (``hookwrapper=True``)."""
    parts = ["from hermes_core import hookimpl", "import hermes_calls", ""]
    for _group, (hook, args) in HOOKS.items():
        if style == "new":
            body = (
                f"    hermes_calls.CALLS.append(({hook!r}, 'new-before'))\n"
                "    result = yield\n"
                f"    hermes_calls.CALLS.append(({hook!r}, 'new-after'))\n"
                "    return result\n"
            )
            parts.append(f"@hookimpl(wrapper=True)\ndef {hook}({args}):\n{body}")
        else:
            body = (
                f"    hermes_calls.CALLS.append(({hook!r}, 'old-before'))\n"
                "    outcome = yield\n"
                f"    hermes_calls.CALLS.append(({hook!r}, 'old-after'))\n"
            )
            parts.append(f"@hookimpl(hookwrapper=True)\ndef {hook}({args}):\n{body}")
    return "\n".join(parts)


# A general plugin that tries every way of contributing memory: recall, tools, a prompt
# block, a wrapper replacing the recall, and a provider class of its own.
SNEAKY = '''
from hermes_core import MemoryProvider, hookimpl


class Sneaky(MemoryProvider):
    @property
    def name(self):
        return "sneaky"

    def is_available(self):
        return True, ""

    def initialize(self, session_id):
        pass

    def prefetch(self, query):
        return "SNEAKY provider recall"


@hookimpl
def hermes_register_memory_providers():
    return [("sneaky", Sneaky)]


@hookimpl
def hermes_memory_prefetch(query):
    return "SNEAKY recall"


@hookimpl
def hermes_memory_system_prompt_block():
    return "SNEAKY block"


@hookimpl
def hermes_memory_get_tool_schemas():
    return [{"name": "sneaky_tool", "description": "x", "parameters": {"type": "object", "properties": {}}}]


@hookimpl
def hermes_memory_handle_tool_call(name, args):
    return '{"sneaky": true}'


@hookimpl
def hermes_engine_should_compress(prompt_tokens):
    return True
'''

SNEAKY_WRAPPER = '''
from hermes_core import hookimpl


@hookimpl(wrapper=True)
def hermes_memory_prefetch(query):
    results = yield
    return [*results, "SNEAKY wrapped recall"]


@hookimpl(hookwrapper=True)
def hermes_memory_system_prompt_block():
    outcome = yield
    outcome.force_result(["SNEAKY forced block"])
'''

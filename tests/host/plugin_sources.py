"""Source code of small third-party plugins, installed as real distributions by tests."""

ENGINE = '''
from hermes_core import ContextEngine


class KeepLastEngine(ContextEngine):
    """Keeps the system message and the last two messages: a complete plugin, no decorators."""

    @property
    def name(self):
        return "keeplast"

    def update_from_response(self, usage):
        self.last_prompt_tokens = usage.get("prompt_tokens", 0)

    def should_compress(self, prompt_tokens=None):
        return True

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):
        self.compression_count += 1
        head = [m for m in messages[:1] if m.get("role") == "system"]
        return head + [dict(m) for m in messages[-1:]]
'''

PROVIDER = """
from hermes_core import MemoryProvider


class NotesProvider(MemoryProvider):
    @property
    def name(self):
        return "{name}"

    def is_available(self):
        return True, ""

    def initialize(self, session_id):
        self.session_id = session_id

    def prefetch(self, query):
        return "{name} recalls: " + query
"""

UNAVAILABLE = """
from hermes_core import MemoryProvider


class Offline(MemoryProvider):
    @property
    def name(self):
        return "offline"

    def is_available(self):
        return False, "OFFLINE_API_KEY is not set"

    def initialize(self, session_id):
        raise AssertionError("must not be initialized")
"""

BROKEN_IMPORT = """
raise ImportError("libfoo.so: cannot open shared object file")
"""

MARKS_IMPORT = """
import os, pathlib
pathlib.Path(os.environ["HERMES_TEST_MARKER"]).write_text("imported")
from hermes_core import hookimpl


@hookimpl
def hermes_compaction_finished(report):
    pass
"""

OBSERVER = """
from hermes_core import hookimpl

SEEN = []


@hookimpl
def hermes_compaction_finished(report):
    SEEN.append(report)
"""

MISSPELLED_HOOK = """
from hermes_core import hookimpl


@hookimpl
def hermes_compaction_finishd(report):
    pass
"""

"""Import the template from its source tree when it is not installed."""

import sys
from pathlib import Path

try:
    import hermes_memory_example  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

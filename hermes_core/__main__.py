"""``python -m hermes_core`` runs the CLI."""

import sys

from hermes_core.cli import main

sys.exit(main())

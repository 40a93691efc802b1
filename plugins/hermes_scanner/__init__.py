"""The built-in injection detector: hermes-core's rules, registered like any third-party detector.

It implements :func:`hermes_core.hookspecs.hermes_scan_text` with
:func:`hermes_core.text.scanning.scan_text` (phrase rules, intent rules, invisible
characters, decoded payloads). Disabling this plugin (``plugins.disabled: [scanner]``)
leaves only the detectors other plugins register.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_core import hookimpl

if TYPE_CHECKING:
    from hermes_core.text.scanning import Finding


@hookimpl
def hermes_scan_text(text: str, source: str) -> list[Finding]:
    from hermes_core.text.scanning import scan_text

    return scan_text(text)

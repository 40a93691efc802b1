"""The summarizer registry: every ``hermes_register_summarizers`` answer, and the selected one."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_core.plugin.selection import SelectionError

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig
    from hermes_core.engine.summarizer import Summarizer


class SummarizerTable:
    """Built on first use: engines that never summarize never load a backend."""

    def __init__(self, hook: Any, config: HermesConfig, warn: Callable[[str], None]) -> None:
        self._hook = hook
        self._config = config
        self._warn = warn
        self._table: dict[str, Summarizer] | None = None
        self._selected: Summarizer | None = None

    @property
    def table(self) -> dict[str, Summarizer]:
        if self._table is None:
            table: dict[str, Summarizer] = {}
            answers = self._hook.hermes_register_summarizers(config=self._config)
            for answer in reversed(answers):  # registration order: the built-ins claim their names first
                for name, summarizer in answer or ():
                    if name in table:
                        self._warn(
                            f"summarizer '{name}' is registered twice ({_where(table[name])} and "
                            f"{_where(summarizer)}); kept the first"
                        )
                    else:
                        table[name] = summarizer
            self._table = table
        return self._table

    @property
    def selected(self) -> Summarizer:
        """The backend ``auxiliary.summarizer`` names (``auto``: ``llm`` when a model is set)."""
        if self._selected is None:
            aux = self._config.auxiliary
            wanted = aux.summarizer
            if wanted == "auto":
                wanted = "llm" if aux.base_url and aux.model else "deterministic"
            if wanted not in self.table:
                raise SelectionError(f"unknown summarizer '{wanted}'. Available: {', '.join(sorted(self.table))}")
            self._selected = self.table[wanted]
        return self._selected

    @property
    def fallback(self) -> Summarizer | None:
        """The offline ``deterministic`` summarizer, if a plugin registered one."""
        return self.table.get("deterministic")


def _where(obj: object) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"

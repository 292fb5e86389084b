"""Modules loaded on their first use by the pages that need them (the map, triage): the
window's start, whose first screen is the list, never imports numpy (~70 ms CPU).

A page module writes `if TYPE_CHECKING: import numpy as np` / `else: from ..widgets.lazy
import numpy as np`: mypy sees numpy itself, and `np.zeros(…)` imports it at that first call."""

from __future__ import annotations

import importlib


class LazyModule:
    """Stands for the module `name`, imported when one of its attributes is first asked for."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> object:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


numpy = LazyModule("numpy")

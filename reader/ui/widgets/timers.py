"""A single-shot timer, the pattern behind every debounce in the window (save a note after
typing stops, re-rank after a decision, flush reads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer


def single_shot(parent: QObject, ms: int, slot: Callable[[], Any]) -> QTimer:
    """A stopped single-shot timer of `ms` calling `slot`; `start()` (re)arms it."""
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(ms)
    timer.timeout.connect(slot)
    return timer

"""Reading pace from the last few minutes, and the progress line built from it."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

PACE_WINDOW_S = 300.0  # only the last five minutes count: a pause or a slow start is forgotten
MIN_STEPS = 3  # fewer papers than this in the window: no estimate yet


class Pace:
    """Timestamps of the papers the user moved past, kept for PACE_WINDOW_S."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, window_s: float = PACE_WINDOW_S) -> None:
        self._clock = clock
        self._window = window_s
        self._steps: deque[float] = deque()

    def step(self) -> None:
        """The user moved on to a new paper."""
        now = self._clock()
        self._steps.append(now)
        self._trim(now)

    def _trim(self, now: float) -> None:
        while self._steps and now - self._steps[0] > self._window:
            self._steps.popleft()

    def seconds_per_paper(self) -> float | None:
        """Average time per paper over the recent steps (None until there are enough)."""
        now = self._clock()
        self._trim(now)
        if len(self._steps) < MIN_STEPS:
            return None
        # From the first recent step to now: a user reading the current paper for a while slows the pace.
        return max(now - self._steps[0], 1e-3) / len(self._steps)

    def seconds_left(self, papers_left: int) -> float | None:
        per = self.seconds_per_paper()
        return None if per is None else per * max(papers_left, 0)


def duration_text(seconds: float) -> str:
    """"~1 h 20 min", "~12 min", "<1 min"."""
    minutes = int(round(seconds / 60))
    if minutes < 1:
        return "<1 min"
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"~{hours} h {minutes} min" if minutes else f"~{hours} h"
    return f"~{minutes} min"


def progress_text(position: int, total: int, starred: int, seconds_left: float | None) -> str:
    """"412 / 3,300 · 37 starred · ~1 h 20 min left at your pace" (position counts from 1)."""
    text = f"{position:,} / {total:,} · {starred:,} starred"
    if seconds_left is not None and position < total:
        text += f" · {duration_text(seconds_left)} left at your pace"
    return text

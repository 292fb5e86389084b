"""Reading pace from the user's recent decisions, and the progress line built from it.

The pace is the median time between the last RECENT moves to a new paper, pauses (a gap over
PAUSE_S) left out: one slow paper, a coffee break or a burst of J presses does not swing it.
The old estimate (the last five minutes' average, from the first step to now) jumped at 50k
from 2 h 12 min to 22 h 13 min after one paper; the time left is also rounded coarser the
longer it is, so it reads steady."""

from __future__ import annotations

import statistics
import time
from collections import deque
from collections.abc import Callable

RECENT = 30  # decisions the median is taken over
PAUSE_S = 180.0  # a gap longer than this is a pause, not reading
MIN_STEPS = 3  # fewer timed decisions than this: no estimate yet


class Pace:
    """The gaps between the user's moves to a new paper (the last RECENT of them, pauses left out)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, recent: int = RECENT,
                 pause_s: float = PAUSE_S) -> None:
        self._clock = clock
        self._pause = pause_s
        self._gaps: deque[float] = deque(maxlen=recent)
        self._last: float | None = None

    def step(self) -> None:
        """The user moved on to a new paper."""
        now = self._clock()
        if self._last is not None:
            gap = now - self._last
            if 0 <= gap <= self._pause:
                self._gaps.append(gap)
        self._last = now

    def seconds_per_paper(self) -> float | None:
        """The median gap of the recent decisions (None until there are enough)."""
        if len(self._gaps) < MIN_STEPS:
            return None
        return max(statistics.median(self._gaps), 1e-3)

    def seconds_left(self, papers_left: int) -> float | None:
        per = self.seconds_per_paper()
        return None if per is None else per * max(papers_left, 0)


def rounded_minutes(seconds: float) -> int:
    """Minutes, coarser as they grow: to 1 min below 10 min, 5 below an hour, 10 below ten hours,
    then whole hours."""
    minutes = seconds / 60
    step = 1 if minutes < 10 else 5 if minutes < 60 else 10 if minutes < 600 else 60
    return int(round(minutes / step)) * step


def duration_text(seconds: float) -> str:
    """"~1 h 20 min", "~12 min", "<1 min"."""
    minutes = rounded_minutes(seconds)
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

"""What triage's jobs hand back to the GUI thread (typed, frozen: nothing crosses threads as a dict)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from reader.triage.cards import Card
from reader.triage.queue import TriageQueue

if TYPE_CHECKING:  # numpy: loaded with triage's learning, not at the window's start
    from reader.triage.interests import Decisions


@dataclass(frozen=True)
class Fetched:
    """A fetch on the writer: cards, how many of the queue are starred, the seeds of "like
    starred", the legend's tags, every tag's name and the decisions stored so far."""

    cards: dict[str, Card]
    starred: int
    seeds: list[str]
    tags: list[str]
    names: list[str]
    decisions: Decisions


@dataclass(frozen=True)
class Opened:
    """A session's start: its queue, the list and search terms it came from, and the first fetch."""

    queue: TriageQueue
    listed: list[str]
    terms: list[str]
    fetched: Fetched
    decided: int = 0  # the list's papers already decided (left out of the queue)

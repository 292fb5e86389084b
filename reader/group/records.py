"""What the reading group's sync reports and shows: its errors, reports, members' status and each
paper's marks (the engine's results, also what the CLI and the window print)."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from ..errors import ReaderError
from ..events import ChangeBus


class GroupError(ReaderError):
    """A group command that can't be done (not in a group, a taken name, a missing folder)."""


class GroupLibrary(Protocol):
    """What the group needs of a library (reader.library.Library is one)."""

    changes: ChangeBus

    def read_connection(self) -> sqlite3.Connection: ...

    def write_transaction(self) -> AbstractContextManager[tuple[sqlite3.Connection, int]]: ...


@dataclass
class GroupSyncReport:
    changed: bool = False  # the merged state or this library's files changed
    read: int = 0  # records read from the members' files
    written: int = 0  # records this library wrote
    problems: list[str] = field(default_factory=list)
    papers: set[str] = field(default_factory=set)  # local papers whose group state changed

    def summary(self) -> str:
        if not self.changed:
            return "nothing new"
        return f"read {self.read} record{'s' * (self.read != 1)}, wrote {self.written}"


class Left(NamedTuple):
    """What leaving did: the member's folder (it stays), and why it holds no mark of leaving
    ('' when it does: the others give that member no share of the work)."""

    folder: str
    problem: str


@dataclass
class MemberInfo:
    name: str
    me: bool
    library: str
    seen_at: str | None
    problem: str
    counts: dict[str, int]
    left_at: str | None = None  # when it left the group (its decisions kept, no share of the work)


@dataclass
class GroupStatus:
    folder: str
    name: str
    share_notes: bool
    tags: str
    best_first_group: bool
    joined_at: str
    last_sync_at: str | None
    members: list[MemberInfo]

    def tags_shared(self) -> str:
        """The tags setting in words: which of this member's tags the others see."""
        return "all tags" if self.tags == "all" else "only tags named group/…"

    def as_json(self) -> dict[str, Any]:
        return {"folder": self.folder, "name": self.name, "share_notes": self.share_notes, "tags": self.tags,
                "tags_shared": self.tags_shared(),
                "best_first_group": self.best_first_group, "joined_at": self.joined_at,
                "last_sync_at": self.last_sync_at,
                "members": [{"name": m.name, "me": m.me, "library": m.library, "seen_at": m.seen_at,
                             "problem": m.problem or None, **m.counts, "left": m.left_at is not None,
                             "left_at": m.left_at} for m in self.members]}


@dataclass
class Mark:
    """One member's merged decisions on one paper."""

    member: str
    star: bool
    skip: bool
    read: bool
    tags: list[str]
    note: str


def initials(name: str) -> str:
    """"Ada Lovelace" -> "AL", "bob" -> "B", "eve-2" -> "E2"."""
    parts = [p for p in name.replace("_", " ").replace("-", " ").replace(".", " ").split() if p]
    if len(parts) >= 2:
        return (parts[0][0] + parts[1][0]).upper()
    return name[:1].upper() if name else "?"

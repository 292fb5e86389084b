"""Resume state: which list the queue came from, its order, the seen papers and the position."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from reader.triage.queue import LISTED, ORDERS

STATE_VERSION = 1


@dataclass(frozen=True)
class QueueSpec:
    """The list a queue was made from: a sidebar view, a search, and the table's sort."""

    view_kind: str = "all"
    view_value: str | None = None
    query: str = ""
    sort: str = "added"
    descending: bool = True
    ids: tuple[str, ...] = ()  # chosen papers (a map selection): the queue is exactly these

    def __post_init__(self) -> None:
        object.__setattr__(self, "ids", tuple(self.ids))  # a list when read back from JSON

    def describe(self) -> str:
        names = {"all": "All papers", "unread": "Unread", "starred": "Starred", "notes": "With notes"}
        where = names.get(self.view_kind) or f"{self.view_kind.capitalize()}: {self.view_value or ''}"
        if self.ids:
            where = f"{where} · {len(self.ids):,} chosen on the map"
        return f"{where} · search “{self.query}”" if self.query else where


@dataclass
class ResumeState:
    """What is stored so quitting and starting again returns to the same paper of the same queue."""

    spec: QueueSpec
    order: str = LISTED
    seen_ids: list[str] = field(default_factory=list)  # the frozen prefix, in queue order
    position: int = 0
    finished: bool = False
    open: bool = False  # triage was on screen at quit: show it again at start

    def to_json(self) -> str:
        # Shallow (the same JSON as asdict's): asdict deep-copied each seen id, ~5 ms per 2,000 on
        # the GUI thread each time triage saves its state (a second after the keys pause).
        data: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        data["spec"] = {f.name: getattr(self.spec, f.name) for f in fields(self.spec)}
        data["version"] = STATE_VERSION
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: Any) -> ResumeState | None:
        """None for anything that is not a state this version wrote (it is then just ignored)."""
        try:
            data = json.loads(str(text))
            if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
                return None
            spec = QueueSpec(**data["spec"])
            seen = [str(i) for i in data.get("seen_ids", [])]
            order = data.get("order", LISTED)
            return cls(spec=spec, order=order if order in ORDERS else LISTED, seen_ids=seen,
                       position=int(data.get("position", 0)), finished=bool(data.get("finished", False)),
                       open=bool(data.get("open", False)))
        except (ValueError, TypeError, KeyError):
            return None


def resume_ids(seen_ids: Sequence[str], listed: Sequence[str], existing: Collection[str],
               position: int) -> tuple[list[str], int, int]:
    """(queue ids, position, seen count) for a resumed queue.

    The seen papers that still exist keep their order in front; the list's other papers follow.
    The position stays on the same paper, or the next one still there when it was deleted."""
    current = seen_ids[position] if 0 <= position < len(seen_ids) else None
    front = [pid for pid in dict.fromkeys(seen_ids) if pid in existing]
    in_front = set(front)
    ids = front + [pid for pid in dict.fromkeys(listed) if pid not in in_front]
    if current in in_front:
        pos = front.index(current)
    else:
        before = sum(1 for pid in seen_ids[:position] if pid in existing)
        pos = min(before, max(len(ids) - 1, 0))
    return ids, pos, len(front)

"""What a vault sync did (or, dry, would do): JSON-serialisable, with a readable summary."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from reader.plural import count_noun


# The report's entries: typed records that stay plain dicts, so the report is JSON as it is.
class Written(TypedDict):
    path: str
    id: str
    new: bool  # a file made for a paper that had none


class TakenFromVault(TypedDict):
    path: str
    id: str
    parts: list[str]  # what the vault changed: title, note, tags, star, read


class Conflict(TypedDict):
    path: str
    id: str


class Damaged(TypedDict):
    path: str
    reason: str


class Trashed(TypedDict):
    id: str
    path: str
    to: str
    reason: str  # "deleted in Reader" or "no longer in the vault's query"


class Kept(TypedDict):
    path: str
    id: str
    reason: str  # why a file outside the vault's query stays (the user edited it)


class Recreated(TypedDict):
    id: str
    path: str


class Skipped(TypedDict):
    path: str
    id: str | None  # None: a transient failure before the file's id was read
    reason: str


@dataclass
class SyncReport:
    vault: str
    query: str
    dry_run: bool = False
    last_sync_at: str | None = None
    written: list[Written] = field(default_factory=list)
    taken_from_vault: list[TakenFromVault] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)  # unresolved notes
    damaged: list[Damaged] = field(default_factory=list)
    trashed: list[Trashed] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)  # outside the query, edited in the vault: left in place
    recreated: list[Recreated] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    unchanged: int = 0
    files: int = 0  # Reader files in the vault after the sync
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def ok(self) -> bool:
        return not self.damaged and not self.conflicts

    def summary(self) -> str:
        verb = "would write" if self.dry_run else "wrote"
        new = sum(1 for w in self.written if w.get("new"))
        parts = [f"{verb} {count_noun(len(self.written), 'file', grouped=False)} ({new} new)",
                 f"{count_noun(len(self.taken_from_vault), 'paper', grouped=False)} updated from the vault",
                 f"{count_noun(len(self.conflicts), 'conflict', grouped=False)}", f"{len(self.damaged)} damaged",
                 f"{len(self.trashed)} to .trash", f"{len(self.recreated)} recreated",
                 f"{self.unchanged} unchanged"]
        if self.kept:
            parts.append(f"{len(self.kept)} kept outside the query")
        return f"{self.vault}: " + ", ".join(parts)

    def describe(self) -> str:
        lines = [self.summary()]
        for t in self.taken_from_vault:
            lines.append(f"  from vault: {t['path']} ({', '.join(t['parts'])})")
        for r in self.recreated:
            lines.append(f"  recreated (deleted in the vault, still in the query): {r['path']}")
        for moved in self.trashed:
            lines.append(f"  {moved.get('reason', 'deleted in Reader')}, file moved: {moved['path']} -> {moved['to']}")
        for k in self.kept:
            lines.append(f"  kept (edited in the vault, no longer in its query): {k['path']}")
        for c in self.conflicts:
            lines.append(f"  conflict (note edited on both sides; remove the ⚠️ lines when merged): {c['path']}")
        for d in self.damaged:
            lines.append(f"  damaged, left alone: {d['path']}: {d['reason']}")
        for s in self.skipped:
            lines.append(f"  skipped: {s['path']}: {s['reason']}")
        return "\n".join(lines)

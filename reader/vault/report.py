"""What a vault sync did (or, dry, would do): JSON-serialisable, with a readable summary."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from reader.plural import count_noun


@dataclass
class SyncReport:
    vault: str
    query: str
    dry_run: bool = False
    last_sync_at: str | None = None
    written: list[dict[str, Any]] = field(default_factory=list)  # {path, id, new}
    taken_from_vault: list[dict[str, Any]] = field(default_factory=list)  # {path, id, parts}
    conflicts: list[dict[str, Any]] = field(default_factory=list)  # {path, id}: unresolved notes
    damaged: list[dict[str, Any]] = field(default_factory=list)  # {path, reason}
    trashed: list[dict[str, Any]] = field(default_factory=list)  # {id, path, to}
    recreated: list[dict[str, Any]] = field(default_factory=list)  # {id, path}
    skipped: list[dict[str, Any]] = field(default_factory=list)  # {path, id, reason}
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
        return f"{self.vault}: " + ", ".join(parts)

    def describe(self) -> str:
        lines = [self.summary()]
        for t in self.taken_from_vault:
            lines.append(f"  from vault: {t['path']} ({', '.join(t['parts'])})")
        for r in self.recreated:
            lines.append(f"  recreated (deleted in the vault, still in the query): {r['path']}")
        for t in self.trashed:
            lines.append(f"  paper deleted in Reader, file moved: {t['path']} -> {t['to']}")
        for c in self.conflicts:
            lines.append(f"  conflict (note edited on both sides; remove the ⚠️ lines when merged): {c['path']}")
        for d in self.damaged:
            lines.append(f"  damaged, left alone: {d['path']}: {d['reason']}")
        for s in self.skipped:
            lines.append(f"  skipped: {s['path']}: {s['reason']}")
        return "\n".join(lines)

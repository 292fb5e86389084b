"""One paper's part of a sync: read its file safely, merge three ways, and plan what to write where."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..store.vault_state import FileState
from . import document as doc
from . import files, journal
from .document import DamagedFile, VaultFile
from .encoding import UTF8, Encoding, decode, problem
from .journal import JournalEntry
from .merge import Base, merge
from .report import SyncReport
from .snapshot import PaperSnapshot

_MISSING = object()
_MARKER_REASON = "the note contains a line that looks like a Reader marker"


class Unusable(Exception):
    """A file the sync cannot use this time, with the one-line reason a report gives."""

    def __init__(self, reason: str, paper_id: str | None = None, *, claims: bool = False, transient: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.paper_id = paper_id
        self.claims = claims  # it looks like a Reader file even without a readable id
        self.transient = transient  # being saved right now: the next sync reads it again


def read_file(path: Path | str) -> tuple[files.Loaded, VaultFile | None]:
    """A vault file read safely and parsed (None: not a Reader file); Unusable when it cannot be used."""
    try:
        data, st = files.read_bytes(path)
    except files.Unreadable as exc:
        raise Unusable(exc.reason, transient="being saved" in exc.reason) from None
    except OSError as exc:
        raise Unusable(f"cannot read it ({exc.strerror or exc})") from None
    try:
        text, encoding = decode(data)
    except UnicodeDecodeError as exc:  # the id line is ASCII whatever the encoding around it
        raise Unusable(problem(exc), doc.sniff_id(data[:20000].decode("latin-1"))) from None
    loaded = files.Loaded(text, encoding, files.Stamp.of(st), files.digest(data))
    try:
        return loaded, doc.parse(text)
    except DamagedFile as exc:
        raise Unusable(exc.reason, exc.paper_id, claims=True) from None


@dataclass
class Plan:
    """What to do for one paper: the file to write (if any), Reader's changes, the new state."""

    paper_id: str
    state: FileState  # path/mtime/size are filled in once the file is written
    seen_seq: int
    snap: PaperSnapshot
    base: FileState | None  # the state this sync started from (a re-plan merges against it again)
    text: str | None = None
    entry: files.Entry | None = None
    loaded: files.Loaded | None = None  # the file as read: checked again before it is replaced
    new_title: str | None = None  # set for a file to create
    new_name: str | None = None  # its file name, chosen just before writing
    recreated: bool = False
    note: str = ""  # the note the file will hold
    reader_changes: dict[str, Any] = field(default_factory=dict)
    journal: JournalEntry | None = None  # kept in the vault while the file is written
    crashed: JournalEntry | None = None  # what an interrupted sync wrote into the file

    @property
    def path(self) -> Path | None:
        return self.entry.path if self.entry is not None else None

    @property
    def encoding(self) -> Encoding:
        return self.loaded.encoding if self.loaded is not None else UTF8

    def data(self) -> bytes:
        assert self.text is not None
        return self.encoding.encode(self.text)


def _when(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _reader_time(p: PaperSnapshot) -> datetime:
    try:
        ts = datetime.fromisoformat(p.updated_at)
    except ValueError:
        return datetime.fromtimestamp(0, UTC)
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


def _content(block: str) -> str:
    return block.replace("\r\n", "\n").strip("\n")


def _state(p: PaperSnapshot, parts: doc.Parts, *, path: str, seq: int, conflict: bool) -> FileState:
    owned = doc.owned_hash(p)
    return FileState(
        paper_id=p.id, path=path, mtime_ns=0, size=0, paper_seq=seq, reader_hash=doc.state_hash(owned, parts),
        title_hash=doc.digest(parts.title), note_hash=doc.digest(parts.note), tags=parts.tags,
        starred=parts.starred, read=parts.read, owned_hash=owned, conflict=conflict,
    )


def plan_new(p: PaperSnapshot, seq: int, base: FileState | None) -> Plan:
    parts = doc.reader_parts(p)
    return Plan(p.id, _state(p, parts, path="", seq=seq, conflict=False), seq, p, base,
                text=doc.new_file(p, parts), new_title=parts.title or "Untitled", recreated=base is not None,
                note=parts.note, journal=journal.entry(None, None, parts))


def _reader_changes(final: doc.Parts, reader: doc.Parts) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    if final.title != reader.title:
        changes["title"] = final.title
    if final.note != reader.note:
        changes["note"] = final.note
    if doc.tag_key(final.tags) != doc.tag_key(reader.tags):
        changes["tags"] = list(final.tags)
    if final.starred != reader.starred:
        changes["starred"] = final.starred
    if final.read != reader.read:
        changes["read"] = final.read
    return changes


def _file_edits(p: PaperSnapshot, vf: VaultFile, st: FileState | None, final: doc.Parts,
                vault: doc.Parts) -> tuple[dict[str, Any], dict[str, str]]:
    """The front matter keys and managed blocks the file needs to hold `final` and Reader's parts."""
    fm = vf.fm.values
    fm_updates: dict[str, Any] = {}
    if final.title != vault.title or "title" not in fm:
        fm_updates["title"] = final.title
    if doc.tag_key(final.tags) != doc.tag_key(vault.tags) or "tags" not in fm:
        fm_updates["tags"] = list(final.tags)
    for key in ("starred", "read"):
        if getattr(final, key) != getattr(vault, key) or not isinstance(fm.get(key), bool):
            fm_updates[key] = getattr(final, key)
    blocks: dict[str, str] = {}
    if final.note != vault.note:
        blocks["note"] = final.note
    owned = doc.owned_hash(p)
    owned_changed = st is None or st.owned_hash != owned
    if owned_changed or st is None or doc.digest(final.title) != st.title_hash:
        block = doc.paper_block(p, final.title)
        if _content(vf.block("paper")) != block:
            blocks["paper"] = block
    if owned_changed:
        block = doc.highlights_block(p)
        if _content(vf.block("highlights")) != block:
            blocks["highlights"] = block
        for key, value in doc.owned_values(p).items():
            if fm.get(key, _MISSING) != value:
                fm_updates[key] = value
    return fm_updates, blocks


def plan_existing(p: PaperSnapshot, entry: files.Entry, loaded: files.Loaded, vf: VaultFile,
                  st: FileState | None, seq: int, crashed: JournalEntry | None = None) -> Plan:
    """Merge a file with Reader; `crashed` is what an interrupted sync wrote into it (journal.py)."""
    reader = doc.reader_parts(p)
    stored = Base(st.title_hash, st.note_hash, st.tags, st.starred, st.read) if st else None
    fallback = doc.Parts(reader.title, "", stored.tags if stored else reader.tags,
                         stored.starred if stored else reader.starred, stored.read if stored else reader.read)
    in_file = vf.parts(fallback)
    base, vault = journal.recover(crashed, stored, in_file)
    vault_time = datetime.fromtimestamp(loaded.stamp.mtime_ns / 1e9, UTC)
    reader_time = _reader_time(p)
    merged = merge(base, vault, reader, vault_newer=vault_time > reader_time,
                   reader_when=_when(reader_time), vault_when=_when(vault_time))
    final = merged.parts
    fm_updates, blocks = _file_edits(p, vf, st, final, in_file)
    text = doc.rewrite(vf, fm_updates, blocks) if fm_updates or blocks else None
    return Plan(p.id, _state(p, final, path=entry.rel, seq=seq, conflict=merged.conflict), seq, p, st,
                text=text if text != vf.text else None, entry=entry, loaded=loaded,
                reader_changes=_reader_changes(final, reader), note=final.note,
                crashed=crashed,
                journal=crashed if crashed is not None and base is not stored
                else journal.entry(stored, vault, final, in_file if crashed is not None else None))


def _unusable(report: SyncReport, rel: str, pid: str, exc: Unusable) -> None:
    if exc.transient:
        report.skipped.append({"path": rel, "id": pid, "reason": exc.reason})
    else:
        report.damaged.append({"path": rel, "reason": exc.reason})


def plan_one(p: PaperSnapshot, e: files.Entry | None, parsed: tuple[files.Loaded, VaultFile] | None,
             st: FileState | None, seq: int, report: SyncReport, crashed: JournalEntry | None = None
             ) -> Plan | None:
    """The plan for one paper that needs a look; None when there is nothing to do."""
    if e is None:
        plan = plan_new(p, seq, st)
    else:
        if parsed is None and st is not None and doc.reader_hash(p) == st.reader_hash:
            return None  # only the change sequence moved (e.g. re-rendered plain text)
        if parsed is None:
            try:
                loaded, vf = read_file(e.path)
            except Unusable as exc:
                _unusable(report, e.rel, p.id, exc)
                return None
            if vf is None:
                report.damaged.append({"path": e.rel, "reason": "the Reader id was removed from its front matter"})
                return None
            parsed = (loaded, vf)
        plan = plan_existing(p, e, parsed[0], parsed[1], st, seq, crashed)
    if doc.contains_marker(plan.note):
        report.skipped.append({"path": e.rel if e else "", "id": p.id, "reason": _MARKER_REASON})
        return None
    return plan


def replan(plan: Plan, report: SyncReport) -> Plan | None:
    """The plan for a file the user saved while this sync wrote it: read and merged again."""
    assert plan.entry is not None
    old = plan.entry
    try:
        loaded, vf = read_file(old.path)
    except Unusable as exc:
        _unusable(report, old.rel, plan.paper_id, exc)
        return None
    if vf is None or vf.id != plan.paper_id:
        report.skipped.append({"path": old.rel, "id": plan.paper_id,
                               "reason": "the file changed while syncing; the next sync merges it"})
        return None
    entry = files.Entry(old.rel, old.abspath, loaded.stamp.mtime_ns, loaded.stamp.size)
    return plan_one(plan.snap, entry, (loaded, vf), plan.base, plan.seen_seq, report, plan.crashed)

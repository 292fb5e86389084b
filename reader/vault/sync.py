"""The vault sync engine: scan, merge each paper three ways, write files, then commit Reader's side.

Order for crash safety: files are written first (each atomically), then one transaction applies
what the vault changed in Reader together with the new sync state. A sync killed in between
leaves files whose content is already the merge result; the next sync merges them again and
reaches the same result (a note conflict it wrote is recognised, tags merge idempotently, a new
file is found again by its id), so nothing is lost and nothing is duplicated.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import ReaderError
from ..exporters.filenames import safe_filename
from ..store import vault_state as vs
from ..store.vault_state import FileState
from . import document as doc
from . import files, snapshot
from .document import DamagedFile, VaultFile
from .membership import DEFAULT_QUERY, member_ids
from .merge import Base, merge
from .report import SyncReport
from .snapshot import PaperSnapshot

log = logging.getLogger(__name__)

Cancelled = Callable[[], bool] | None
OnApply = Callable[[list[str]], None] | None
_LOAD_CHUNK = 500
_WRITERS = 4
_MISSING = object()


@dataclass
class _Plan:
    """What to do for one paper: the file to write (if any), Reader's changes, the new state."""

    paper_id: str
    state: FileState  # path/mtime/size are filled in once the file is written
    seen_seq: int
    text: str | None = None
    path: Path | None = None
    expect: tuple[int, int] | None = None
    new_title: str | None = None  # set for a file to create
    new_name: str | None = None  # its file name, chosen just before writing
    recreated: bool = False
    note: str = ""  # the note the file will hold
    reader_changes: dict[str, Any] = field(default_factory=dict)


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


def _plan_new(p: PaperSnapshot, seq: int, recreated: bool) -> _Plan:
    parts = doc.reader_parts(p)
    return _Plan(p.id, _state(p, parts, path="", seq=seq, conflict=False), seq,
                 text=doc.new_file(p, parts), new_title=parts.title or "Untitled", recreated=recreated,
                 note=parts.note)


def _plan_existing(p: PaperSnapshot, entry: files.Entry, vf: VaultFile, st: FileState | None, seq: int) -> _Plan:
    reader = doc.reader_parts(p)
    base = Base(st.title_hash, st.note_hash, st.tags, st.starred, st.read) if st else None
    fallback = doc.Parts(reader.title, "", base.tags if base else reader.tags,
                         base.starred if base else reader.starred, base.read if base else reader.read)
    vault = vf.parts(fallback)
    vault_time = datetime.fromtimestamp(entry.mtime_ns / 1e9, UTC)
    reader_time = _reader_time(p)
    merged = merge(base, vault, reader, vault_newer=vault_time > reader_time,
                   reader_when=_when(reader_time), vault_when=_when(vault_time))
    final = merged.parts
    fm = vf.fm.values

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

    text = doc.rewrite(vf, fm_updates, blocks) if fm_updates or blocks else None
    plan = _Plan(p.id, _state(p, final, path=entry.rel, seq=seq, conflict=merged.conflict), seq,
                 text=text if text != vf.text else None, path=entry.path,
                 expect=(entry.mtime_ns, entry.size), reader_changes=changes, note=final.note)
    return plan


def sync(library: Any, vault_dir: str | Path, *, query: str | None = None, dry_run: bool = False,
         cancelled: Cancelled = None, on_apply: OnApply = None) -> SyncReport:
    """Two-way sync of the library with a Markdown vault folder; safe to call off the GUI thread.

    `query` (when given) becomes the vault's stored membership query. A dry run reads only.
    `cancelled` is polled between files. `on_apply(ids)` runs inside the write transaction just
    before the vault's changes are applied to those papers (a GUI snapshots them there for undo).
    """
    t0 = time.perf_counter()
    root = Path(vault_dir).expanduser()
    if root.exists() and not root.is_dir():
        raise ReaderError(f"{root} is a file, not a vault folder")
    if not root.exists():
        if not root.parent.is_dir():
            raise ReaderError(f"{root.parent}: no such folder")
        if not dry_run:
            root.mkdir()
    root = root.resolve()
    if dry_run:
        report = _run(library, root, query, True, cancelled, None)
    else:
        with files.sync_lock(root):
            report = _run(library, root, query, False, cancelled, on_apply)
    report.seconds = round(time.perf_counter() - t0, 3)
    return report


def status(library: Any, vault_dir: str | Path, *, query: str | None = None) -> SyncReport:
    """What a sync would do now (nothing is written), with the last sync time and open conflicts."""
    return sync(library, vault_dir, query=query, dry_run=True)


def _run(library: Any, root: Path, query: str | None, dry_run: bool, cancelled: Cancelled,
         on_apply: OnApply) -> SyncReport:
    key = files.vault_key(root, create=not dry_run) if root.is_dir() else None
    conn = snapshot.read_connection(library)
    row = vs.get_vault(conn, key) if key else None
    the_query = (query or "").strip() or (row.query if row else DEFAULT_QUERY)
    states = vs.load_states(conn, row.id) if row else {}
    report = SyncReport(vault=str(root), query=the_query, dry_run=dry_run, last_sync_at=row.last_sync_at if row else None)
    members = member_ids(library, the_query)

    entries, root_names, temps, links = files.scan(root) if root.is_dir() else ([], set(), [], [])
    if not dry_run:
        for tmp in temps:  # we hold the lock: these are left by a killed sync
            tmp.unlink(missing_ok=True)
    all_seqs = vs.paper_seqs(conn)
    by_path = {s.path: s for s in states.values()}
    found: dict[str, list[tuple[files.Entry, VaultFile | None]]] = {}
    damaged_ids: set[str] = set()
    for e in entries:
        st = by_path.get(e.rel)
        if st is not None and (st.mtime_ns, st.size) == (e.mtime_ns, e.size):
            found.setdefault(st.paper_id, []).append((e, None))  # unchanged since we wrote it
            continue
        try:
            vf = doc.parse(files.read_text(e.path))
        except (OSError, UnicodeDecodeError) as exc:
            if st is not None:
                report.damaged.append({"path": e.rel, "reason": f"cannot read it ({exc})"})
                damaged_ids.add(st.paper_id)
            continue
        except DamagedFile as exc:
            pid = exc.paper_id or (st.paper_id if st else None)
            if pid is not None and pid not in all_seqs and pid not in states:
                continue  # someone else's file that happens to carry an id like ours
            report.damaged.append({"path": e.rel, "reason": exc.reason})
            if pid:
                damaged_ids.add(pid)
            continue
        if vf is None:
            if st is not None:
                report.damaged.append({"path": e.rel, "reason": "the Reader id was removed from its front matter"})
                damaged_ids.add(st.paper_id)
            continue
        found.setdefault(vf.id, []).append((e, vf))

    for e in links:  # a link's id is honoured (no second file) but Reader never writes through it
        try:
            pid = doc.sniff_id(files.read_text(e.path))
        except (OSError, UnicodeDecodeError):
            continue
        if pid is not None and (pid in all_seqs or pid in states):
            report.skipped.append({"path": e.rel, "id": pid, "reason": "a symbolic link; Reader never writes through links"})
            damaged_ids.add(pid)
    seqs = all_seqs
    plans: list[_Plan] = []
    keep: dict[str, FileState] = {}  # states carried over (maybe with a new path or seq)
    drop: list[str] = []
    trash: list[tuple[str, files.Entry]] = []
    to_load: list[tuple[str, files.Entry | None, VaultFile | None, FileState | None]] = []

    for pid in sorted(members | set(states) | set(found)):
        st = states.get(pid)
        hits = found.get(pid, [])
        if pid in damaged_ids:
            if st is not None:
                keep[pid] = st
            continue
        if len(hits) > 1:
            for e, _ in hits:
                report.skipped.append({"path": e.rel, "id": pid,
                                       "reason": f"this paper's id is in {len(hits)} files; keep one of them"})
            if st is not None:
                keep[pid] = st
            continue
        if pid not in seqs:
            if st is None:
                for e, _ in hits:
                    report.skipped.append({"path": e.rel, "id": pid, "reason": "no paper with this id in the library"})
            elif hits:
                trash.append((pid, hits[0][0]))
            else:
                drop.append(pid)
            continue
        if hits:
            e, vf = hits[0]
            if st is not None and vf is None and seqs[pid] == st.paper_seq:
                report.unchanged += 1
                keep[pid] = st if st.path == e.rel else dataclasses.replace(st, path=e.rel)
                continue
            to_load.append((pid, e, vf, st))
        elif pid in members:
            to_load.append((pid, None, None, st))
        else:
            drop.append(pid)
            report.skipped.append({"path": st.path if st else "", "id": pid,
                                   "reason": "deleted in the vault and no longer in the vault's query; not recreated"})

    for i in range(0, len(to_load), _LOAD_CHUNK):
        chunk = to_load[i: i + _LOAD_CHUNK]
        snaps = snapshot.load(library, [c[0] for c in chunk])
        for pid, entry, parsed, state in chunk:
            p = snaps.get(pid)
            if p is None:  # deleted in Reader since we looked
                if state is not None:
                    keep[pid] = state
                continue
            plan = _plan_one(p, entry, parsed, state, seqs[pid], report)
            if plan is None:
                if state is not None:
                    keep[pid] = state if entry is None else dataclasses.replace(
                        state, path=entry.rel, paper_seq=seqs[pid])
                continue
            plans.append(plan)

    for plan in plans:  # names are chosen in order, so the same titles get the same "(2)"s
        if plan.new_title is not None:
            plan.new_name = safe_filename(plan.new_title, root_names)
    if dry_run:
        for plan in plans:
            _report_plan(report, plan, plan.state.path or plan.new_name or "")
        for pid, e in trash:
            report.trashed.append({"id": pid, "path": e.rel, "to": f"{files.TRASH}/{e.path.name}"})
        final = {**keep, **{p.paper_id: p.state for p in plans}}
        _finish_report(report, final)
        return report

    names_lock = threading.Lock()

    def rename(title: str) -> Callable[[], str]:
        def pick() -> str:
            with names_lock:
                return safe_filename(title, root_names)
        return pick

    def execute(plan: _Plan) -> _Plan | None:
        if cancelled and cancelled():
            return None
        return _execute(root, plan, rename(plan.new_title or ""), report)

    # File system calls wait on the disk, not the GIL: a few threads write several files at once.
    with ThreadPoolExecutor(max_workers=_WRITERS) as pool:
        done = [p for p in pool.map(execute, plans) if p is not None]
    for pid, e in trash:
        target = files.to_trash(root, e.path)
        report.trashed.append({"id": pid, "path": e.rel, "to": target.relative_to(root).as_posix()})
        drop.append(pid)

    final = dict(keep)
    changed_reader = False
    with snapshot.write_transaction(library) as (wconn, seq):
        assert key is not None
        vid = vs.save_vault(wconn, key, str(root), the_query, datetime.now(UTC).isoformat(timespec="seconds"))
        current = vs.paper_seqs(wconn, [p.paper_id for p in done if p.reader_changes])
        applying = [p for p in done if p.reader_changes and current.get(p.paper_id) == p.seen_seq]
        if applying and on_apply is not None:
            on_apply([p.paper_id for p in applying])  # e.g. the GUI snapshots them for one undo step
        for plan in done:
            state = plan.state
            if plan.reader_changes:
                if current.get(plan.paper_id) != plan.seen_seq:
                    report.skipped.append({"path": state.path, "id": plan.paper_id,
                                           "reason": "changed in Reader during the sync; the next sync merges it"})
                    continue
                vs.apply_vault_changes(wconn, plan.paper_id, seq, **plan.reader_changes)
                state = dataclasses.replace(state, paper_seq=seq)
                changed_reader = True
            final[plan.paper_id] = state
            _report_plan(report, plan, state.path)
        vs.drop_states(wconn, vid, drop)
        vs.save_states(wconn, vid, [st for pid, st in final.items() if states.get(pid) != st or row is None])
    if changed_reader:
        snapshot.index_changed(library)
    _finish_report(report, final)
    return report


def _plan_one(p: PaperSnapshot, e: files.Entry | None, vf: VaultFile | None, st: FileState | None,
              seq: int, report: SyncReport) -> _Plan | None:
    """The plan for one paper that needs a look; None when there is nothing to do."""
    if e is None:
        plan = _plan_new(p, seq, recreated=st is not None)
        if doc.contains_marker(plan.note):
            report.skipped.append({"path": "", "id": p.id,
                                   "reason": "the note contains a line that looks like a Reader marker"})
            return None
        return plan
    if vf is None and st is not None and doc.reader_hash(p) == st.reader_hash:
        return None  # only the change sequence moved (e.g. re-rendered plain text)
    if vf is None:
        try:
            vf = doc.parse(files.read_text(e.path))
        except (OSError, UnicodeDecodeError, DamagedFile) as exc:
            report.damaged.append({"path": e.rel, "reason": getattr(exc, "reason", str(exc))})
            return None
        if vf is None:
            report.damaged.append({"path": e.rel, "reason": "the Reader id was removed from its front matter"})
            return None
    plan = _plan_existing(p, e, vf, st, seq)
    if doc.contains_marker(plan.note):
        report.skipped.append({"path": e.rel, "id": p.id,
                               "reason": "the note contains a line that looks like a Reader marker"})
        return None
    return plan


def _execute(root: Path, plan: _Plan, rename: Callable[[], str], report: SyncReport) -> _Plan | None:
    """Write the plan's file (if any); the plan with the file's new path and stat, or None."""
    state = plan.state
    if plan.new_name is not None and plan.text is not None:
        path, st = files.create(root, plan.new_name, plan.text, rename)
        rel = path.relative_to(root).as_posix()
    elif plan.text is not None and plan.path is not None:
        st_ = files.replace(plan.path, plan.text, plan.expect)
        if st_ is None:
            report.skipped.append({"path": state.path, "id": plan.paper_id,
                                   "reason": "the file changed while syncing (or is a link); the next sync merges it"})
            return None
        st, rel = st_, state.path
    else:
        assert plan.expect is not None
        rel = state.path
        plan.state = dataclasses.replace(state, mtime_ns=plan.expect[0], size=plan.expect[1])
        return plan
    plan.state = dataclasses.replace(state, path=rel, mtime_ns=st.st_mtime_ns, size=st.st_size)
    return plan


def _report_plan(report: SyncReport, plan: _Plan, path: str) -> None:
    if plan.text is not None:
        report.written.append({"path": path, "id": plan.paper_id, "new": plan.new_title is not None})
        if plan.recreated:
            report.recreated.append({"id": plan.paper_id, "path": path})
    if plan.reader_changes:
        report.taken_from_vault.append({"path": path, "id": plan.paper_id, "parts": sorted(plan.reader_changes)})
    if plan.text is None and not plan.reader_changes:
        report.unchanged += 1


def _finish_report(report: SyncReport, final: dict[str, FileState]) -> None:
    report.conflicts = [{"path": s.path, "id": s.paper_id} for s in sorted(final.values(), key=lambda s: s.path)
                        if s.conflict]
    report.files = len(final)

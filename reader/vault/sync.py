"""The vault sync engine: scan, merge each paper three ways, write files, then commit Reader's side.

Order for crash safety: files are written first (each atomically), then one transaction applies
what the vault changed in Reader together with the new sync state. A sync killed in between
leaves files whose content is already the merge result; the next sync merges them again and
reaches the same result (a note conflict it wrote is recognised, tags merge idempotently, a new
file is found again by its id), so nothing is lost and nothing is duplicated.

A file the user saves while the sync writes it is never replaced: the sync reads and merges it
again (up to _ROUNDS times, then the next sync does), so the save and Reader's change both land.
A file that cannot be written is reported; the others' state is saved all the same.
"""

from __future__ import annotations

import dataclasses
import errno
import logging
import stat
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..errors import ReaderError, file_kind
from ..store import vault_state as vs
from ..store.vault_state import FileState, VaultRow
from . import document as doc
from . import files, journal, names, snapshot
from .document import VaultFile
from .library import VaultLibrary
from .membership import DEFAULT_QUERY, member_ids
from .plan import Plan, Unusable, plan_one, read_file, replan
from .report import SyncReport

log = logging.getLogger(__name__)

Cancelled = Callable[[], bool] | None
OnApply = Callable[[list[str]], None] | None
_LOAD_CHUNK = 500
_WRITERS = 4
_ROUNDS = 3  # write attempts for a file the user keeps saving during the sync
_CHANGED = "the file changed while syncing; the next sync merges it"
_LINK = "a symbolic link; Reader never writes through links"
_LEFT = "no longer in the vault's query"
_KEPT = "no longer in the vault's query; kept: it was edited in the vault (or synced before file hashes)"
Hit = tuple[files.Entry, tuple[files.Loaded, VaultFile] | None]


@dataclass
class _Sync:
    """One sync's inputs and what it has decided so far."""

    library: VaultLibrary
    root: Path
    dry_run: bool
    key: str | None
    row: VaultRow | None
    query: str
    report: SyncReport
    states: dict[str, FileState]
    seqs: dict[str, int]  # every paper's change sequence
    members: set[str]
    root_names: set[str] = field(default_factory=set)
    keep: dict[str, FileState] = field(default_factory=dict)  # states carried over (maybe moved)
    drop: list[str] = field(default_factory=list)
    trash: list[tuple[str, files.Entry]] = field(default_factory=list)
    left: set[str] = field(default_factory=set)  # trashed because they left the query (not deleted)
    crashed: dict[str, journal.JournalEntry] = field(default_factory=dict)  # left by an interrupted sync

    def known(self, pid: str | None) -> bool:
        return pid is not None and (pid in self.seqs or pid in self.states)


def sync(library: VaultLibrary, vault_dir: str | Path, *, query: str | None = None, dry_run: bool = False,
         cancelled: Cancelled = None, on_apply: OnApply = None) -> SyncReport:
    """Two-way sync of the library with a Markdown vault folder; safe to call off the GUI thread.

    `query` (when given) becomes the vault's stored membership query. A dry run reads only.
    `cancelled` is polled between files. `on_apply(ids)` runs inside the write transaction just
    before the vault's changes are applied to those papers (a GUI snapshots them there for undo).
    """
    t0 = time.perf_counter()
    root = Path(vault_dir).expanduser()
    if root.exists() and not root.is_dir():
        mode = root.stat().st_mode
        kind = "a file" if stat.S_ISREG(mode) else file_kind(mode)
        raise ReaderError(f"{root} is {kind}, not a vault folder")
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


def status(library: VaultLibrary, vault_dir: str | Path, *, query: str | None = None) -> SyncReport:
    """What a sync would do now (nothing is written), with the last sync time and open conflicts."""
    return sync(library, vault_dir, query=query, dry_run=True)


def written_stamps(library: VaultLibrary, report: SyncReport) -> dict[str, tuple[int, int]]:
    """The files a sync wrote, as path -> (mtime_ns, size) from the vault's stored state: how
    the window's watcher tells its own writes from another program's."""
    if not report.written:
        return {}
    root = Path(report.vault)
    key = files.vault_key(root, create=False)
    conn = snapshot.read_connection(library)
    row = vs.get_vault(conn, key) if key else None
    if row is None:
        return {}
    written = {w["path"] for w in report.written}
    return {str(root / s.path): (s.mtime_ns, s.size) for s in vs.load_states(conn, row.id).values()
            if s.path in written}


def _run(library: VaultLibrary, root: Path, query: str | None, dry_run: bool, cancelled: Cancelled,
         on_apply: OnApply) -> SyncReport:
    s = _start(library, root, query, dry_run)
    found, damaged_ids = _scan(s)
    to_load = _decide(s, found, damaged_ids)
    plans = _plan_all(s, to_load)
    for plan in plans:  # names are chosen in order, so the same titles get the same "(2)"s
        if plan.new_title is not None:
            plan.new_name = names.new_name(plan.new_title, s.root_names)
    if dry_run:
        return _dry_report(s, plans)
    writing = {p.paper_id: p.journal for p in plans if p.text is not None and p.journal is not None}
    if writing:  # before any file is written: what a crash from here on leaves for the next sync
        journal.save(root, {**{k: e for k, e in s.crashed.items() if k not in writing}, **writing})
    done = _write_all(s, plans, cancelled)
    _move_to_trash(s)
    _commit(s, done, on_apply)
    if writing or s.crashed:
        journal.clear(root)
    return s.report


def _start(library: VaultLibrary, root: Path, query: str | None, dry_run: bool) -> _Sync:
    key = files.vault_key(root, create=not dry_run) if root.is_dir() else None
    conn = snapshot.read_connection(library)
    row = vs.get_vault(conn, key) if key else None
    the_query = (query or "").strip() or (row.query if row else DEFAULT_QUERY)
    report = SyncReport(vault=str(root), query=the_query, dry_run=dry_run,
                        last_sync_at=row.last_sync_at if row else None)
    return _Sync(library, root, dry_run, key, row, the_query, report,
                 states=vs.load_states(conn, row.id) if row else {}, seqs=vs.paper_seqs(conn),
                 members=member_ids(library, the_query), crashed=journal.load(root) if key else {})


def _scan(s: _Sync) -> tuple[dict[str, list[Hit]], set[str]]:
    """The vault's Reader files by paper id (read only when changed since the last sync), and the
    papers whose file is damaged or a link (left alone this time)."""
    entries, s.root_names, temps, links = files.scan(s.root) if s.root.is_dir() else ([], set(), [], [])
    if not s.dry_run:
        for tmp in temps:  # we hold the lock: these are left by a killed sync
            tmp.unlink(missing_ok=True)
    report = s.report
    by_path = {st.path: st for st in s.states.values()}
    found: dict[str, list[Hit]] = {}
    damaged_ids: set[str] = set()
    for e in entries:
        st = by_path.get(e.rel)
        if st is not None and (st.mtime_ns, st.size) == (e.mtime_ns, e.size):
            found.setdefault(st.paper_id, []).append((e, None))  # unchanged since we wrote it
            continue
        try:
            loaded, vf = read_file(e.path)
        except Unusable as exc:
            pid = exc.paper_id or (st.paper_id if st else None)
            if s.known(pid) or (exc.claims and pid is None):
                if exc.transient:
                    report.skipped.append({"path": e.rel, "id": pid, "reason": exc.reason})
                else:
                    report.damaged.append({"path": e.rel, "reason": exc.reason})
                if pid:
                    damaged_ids.add(pid)
            continue
        if vf is None:
            if st is not None:
                report.damaged.append({"path": e.rel, "reason": "the Reader id was removed from its front matter"})
                damaged_ids.add(st.paper_id)
            continue
        found.setdefault(vf.id, []).append((e, (loaded, vf)))
    _scan_links(s, links, {e.abspath for e in entries}, by_path, damaged_ids)
    return found, damaged_ids


def _scan_links(s: _Sync, links: list[files.Entry], real_files: set[str], by_path: dict[str, FileState],
                damaged_ids: set[str]) -> None:
    """A link's paper is honoured (no second file) but Reader never writes through it, and reads
    only what it leads to inside the vault (never a device, a FIFO or a file elsewhere)."""
    for e in links:
        target = files.inside(s.root, e.abspath)
        if target is not None and target in real_files:
            continue  # another name for a file the scan has: that file is synced
        pid = None
        if target is not None:
            try:
                pid = doc.sniff_id(files.load(target).text)
            except (OSError, UnicodeDecodeError):
                pid = None
        st = by_path.get(e.rel)
        if pid is None and st is not None:
            pid = st.paper_id  # the file we wrote there became a link
        if pid is not None and s.known(pid):
            s.report.skipped.append({"path": e.rel, "id": pid, "reason": _LINK})
            damaged_ids.add(pid)


def _decide(s: _Sync, found: dict[str, list[Hit]], damaged_ids: set[str]
            ) -> list[tuple[str, files.Entry | None, tuple[files.Loaded, VaultFile] | None, FileState | None]]:
    """For each paper: keep its state, drop it, trash its file, or load it to merge (returned)."""
    report, states, keep = s.report, s.states, s.keep
    to_load: list[tuple[str, files.Entry | None, tuple[files.Loaded, VaultFile] | None, FileState | None]] = []
    for pid in sorted(s.members | set(states) | set(found)):
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
        if pid not in s.seqs:
            if st is None:
                for e, _ in hits:
                    report.skipped.append({"path": e.rel, "id": pid, "reason": "no paper with this id in the library"})
            elif hits:
                s.trash.append((pid, hits[0][0]))
            else:
                s.drop.append(pid)
            continue
        if hits and st is not None and pid not in s.members:
            e, parsed = hits[0]
            if _readers_own(st, e, parsed):  # nothing in it but what Reader wrote: to .trash
                s.trash.append((pid, e))
                s.left.add(pid)
                continue
            report.kept.append({"path": e.rel, "id": pid, "reason": _KEPT})
        if hits:
            e, parsed = hits[0]
            if st is not None and parsed is None and s.seqs[pid] == st.paper_seq:
                report.unchanged += 1
                keep[pid] = st if st.path == e.rel else dataclasses.replace(st, path=e.rel)
                continue
            to_load.append((pid, e, parsed, st))
        elif pid in s.members:
            to_load.append((pid, None, None, st))
        else:
            s.drop.append(pid)
            report.skipped.append({"path": st.path if st else "", "id": pid,
                                   "reason": "deleted in the vault and no longer in the vault's query; not recreated"})
    return to_load


def _readers_own(st: FileState, e: files.Entry, parsed: tuple[files.Loaded, VaultFile] | None) -> bool:
    """True when the file still holds exactly the bytes Reader last wrote and every earlier
    version was Reader's own too (the hash is recorded only then)."""
    if not st.file_hash:
        return False
    if parsed is not None:
        return parsed[0].digest == st.file_hash
    try:
        data, _ = files.read_bytes(e.path)
    except OSError:
        return False
    return files.digest(data) == st.file_hash


def _file_hash(plan: Plan, written: bytes | None) -> str:
    """The file hash the plan's new state records: the written bytes' (or the file's, when
    nothing is written) while the file was Reader's own before this sync, else ''."""
    if plan.entry is None:  # a file Reader creates
        return files.digest(written) if written is not None else ""
    base, loaded = plan.base, plan.loaded
    if base is None or not base.file_hash or loaded is None or loaded.digest != base.file_hash:
        return ""  # the user edited it (or it predates the hash): never Reader's own again
    return files.digest(written) if written is not None else base.file_hash


def _plan_all(s: _Sync, to_load: list[tuple[str, files.Entry | None, tuple[files.Loaded, VaultFile] | None,
                                            FileState | None]]) -> list[Plan]:
    plans: list[Plan] = []
    for i in range(0, len(to_load), _LOAD_CHUNK):
        chunk = to_load[i: i + _LOAD_CHUNK]
        snaps = snapshot.load(s.library, [c[0] for c in chunk])
        for pid, entry, parsed, state in chunk:
            p = snaps.get(pid)
            if p is None:  # deleted in Reader since we looked
                if state is not None:
                    s.keep[pid] = state
                continue
            plan = plan_one(p, entry, parsed, state, s.seqs[pid], s.report, s.crashed.get(pid))
            if plan is None:
                if state is not None:
                    s.keep[pid] = state if entry is None else dataclasses.replace(
                        state, path=entry.rel, paper_seq=s.seqs[pid])
                continue
            plans.append(plan)
    return plans


def _dry_report(s: _Sync, plans: list[Plan]) -> SyncReport:
    for plan in plans:
        _report_plan(s.report, plan, plan.state.path or plan.new_name or "")
    for pid, e in s.trash:
        s.report.trashed.append({"id": pid, "path": e.rel, "to": f"{files.TRASH}/{files.shown(e.path.name)}",
                                 "reason": _LEFT if pid in s.left else "deleted in Reader"})
    _finish_report(s.report, {**s.keep, **{p.paper_id: p.state for p in plans}})
    return s.report


def _write_all(s: _Sync, plans: list[Plan], cancelled: Cancelled) -> list[Plan]:
    """Write every plan's file, a few at a time; files saved meanwhile are merged again and retried."""
    names_lock = threading.Lock()

    def pick(title: str) -> Callable[[], str]:
        def choose() -> str:
            with names_lock:
                return names.new_name(title, s.root_names)
        return choose

    def execute(plan: Plan) -> tuple[str, Plan]:
        if cancelled and cancelled():
            return "cancelled", plan
        return _execute(s.root, plan, pick(plan.new_title or ""), s.report), plan

    done: list[Plan] = []
    pending = plans
    # File system calls wait on the disk, not the GIL: a few threads write several files at once.
    with ThreadPoolExecutor(max_workers=_WRITERS) as pool:
        for attempt in range(_ROUNDS):
            changed = []
            for outcome, plan in pool.map(execute, pending):
                if outcome == "done":
                    done.append(plan)
                elif outcome == "changed":
                    changed.append(plan)
            if attempt == _ROUNDS - 1:
                for plan in changed:
                    s.report.skipped.append({"path": plan.state.path, "id": plan.paper_id, "reason": _CHANGED})
                break
            pending = [p for p in (replan(plan, s.report) for plan in changed) if p is not None]
            if not pending:
                break
    return done


def _execute(root: Path, plan: Plan, rename: Callable[[], str], report: SyncReport) -> str:
    """Write the plan's file (if any): "done" (the plan holds the file's path and stamp), "changed"
    (saved by someone since it was read: not replaced) or "failed" (reported)."""
    state = plan.state
    try:
        if plan.new_name is not None and plan.text is not None:
            try:
                path, written = files.create(root, plan.new_name, plan.data(), rename)
            except OSError as exc:
                if exc.errno != errno.ENAMETOOLONG:
                    raise
                # A file system with shorter names than 255 bytes (eCryptfs): a short name then.
                plan.new_name = names.new_name((plan.new_title or "")[:24], set())
                path, written = files.create(root, plan.new_name, plan.data(), rename)
            rel = path.relative_to(root).as_posix()
        elif plan.text is not None and plan.path is not None and plan.loaded is not None:
            written_ = files.replace(plan.path, plan.data(), plan.loaded.stamp, plan.loaded.digest)
            if written_ is None:
                return "changed"
            written, rel = written_, state.path
        else:
            assert plan.loaded is not None
            stamp = plan.loaded.stamp
            plan.state = dataclasses.replace(state, mtime_ns=stamp.mtime_ns, size=stamp.size,
                                             file_hash=_file_hash(plan, None))
            return "done"
    except OSError as exc:
        log.warning("vault file not written: %s: %s", state.path or plan.new_name, exc)
        report.skipped.append({"path": state.path or plan.new_name or "", "id": plan.paper_id,
                               "reason": f"cannot write it ({exc.strerror or exc}); the next sync tries again"})
        return "failed"
    # What we wrote, as the temporary file had it: a save after the rename looks like a change.
    plan.state = dataclasses.replace(state, path=rel, mtime_ns=written.st_mtime_ns, size=written.st_size,
                                     file_hash=_file_hash(plan, plan.data()))
    return "done"


def _move_to_trash(s: _Sync) -> None:
    for pid, e in s.trash:
        why = _LEFT if pid in s.left else "deleted in Reader"
        try:
            target = files.to_trash(s.root, e.path, s.states[pid].file_hash if pid in s.left else None)
        except OSError as exc:
            reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
            s.report.skipped.append({"path": e.rel, "id": pid,
                                     "reason": f"{why}; file not moved to {files.TRASH}: {reason}"})
            s.keep[pid] = s.states[pid]
            continue
        if target is None:  # saved since it was read: kept, and merged by the next sync
            s.report.skipped.append({"path": e.rel, "id": pid, "reason": _CHANGED})
            s.keep[pid] = s.states[pid]
            continue
        s.report.trashed.append({"id": pid, "path": e.rel, "to": files.shown(target.relative_to(s.root).as_posix()),
                                 "reason": why})
        s.drop.append(pid)



def _commit(s: _Sync, done: list[Plan], on_apply: OnApply) -> None:
    """One transaction: the vault's changes to Reader (papers not changed in Reader meanwhile) and
    the new sync state."""
    report = s.report
    final = dict(s.keep)
    changed_reader = False
    with snapshot.write_transaction(s.library) as (wconn, seq):
        assert s.key is not None
        vid = vs.save_vault(wconn, s.key, str(s.root), s.query, datetime.now(UTC).isoformat(timespec="seconds"))
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
        vs.drop_states(wconn, vid, s.drop)
        vs.save_states(wconn, vid, [st for pid, st in final.items() if s.states.get(pid) != st or s.row is None])
    if changed_reader:
        snapshot.index_changed(s.library)
    _finish_report(report, final)


def _report_plan(report: SyncReport, plan: Plan, path: str) -> None:
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

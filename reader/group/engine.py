"""The reading group's sync: read what the members' files hold since the last look, merge it
into SQLite, and write this library's new decisions to its own folder, in one transaction.

Order inside a sync (one write transaction; a kill at any point leaves the store as before):
1. this library's own files' new complete lines are merged first (what the export compares
   with); every other member's are folded in Python by the highest sequence number per member,
   paper key and field;
2. this library's decisions changed since the last sync are compared with what its own files say
   and the differences appended to its log with new sequence numbers (above any it ever wrote),
   or, when the log grew past COMPACT_AT, its files are gone or a setting took notes or tags
   back, a new generation is written: a snapshot of everything, then an empty log (export.py);
3. the records it wrote are merged as written when its files had been read whole (else its new
   lines are read back like any member's); every member's folded records go to group_state in
   one sorted batch (store.group.merge_records: a first sync loads it before the paper index is
   built), the members' decisions meet the local papers by key, and the transaction commits.
A record written to the folder but not committed here (a kill between) is read back from the
folder at the next sync like any member's, so what the files say is never taken for what they
don't; sequence numbers continue above the highest the files hold."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from pathlib import Path
from typing import Any

from ..events import Change, Changes
from ..store import changes as store_changes
from ..store import group as gs
from . import folder as fs
from .divide import read_division
from .export import Record, export
from .format import FORMAT, BadLine, parse_header
from .keys import keys_of_row
from .leaving import clear_mark, folder_library, mark_of, member_left, passed_on, write_mark
from .meeting import (
    Meeting,
    Unwritten,
    collector_paused,
    first_keys,
    fold,
    fold_lines,
    gen_of,
    now_iso,
)
from .records import (
    GroupError,
    GroupLibrary,
    GroupStatus,
    GroupSyncReport,
    Left,
    Mark,
    MemberInfo,
)

COMPACT_AT = 192 * 1024  # a log past this is folded into a new snapshot (files stay ≤ 1 MB at 6,300 papers)
TAG_MODES = ("group", "all")
STOP_ENV = "READER_GROUP_TEST_STOP"  # tests: SIGKILL this process at the named step of a sync
MAX_PROBLEMS_PER_FILE = 3


def _first_key(record: Record) -> str:
    return record[0][0]


def _stop_at(step: str) -> None:
    if os.environ.get(STOP_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


class Group:
    """The group a library takes part in (at most one): join, leave, sync, status, divide."""

    def __init__(self, lib: GroupLibrary, *, checkpoint: Callable[[str], None] | None = None) -> None:
        self.lib = lib
        self._checkpoint = checkpoint
        self._keys: dict[str, list[str]] = {}  # during a sync: the keys of the papers it computed them for
        self._pending: dict[str, list[list[Any]]] = {}  # during a sync: each member's folded records, merged together
        self._exported: list[Record] = []  # during a sync: the records its export wrote
        self._papers: list[sqlite3.Row] | None = None  # during a sync: the papers both the keys and the export read

    # ------------------------------------------------------------------ membership
    def _step(self, name: str) -> None:
        _stop_at(name)
        if self._checkpoint is not None:
            self._checkpoint(name)

    def config(self) -> sqlite3.Row | None:
        return gs.config(self.lib.read_connection())

    def _need(self) -> sqlite3.Row:
        cfg = self.config()
        if cfg is None:
            raise GroupError("this library is in no reading group (join one: reader group join FOLDER --as NAME)")
        return cfg

    def join(self, folder: str | Path, name: str, *, share_notes: bool | None = None,
             tags: str | None = None) -> bool:
        """Take part in the group of `folder` as `name` (refused if the name is another library's);
        True. Already in that group under that name: the settings given (None: unchanged) are
        changed as set_options() does, and False."""
        name = name.strip()
        if not fs.valid_name(name):
            raise GroupError(f"{name!r} can't be a member name (letters, digits, space, '.', '-', '_'; "
                             "at most 40, starting with a letter or digit)")
        if tags is not None and tags not in TAG_MODES:
            raise GroupError(f"--tags must be one of {', '.join(TAG_MODES)}")
        path = Path(folder).expanduser().resolve()
        if not path.is_dir():
            raise GroupError(f"{path} is not a folder (create it, or the folder your sync tool shares)")
        cfg = self.config()
        if cfg is not None:
            if Path(cfg["folder"]) == path and cfg["name"] == name:
                self.set_options(share_notes=share_notes, tags=tags)
                return False
            raise GroupError(f"this library is already in the group {cfg['folder']} as {cfg['name']} "
                             "(reader group leave first; to change what you share: reader group set)")
        mine = gs.library_id(self.lib.read_connection())
        own = path / name
        if own.exists() and not own.is_dir():
            raise GroupError(f"{own} is not a folder")
        other, gen = folder_library(own) if own.is_dir() else ("", 0)
        mark = mark_of(own)  # the name's library left: it may join again, or another take the name
        taking = bool(other) and other != mine
        if taking and (mark is None or mark.library != other):
            raise GroupError(f"the name {name!r} is taken in {path} by another library ({other[:8]}): "
                             "join under another name")
        try:
            own.mkdir(exist_ok=True)
            probe = own / f"{fs.TEMP_PREFIX}probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
            if mark is not None and not taking:  # joining again: the others count it again
                clear_mark(own)
        except OSError as exc:
            raise GroupError(f"can't write to {own}: {exc.strerror or exc}") from None
        with self.lib.write_transaction() as (conn, _seq):
            if gs.config(conn) is not None:
                raise GroupError("this library joined a group meanwhile")
            gs.leave(conn)  # no state of an earlier group is kept
            gs.join(conn, str(path), name, bool(share_notes), tags or "all")
            if taking:  # its files replace those of the library that left (unread) at its first sync
                gs.set_options(conn, gen=gen + 1, purge=1)
        self._publish(())
        return True

    def leave(self) -> Left:
        """Stop taking part: first a mark in the member's folder (the others give it no share of
        the work), which stays with its decisions (the others keep them). The mark not written
        (the folder missing, or its path no regular file) is said in `problem`: left all the same."""
        cfg = self._need()
        own = Path(cfg["folder"]) / cfg["name"]
        # The decisions made since the last sync go out first: the others keep what was decided.
        # (What a sync says of the others' files is not this leave's business.)
        with contextlib.suppress(GroupError, OSError):
            self.sync()
        problem = write_mark(own, cfg["name"], gs.library_id(self.lib.read_connection()))
        try:
            with self.lib.write_transaction() as (wconn, _seq):
                gs.leave(wconn)
        except BaseException:
            if not problem:  # still in the group: not marked as left
                with contextlib.suppress(OSError):
                    clear_mark(own)
            raise
        self._publish(())
        return Left(str(own), problem)

    def set_options(self, *, share_notes: bool | None = None, tags: str | None = None,
                    best_first_group: bool | None = None) -> list[str]:
        """Change what is shared (None: unchanged); what changed, in words. The next sync writes
        every paper's record again where it differs; one that takes back notes or private tags
        also rewrites this member's files (a new generation), so their text leaves the folder."""
        cfg = self._need()
        values: dict[str, Any] = {}
        said: list[str] = []
        if share_notes is not None and bool(cfg["share_notes"]) != share_notes:
            values["share_notes"] = int(share_notes)
            said.append("notes shared" if share_notes else "notes no longer shared")
        if tags is not None and tags != cfg["tags"]:
            if tags not in TAG_MODES:
                raise GroupError(f"--tags must be one of {', '.join(TAG_MODES)}")
            values["tags"] = tags
            said.append("all tags shared" if tags == "all" else "only tags named group/… shared")
        if values:
            values["exported"] = -1  # compare every paper again: notes/tags shared or taken back
            if values.get("share_notes") == 0 or values.get("tags") == "group":
                values["purge"] = 1  # taken back: the next export writes a new generation without them
        if best_first_group is not None and bool(cfg["best_first_group"]) != best_first_group:
            values["best_first_group"] = int(best_first_group)
            said.append("best first learns from the others' stars" if best_first_group
                        else "best first no longer learns from the others' stars")
        if values:
            with self.lib.write_transaction() as (conn, _seq):
                if gs.config(conn) is None:
                    raise GroupError("this library left the group meanwhile")
                gs.set_options(conn, **values)
            self._publish(())
        return said

    # ------------------------------------------------------------------ sync
    def sync(self) -> GroupSyncReport:
        """Merge what the members wrote and write this library's changes; cheap when nothing
        changed (a stat of each member's files and one look at the change sequence)."""
        cfg = self._need()
        report = GroupSyncReport()
        root = Path(cfg["folder"])
        if not root.is_dir():
            report.problems.append(f"the group folder {root} is missing (unmounted, or not synced yet?): "
                                   "nothing read or written; your decisions are kept here")
            return report
        conn = self.lib.read_connection()
        now = store_changes.current_seq(conn)
        scans, missing = self._scan(root, cfg["name"], report)
        stored = gs.files(conn)
        todo = self._changed_files(scans, stored)
        own_changed = now != cfg["exported"] or cfg["name"] not in scans
        if not todo and not own_changed and now == cfg["keyed"]:
            return report
        with self.lib.write_transaction() as (wconn, seq), collector_paused():
            self._sync_in(wconn, seq, root, scans, missing, own_changed, report)
        if report.changed:
            self._publish(report.papers)
        return report

    def _sync_in(self, wconn: sqlite3.Connection, seq: int, root: Path, scans: dict[str, fs.MemberFiles],
                 missing: list[str], own_changed: bool, report: GroupSyncReport) -> None:
        """The sync's work inside its write transaction (the collector paused). Everything it
        builds (tens of thousands of rows) is gone when it returns, before the collector resumes:
        kept alive, it would be walked by the first collection after (a tenth of a full merge)."""
        try:
            self._sync_rows(wconn, seq, root, scans, missing, own_changed, report)
        finally:
            self._keys, self._pending, self._exported, self._papers = {}, {}, [], None

    def _sync_rows(self, wconn: sqlite3.Connection, seq: int, root: Path, scans: dict[str, fs.MemberFiles],
                   missing: list[str], own_changed: bool, report: GroupSyncReport) -> None:
        again = gs.config(wconn)
        if again is None:
            raise GroupError("this library left the group meanwhile")
        cfg = again
        me = cfg["name"]
        stored = gs.files(wconn)
        touched: set[str] = set()  # the members whose records changed the merged state
        self._step("before-read")
        self._keys = {}
        if cfg["keyed"] == cfg["exported"] and own_changed:
            # the keys and the export want the same papers (all of them at a first sync): read once
            self._papers = gs.papers_since(wconn, cfg["keyed"])
        keys_moved = self._update_keys(wconn, cfg["keyed"])
        meet = Meeting(wconn, self._key_papers(cfg["keyed"]))
        self._pending = {}
        own = scans.get(me)
        if own is not None:  # this library's own files first: the export compares with what they say
            self._read_member(wconn, root, me, own, stored, report, touched, meet)
            gs.merge_records(wconn, self._pending)
            self._pending = {}
        own_read = own is not None and self._read_whole(wconn, me, own)
        for member in sorted(scans):
            if member != me:
                self._read_member(wconn, root, member, scans[member], stored, report, touched, meet)
        others, self._pending = self._pending, {}
        for member in missing:
            gs.set_problem(wconn, member, "folder missing: its last synced decisions are kept")
        self._step("after-read")
        rewritten = False
        if own_changed or me not in scans:
            with gs.Savepoint(wconn, "group_export") as savepoint:
                try:
                    records = export(wconn, root, cfg, own, report, self._keys, self._step, COMPACT_AT,
                                     self._papers)
                except Unwritten:
                    savepoint.undo()
                    records = None
            if records is not None:
                self._exported = records
                report.written = len(records)
                gs.set_options(wconn, exported=seq)
                self._step("after-export")
                scans[me] = fs.scan(root / me)
                rewritten = own is None or scans[me].gen != own.gen  # a new generation, even of no record
                if own_read or own is None:
                    # What the own files hold beyond what was merged is what the export just wrote:
                    # its records are merged as they are, not read back and parsed.
                    self._own_written(wconn, me, scans[me], touched, meet)
                else:
                    self._read_member(wconn, root, me, scans[me], gs.files(wconn), report, touched, meet)
                self._exported = []
        gs.merge_records(wconn, {**others, **self._pending})  # all at once: one bulk write when they are many
        self._pending = {}
        self._step("before-resolve")
        report.papers |= meet.papers
        if keys_moved:
            report.papers |= self._resolve(wconn, meet)
        gs.set_options(wconn, keyed=seq)
        report.changed = bool(touched or report.written or keys_moved or rewritten)
        if report.changed:
            gs.set_options(wconn, last_sync_at=now_iso())
        self._step("before-commit")

    def _publish(self, ids: Iterable[str]) -> None:
        self.lib.changes.publish(Changes.of(Change.GROUP, ids))

    def _scan(self, root: Path, me: str, report: GroupSyncReport) -> tuple[dict[str, fs.MemberFiles], list[str]]:
        scans: dict[str, fs.MemberFiles] = {}
        try:
            names = fs.members(root)
        except OSError as exc:
            report.problems.append(f"can't read the group folder {root}: {exc.strerror or exc}")
            return scans, []
        for name in names:
            try:
                scans[name] = fs.scan(root / name)
            except OSError as exc:
                report.problems.append(f"can't read {root / name}: {exc.strerror or exc}")
                continue
            for odd in scans[name].odd:
                report.problems.append(f"{root / name / odd} is not a regular file: ignored")
        known = gs.member_rows(self.lib.read_connection())
        missing = [m for m in known if m not in scans and m != me and known[m]["gen"]]
        for m in missing:
            report.problems.append(f"member {m}: the folder {root / m} is gone; their last synced decisions are kept")
        return scans, missing

    @staticmethod
    def _changed_files(scans: dict[str, fs.MemberFiles],
                       stored: dict[tuple[str, str], tuple[int, int, int]]) -> list[tuple[str, str]]:
        todo = []
        for member, found in scans.items():
            named = list(found.current())
            if found.divide is not None:
                named.append((fs.DIVIDE_FILE, found.divide))
            if found.left is not None:
                named.append((fs.LEFT_FILE, found.left))
            elif (member, fs.LEFT_FILE) in stored:  # the member joined again
                todo.append((member, fs.LEFT_FILE))
            for fname, st in named:
                seen = stored.get((member, fname))
                if seen is None or seen[0] != st.st_size or seen[1] != st.st_mtime_ns:
                    todo.append((member, fname))
        return todo

    @staticmethod
    def _read_whole(conn: sqlite3.Connection, me: str, found: fs.MemberFiles) -> bool:
        """Whether this library's current files were read to their ends (nothing cut, skipped or
        refused, no other library's name on them): what they hold is all merged."""
        files = gs.files(conn)
        known = gs.member_rows(conn).get(me)
        if known is not None and known["problem"]:
            return False
        for fname, st in found.current():
            seen = files.get((me, fname))
            if seen is None or seen[0] != st.st_size or seen[1] != st.st_mtime_ns or seen[2] != st.st_size:
                return False
        return True

    def _own_written(self, conn: sqlite3.Connection, me: str, found: fs.MemberFiles, touched: set[str],
                     meet: Meeting) -> None:
        """After an export onto files read whole: the records it wrote merged as read (what a
        new snapshot repeats of the merged state changes nothing), its files marked read."""
        merged: dict[str, list[Any]] = {}
        for keys, fields in sorted(self._exported, key=_first_key):  # in key order, as its snapshot: the rows
            fold(merged, keys, fields)  # keep it into group_state, where this member's rows are walked by max_seq()
        self._queue(me, merged, meet, touched)
        names = []
        for fname, st in found.current():
            gs.put_file(conn, me, fname, st.st_size, st.st_mtime_ns, st.st_size)
            names.append(fname)
        gs.drop_files(conn, me, [*names, fs.DIVIDE_FILE, fs.LEFT_FILE])
        gs.put_member(conn, me, gs.library_id(conn), found.gen, "")

    def _queue(self, member: str, merged: dict[str, list[Any]], meet: Meeting, touched: set[str]) -> None:
        """A member's folded records, met with the local papers, for the sync's one merge."""
        if merged:
            self._pending[member] = meet.rows(member, merged)
            touched.add(member)

    def _read_member(self, conn: sqlite3.Connection, root: Path, member: str, found: fs.MemberFiles,
                     stored: dict[tuple[str, str], tuple[int, int, int]], report: GroupSyncReport,
                     touched: set[str], meet: Meeting) -> None:
        known = gs.member_rows(conn).get(member)
        cfg = gs.config(conn)
        assert cfg is not None
        me = member == cfg["name"]
        mine = gs.library_id(conn)
        expected = mine if me else (known["library"] if known is not None else "")
        gen = found.gen
        library = expected
        merged: dict[str, list[Any]] = {}
        file_states: list[tuple[str, int, int, int]] = []
        problem = ""
        for fname, st in found.current():
            seen = stored.get((member, fname))
            if seen is not None and seen[0] == st.st_size and seen[1] == st.st_mtime_ns:
                file_states.append((fname, seen[0], seen[1], seen[2]))
                continue
            offset = seen[2] if seen is not None and seen[2] <= st.st_size else 0
            path = root / member / fname
            try:
                chunk = fs.read_lines(path, offset)
            except OSError as exc:
                report.problems.append(f"can't read {path}: {exc.strerror or exc}")
                continue
            lines = chunk.lines
            if offset == 0:
                if not lines:
                    continue  # not even a whole header yet: next time
                try:
                    header = parse_header(lines[0][1])
                except BadLine as exc:
                    report.problems.append(f"{path}: {exc}: ignored")
                    continue
                if header.version > FORMAT:
                    problem = (f"files from a newer Reader (group format {header.version}, this one reads "
                               f"{FORMAT}): update Reader to read {member}'s decisions")
                    break
                if header.name != member or header.gen != gen_of(fname):
                    report.problems.append(f"{path}: its header names {header.name!r}, generation {header.gen}: "
                                           "ignored")
                    continue
                if me and header.library != library and header.gen < cfg["gen"]:
                    continue  # the files of the library that left the name this one took: replaced by its export
                if library and header.library != library and not me \
                        and passed_on(known, root / member, found, library):
                    # The library that wrote this name left and another took it: from now on its files.
                    report.papers |= gs.forget_member(conn, member)
                    touched.add(member)
                    fresh = {k: v for k, v in stored.items() if k[0] != member}
                    return self._read_member(conn, root, member, found, fresh, report, touched, meet)
                if library and header.library != library:
                    problem = (f"the name {member!r} is used from two libraries ({library[:8]}, "
                               f"{header.library[:8]}): not merged; one of them must leave and join under "
                               "another name")
                    break
                library = header.library
                lines = lines[1:]
            bad = 0
            for at, why in fold_lines(merged, lines):
                bad += 1
                if bad <= MAX_PROBLEMS_PER_FILE:
                    report.problems.append(f"{path} at byte {at}: {why}: skipped")
            if bad > MAX_PROBLEMS_PER_FILE:
                report.problems.append(f"{path}: {bad - MAX_PROBLEMS_PER_FILE} more bad lines skipped")
            for at in chunk.huge:
                report.problems.append(f"{path} at byte {at}: a line over {fs.MAX_LINE // 1024} KB: skipped")
            report.read += len(lines)
            file_states.append((fname, st.st_size, st.st_mtime_ns, chunk.end))
        if problem:
            report.problems.append(f"member {member}: {problem}")
            gs.set_problem(conn, member, problem)
            return
        self._queue(member, merged, meet, touched)
        for fname, size, mtime, offset in file_states:
            gs.put_file(conn, member, fname, size, mtime, offset)
        gs.drop_files(conn, member, [f for f, *_ in file_states] + [fs.DIVIDE_FILE])
        read_division(conn, root, member, found, stored, library, report)
        left_at = member_left(conn, root / member, found, stored, known, library, report)
        gs.put_member(conn, member, library, gen, "", None if me else left_at)

    # ------------------------------------------------------------------ meeting the local papers
    def _update_keys(self, conn: sqlite3.Connection, since: int) -> bool:
        """group_keys for the papers written since `since` (all at the first sync)."""
        rows = gs.key_rows(conn, since) if self._papers is None else self._papers
        deleted = gs.deleted_since(conn, since) if since >= 0 else []
        if not rows and not deleted:
            return False
        pairs: list[tuple[str, str]] = []
        moved = list(deleted)
        computed = self._keys
        if since < 0:  # a first sync: every paper's keys are new
            for r in rows:
                pid = r["id"]
                keys = computed[pid] = keys_of_row(r)
                pairs += zip(keys, repeat(pid))
            moved += computed
        else:
            before = gs.keys_of(conn, [r["id"] for r in rows])
            for r in rows:
                pid = r["id"]
                keys = computed[pid] = keys_of_row(r)
                if set(keys) != before.get(pid):  # a star or a note moves no key: nothing to meet again
                    moved.append(pid)
                    pairs += zip(keys, repeat(pid))
        if not moved:
            return False
        gs.replace_keys(conn, moved, pairs)
        return True

    def _key_papers(self, since: int) -> dict[str, str] | None:
        """After a first sync's _update_keys (every paper keyed): each key's paper, as
        gs.all_key_papers() reads it from group_keys (the smallest paper id holding it)."""
        if since >= 0:
            return None
        out: dict[str, str] = {}
        for pid in sorted(self._keys, reverse=True):
            for k in self._keys[pid]:
                out[k] = pid
        return out

    @staticmethod
    def _resolve(conn: sqlite3.Connection, meet: Meeting) -> set[str]:
        """After the local papers changed: the members' records not yet met (a paper that has
        arrived since) or met on a paper deleted since meet the papers again."""
        todo = gs.unresolved(conn)
        if not todo:
            return set()
        updates = []
        ids = set()
        for member, pkey, keys in todo:
            pid = meet.paper(keys.split())
            updates.append((pid, member, pkey))
            if pid is not None:
                ids.add(pid)
        gs.set_papers(conn, updates)
        return ids

    # ------------------------------------------------------------------ reading the group
    def status(self) -> GroupStatus:
        cfg = self._need()
        conn = self.lib.read_connection()
        rows = gs.member_rows(conn)
        counts = gs.counts(conn)
        names = sorted(set(rows) | set(counts) | {cfg["name"]})
        zero = {"starred": 0, "skipped": 0, "read": 0, "tagged": 0, "notes": 0, "in_library": 0}
        members = [MemberInfo(n, n == cfg["name"], rows[n]["library"] if n in rows else "",
                              rows[n]["seen_at"] if n in rows else None, rows[n]["problem"] if n in rows else "",
                              counts.get(n, zero), rows[n]["left_at"] if n in rows else None) for n in names]
        return GroupStatus(cfg["folder"], cfg["name"], bool(cfg["share_notes"]), cfg["tags"],
                           bool(cfg["best_first_group"]), cfg["joined_at"], cfg["last_sync_at"], members)

    def members(self) -> list[str]:
        """The members to share work with: every member folder seen, this library's name too
        (members with a conflict, and those that left, left out)."""
        cfg = self._need()
        rows = gs.member_rows(self.lib.read_connection())
        names = {n for n, r in rows.items() if not r["left_at"] and (
            not r["problem"] or "gone" in r["problem"] or "missing" in r["problem"])}
        return sorted(names | {cfg["name"]})

    def marks(self, ids: Sequence[str]) -> dict[str, list[Mark]]:
        """Per paper, the members' decisions on it (members without one left out)."""
        out: dict[str, list[Mark]] = {}
        for pid, rows in gs.marks_of(self.lib.read_connection(), ids).items():
            out[pid] = [Mark(r["member"], bool(r["star"]), bool(r["skip"]), bool(r["read"]), json.loads(r["tags"]),
                             r["note"]) for r in rows
                        if r["star"] or r["skip"] or r["tags"] != "[]" or r["note"]]
        return out

    def state(self) -> list[tuple[Any, ...]]:
        """The merged state (member, paper key, fields): what every member's sync agrees on."""
        return [tuple(r) for r in gs.state(self.lib.read_connection())]

    # ------------------------------------------------------------------ dividing the work
    def publish_division(self, query: str, shares: dict[str, list[str]]) -> int:
        """Write a division (member -> local paper ids) to this library's folder, by paper key;
        returns how many papers it shares out."""
        cfg = self._need()
        conn = self.lib.read_connection()
        ids = [pid for v in shares.values() for pid in v]
        key_of = first_keys(conn, ids)
        by_key = {m: [key_of[p] for p in v if p in key_of] for m, v in shares.items()}
        seq = max(cfg["own_seq"], gs.max_seq(conn, cfg["name"])) + 1
        made_at = now_iso()
        obj = {"reader-group": FORMAT, "name": cfg["name"], "library": gs.library_id(conn), "seq": seq,
               "made_at": made_at, "query": query, "shares": by_key}
        own_dir = Path(cfg["folder"]) / cfg["name"]
        try:
            own_dir.mkdir(exist_ok=True)
            fs.write_atomic(own_dir / fs.DIVIDE_FILE, json.dumps(obj, separators=(",", ":")).encode("utf-8"))
        except OSError as exc:
            raise GroupError(f"could not write {own_dir / fs.DIVIDE_FILE}: {exc.strerror or exc}") from None
        with self.lib.write_transaction() as (wconn, _seq):
            gs.put_division(wconn, cfg["name"], seq, made_at, query, by_key)
            gs.set_options(wconn, own_seq=seq)
        self._publish(())
        return sum(len(v) for v in by_key.values())

    def share(self, member: str | None = None) -> list[str]:
        """`member`'s share (default: this library's) of the latest division, as local paper ids."""
        cfg = self._need()
        member = member or cfg["name"]
        conn = self.lib.read_connection()
        found = gs.divisions(conn)
        if not found:
            return []
        keys = json.loads(found[0]["shares"]).get(member, [])
        papers = gs.key_papers(conn, keys)
        return list(dict.fromkeys(papers[k] for k in keys if k in papers))

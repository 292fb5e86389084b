"""The reading group's sync: read what the members' files hold since the last look, merge it
into SQLite, and write this library's new decisions to its own folder, in one transaction.

Order inside a sync (one write transaction; a kill at any point leaves the store as before):
1. every member's new complete lines (this library's own folder too) are folded in Python by the
   highest sequence number per member, paper key and field, then written to group_state in one
   sorted batch (store.group.merge_records: a first sync loads it before the paper index is built);
2. this library's decisions changed since the last sync are compared with what its own files say
   and the differences appended to its log with new sequence numbers (above any it ever wrote),
   or, when the log grew past COMPACT_AT or its files are gone, a new generation is written: a
   snapshot of everything, then an empty log;
3. its own new lines are merged like the others', the members' decisions meet the local papers
   by key, and the transaction commits.
A record written to the folder but not committed here (a kill between) is read back from the
folder at the next sync like any member's, so what the files say is never taken for what they
don't; sequence numbers continue above the highest the files hold."""

from __future__ import annotations

import errno
import json
import os
import signal
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..events import Change, Changes
from ..store import changes as store_changes
from ..store import group as gs
from . import folder as fs
from .format import (
    DEFAULTS,
    FIELDS,
    FORMAT,
    MAX_NOTE,
    BadLine,
    header_line,
    parse_header,
    parse_record,
    record_line,
)
from .keys import keys_of_row
from .meeting import (
    Meeting,
    Unwritten,
    collector_paused,
    first_keys,
    fold,
    fold_fast,
    gen_of,
    gen_seen,
    now_iso,
)
from .records import (
    GroupError,
    GroupLibrary,
    GroupStatus,
    GroupSyncReport,
    Mark,
    MemberInfo,
)

COMPACT_AT = 192 * 1024  # a log past this is folded into a new snapshot (files stay ≤ 1 MB at 6,300 papers)
DIVIDE_CAP = 4 << 20
GROUP_TAG_PREFIX = "group/"  # --tags group: only tags named group/… are shared (default: all)
TAG_MODES = ("group", "all")
STOP_ENV = "READER_GROUP_TEST_STOP"  # tests: SIGKILL this process at the named step of a sync
MAX_PROBLEMS_PER_FILE = 3


def _stop_at(step: str) -> None:
    if os.environ.get(STOP_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


class Group:
    """The group a library takes part in (at most one): join, leave, sync, status, divide."""

    def __init__(self, lib: GroupLibrary, *, checkpoint: Callable[[str], None] | None = None) -> None:
        self.lib = lib
        self._checkpoint = checkpoint
        self._keys: dict[str, list[str]] = {}  # during a sync: the keys of the papers it computed them for
        self._pending: list[tuple[Any, ...]] = []  # during a sync: the folded records, merged together

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

    def join(self, folder: str | Path, name: str, *, share_notes: bool = False, tags: str = "all") -> None:
        """Take part in the group of `folder` as `name` (refused if the name is another library's)."""
        name = name.strip()
        if not fs.valid_name(name):
            raise GroupError(f"{name!r} can't be a member name (letters, digits, space, '.', '-', '_'; "
                             "at most 40, starting with a letter or digit)")
        if tags not in TAG_MODES:
            raise GroupError(f"--tags must be one of {', '.join(TAG_MODES)}")
        path = Path(folder).expanduser().resolve()
        if not path.is_dir():
            raise GroupError(f"{path} is not a folder (create it, or the folder your sync tool shares)")
        if self.config() is not None:
            cfg = self._need()
            raise GroupError(f"this library is already in the group {cfg['folder']} as {cfg['name']} "
                             "(reader group leave first)")
        mine = gs.library_id(self.lib.read_connection())
        own = path / name
        if own.exists() and not own.is_dir():
            raise GroupError(f"{own} is not a folder")
        if own.is_dir():
            other = self._folder_library(own)
            if other and other != mine:
                raise GroupError(f"the name {name!r} is taken in {path} by another library ({other[:8]}): "
                                 "join under another name")
        try:
            own.mkdir(exist_ok=True)
            probe = own / f"{fs.TEMP_PREFIX}probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise GroupError(f"can't write to {own}: {exc.strerror or exc}") from None
        with self.lib.write_transaction() as (conn, _seq):
            if gs.config(conn) is not None:
                raise GroupError("this library joined a group meanwhile")
            gs.leave(conn)  # no state of an earlier group is kept
            gs.join(conn, str(path), name, share_notes, tags)
        self._publish(())

    @staticmethod
    def _folder_library(path: Path) -> str:
        """The library that writes a member folder, from its newest file's header ('' if none)."""
        try:
            found = fs.scan(path)
        except OSError:
            return ""
        for fname, _st in found.current():
            try:
                chunk = fs.read_lines(path / fname, 0, limit=fs.READ_CHUNK)
                if chunk.lines:
                    return parse_header(chunk.lines[0][1]).library
            except (OSError, BadLine):
                continue
        return ""

    def leave(self) -> str:
        """Stop taking part; the member's folder stays (the others keep its decisions)."""
        cfg = self._need()
        with self.lib.write_transaction() as (conn, _seq):
            gs.leave(conn)
        self._publish(())
        return str(Path(cfg["folder"]) / cfg["name"])

    def set_options(self, *, share_notes: bool | None = None, tags: str | None = None,
                    best_first_group: bool | None = None) -> None:
        cfg = self._need()
        values: dict[str, Any] = {}
        if share_notes is not None and bool(cfg["share_notes"]) != share_notes:
            values["share_notes"] = int(share_notes)
        if tags is not None and tags != cfg["tags"]:
            if tags not in TAG_MODES:
                raise GroupError(f"tags must be one of {', '.join(TAG_MODES)}")
            values["tags"] = tags
        if values:
            values["exported"] = -1  # compare every paper again: notes/tags shared or taken back
        if best_first_group is not None:
            values["best_first_group"] = int(best_first_group)
        if values:
            with self.lib.write_transaction() as (conn, _seq):
                gs.set_options(conn, **values)

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
            again = gs.config(wconn)
            if again is None:
                raise GroupError("this library left the group meanwhile")
            cfg = again
            me = cfg["name"]
            stored = gs.files(wconn)
            touched: set[str] = set()  # the members whose records changed the merged state
            self._step("before-read")
            self._keys = {}
            keys_moved = self._update_keys(wconn, cfg["keyed"])
            meet = Meeting(wconn)
            self._pending = []
            for member in sorted(scans):
                self._read_member(wconn, root, member, scans[member], stored, report, touched, meet)
            gs.merge_records(wconn, self._pending)  # every member's at once: one bulk write when they are many
            self._pending = []
            for member in missing:
                gs.set_problem(wconn, member, "folder missing: its last synced decisions are kept")
            self._step("after-read")
            if own_changed or me not in scans:
                with gs.Savepoint(wconn, "group_export") as export:
                    try:
                        written = self._export(wconn, root, cfg, scans.get(me), report)
                    except Unwritten:
                        export.undo()
                        written = None
                if written is not None:
                    report.written = written
                    gs.set_options(wconn, exported=seq)
                    self._step("after-export")
                    scans[me] = fs.scan(root / me)
                    self._read_member(wconn, root, me, scans[me], gs.files(wconn), report, touched, meet)
                    gs.merge_records(wconn, self._pending)
                    self._pending = []
            self._step("before-resolve")
            report.papers |= meet.papers
            if keys_moved:
                report.papers |= self._resolve(wconn, meet)
            gs.set_options(wconn, keyed=seq)
            report.changed = bool(touched or report.written or keys_moved)
            if report.changed:
                gs.set_options(wconn, last_sync_at=now_iso())
            self._step("before-commit")
        if report.changed:
            self._publish(report.papers)
        return report

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
            for fname, st in named:
                seen = stored.get((member, fname))
                if seen is None or seen[0] != st.st_size or seen[1] != st.st_mtime_ns:
                    todo.append((member, fname))
        return todo

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
                if library and header.library != library:
                    problem = (f"the name {member!r} is used from two libraries ({library[:8]}, "
                               f"{header.library[:8]}): not merged; one of them must leave and join under "
                               "another name")
                    break
                library = header.library
                lines = lines[1:]
            bad = 0
            for at, line in lines:
                if fold_fast(merged, line):
                    continue
                try:
                    keys, fields = parse_record(line)
                except BadLine as exc:
                    bad += 1
                    if bad <= MAX_PROBLEMS_PER_FILE:
                        report.problems.append(f"{path} at byte {at}: {exc}: skipped")
                    continue
                fold(merged, keys, fields)
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
        if merged:
            pids = meet.papers_of([v[0] for v in merged.values()])
            self._pending += [(member, pkey, " ".join(v[0]), pid, *v[1:])
                              for (pkey, v), pid in zip(merged.items(), pids, strict=True)]
            touched.add(member)
        for fname, size, mtime, offset in file_states:
            gs.put_file(conn, member, fname, size, mtime, offset)
        gs.drop_files(conn, member, [f for f, *_ in file_states] + [fs.DIVIDE_FILE])
        self._read_division(conn, root, member, found, stored, library, report)
        gs.put_member(conn, member, library, gen, "")

    def _read_division(self, conn: sqlite3.Connection, root: Path, member: str, found: fs.MemberFiles,
                       stored: dict[tuple[str, str], tuple[int, int, int]], library: str,
                       report: GroupSyncReport) -> None:
        st = found.divide
        if st is None:
            return
        seen = stored.get((member, fs.DIVIDE_FILE))
        if seen is not None and seen[0] == st.st_size and seen[1] == st.st_mtime_ns:
            return
        path = root / member / fs.DIVIDE_FILE
        try:
            obj = json.loads(fs.read_small(path, DIVIDE_CAP))
            if not isinstance(obj, dict) or obj.get("reader-group", 0) > FORMAT:
                raise ValueError("from a newer Reader" if isinstance(obj, dict) else "not a division")
            shares = obj["shares"]
            if obj.get("name") != member or (library and obj.get("library") != library):
                raise ValueError("written by another member or library")
            if not isinstance(shares, dict) or not all(
                    isinstance(k, str) and isinstance(v, list) and all(isinstance(x, str) for x in v)
                    for k, v in shares.items()):
                raise ValueError("its shares are not lists of paper keys")
            gs.put_division(conn, member, int(obj["seq"]), str(obj["made_at"]), str(obj.get("query", "")), shares)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            text = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            report.problems.append(f"{path}: {text}: ignored")
        gs.put_file(conn, member, fs.DIVIDE_FILE, st.st_size, st.st_mtime_ns, st.st_size)

    # ------------------------------------------------------------------ this library's records
    def _export(self, conn: sqlite3.Connection, root: Path, cfg: sqlite3.Row, found: fs.MemberFiles | None,
                report: GroupSyncReport) -> int | None:
        """Write this library's changed decisions; the number of records (None: not written)."""
        me = cfg["name"]
        own_dir = root / me
        mine = gs.library_id(conn)
        known = gs.member_rows(conn).get(me)
        if known is not None and known["problem"] and "two libraries" in known["problem"]:
            report.problems.append(f"not written: the name {me!r} is used from another library too; leave and "
                                   "join under another name")
            return None
        seq = max(cfg["own_seq"], gs.max_seq(conn, me))
        share_notes = bool(cfg["share_notes"])
        all_tags = cfg["tags"] == "all"
        papers = gs.papers_since(conn, cfg["exported"])
        own_keys = gs.own_keys(conn, [r["id"] for r in papers])
        new_keys = []
        for r in papers:
            if r["id"] not in own_keys:
                keys = self._keys.get(r["id"]) or keys_of_row(r)  # computed a moment ago by _update_keys, mostly
                own_keys[r["id"]] = (keys[0], " ".join(keys))
                new_keys.append((r["id"], *own_keys[r["id"]]))
        published = gs.member_state(conn, me, [k for k, _ in own_keys.values()])
        records: list[bytes] = []
        for r in papers:
            tags = sorted(t for t in json.loads(r["tags"] or "[]") if all_tags or t.startswith(GROUP_TAG_PREFIX))
            note = (r["note"] or "") if share_notes else ""
            if len(note) > MAX_NOTE:
                note = note[:MAX_NOTE - 1] + "…"
            now = {"star": int(r["starred"]), "skip": int(r["skipped"]), "read": int(r["read"]),
                   "tags": tags, "note": note}
            pkey, keys_json = own_keys[r["id"]]
            prev = published.get(pkey)
            before = {f: (json.loads(prev[f]) if f == "tags" else prev[f]) if prev is not None else DEFAULTS[f]
                      for f in FIELDS}
            diff = [f for f in FIELDS if now[f] != before[f]]
            if not diff:
                continue
            seq += 1
            records.append(record_line(keys_json.split(), {f: (seq, now[f]) for f in diff}))
        gen = max(cfg["gen"], gen_seen(found))
        whole = found is not None and gen in found.logs and (gen in found.snapshots)
        log_size = found.logs[gen].st_size if whole and found is not None else 0
        compact = not whole or log_size + sum(map(len, records)) > COMPACT_AT
        if not records and not compact:
            return 0
        try:
            if new_keys:
                gs.put_own_keys(conn, new_keys)
            if compact:
                fresh = not cfg["own_seq"] and not gen_seen(found)
                self._compact(conn, own_dir, me, mine, 1 if fresh else gen + 1, found, records)
            else:
                fs.append(own_dir / f"log-{gen}.jsonl", b"".join(records), self._checkpoint_or_none())
        except OSError as exc:
            why = exc.strerror or str(exc)
            if exc.errno == errno.ENOSPC:
                why = "the disk is full"
            elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                why = "the folder can't be written"
            report.problems.append(f"could not write to {own_dir}: {why}; your decisions are kept in this library "
                                   "and written at the next sync")
            raise Unwritten() from exc
        gs.set_options(conn, own_seq=seq)
        return len(records)

    def _checkpoint_or_none(self) -> Callable[[str], None] | None:
        return self._step

    def _compact(self, conn: sqlite3.Connection, own_dir: Path, me: str, library: str, gen: int,
                 found: fs.MemberFiles | None, records: list[bytes]) -> None:
        """A new generation: the snapshot of every decision this library wrote (what its files
        said, and the new `records`), an empty log, and
        the older generation's files removed (readers of the new one need nothing older)."""
        own_dir.mkdir(exist_ok=True)
        fs.remove_temporaries(own_dir)
        lines = [header_line(me, library, gen)]
        for r in gs.member_state(conn, me).values():
            fields = {f: (r[f + "_s"], json.loads(r[f]) if f == "tags" else r[f]) for f in FIELDS if r[f + "_s"]}
            if fields:
                lines.append(record_line(r["keys"].split(), fields))
        lines += records
        fs.write_atomic(own_dir / f"snapshot-{gen}.jsonl", b"".join(lines), self._checkpoint_or_none())
        self._step("after-snapshot")
        fs.write_atomic(own_dir / f"log-{gen}.jsonl", header_line(me, library, gen))
        gs.set_options(conn, gen=gen)
        self._step("after-new-log")
        if found is not None:
            for old in sorted({*found.logs, *found.snapshots}):
                if old < gen:
                    for kind in ("snapshot", "log"):
                        (own_dir / f"{kind}-{old}.jsonl").unlink(missing_ok=True)

    # ------------------------------------------------------------------ meeting the local papers
    def _update_keys(self, conn: sqlite3.Connection, since: int) -> bool:
        """group_keys for the papers written since `since` (all at the first sync)."""
        rows = gs.key_rows(conn, since)
        deleted = gs.deleted_since(conn, since) if since >= 0 else []
        if not rows and not deleted:
            return False
        pairs: list[tuple[str, str]] = []
        before = gs.keys_of(conn, [r["id"] for r in rows]) if since >= 0 else {}
        moved = list(deleted)
        for r in rows:
            keys = self._keys[r["id"]] = keys_of_row(r)
            if set(keys) != before.get(r["id"]):  # a star or a note moves no key: nothing to meet again
                moved.append(r["id"])
                pairs.extend((k, r["id"]) for k in keys)
        if not moved:
            return False
        gs.replace_keys(conn, moved, pairs)
        return True

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
                              counts.get(n, zero)) for n in names]
        return GroupStatus(cfg["folder"], cfg["name"], bool(cfg["share_notes"]), cfg["tags"],
                           bool(cfg["best_first_group"]), cfg["joined_at"], cfg["last_sync_at"], members)

    def members(self) -> list[str]:
        """The members to share work with: every member folder seen, this library's name too
        (members with a conflict left out)."""
        cfg = self._need()
        rows = gs.member_rows(self.lib.read_connection())
        names = {n for n, r in rows.items() if not r["problem"] or "gone" in r["problem"] or "missing" in r["problem"]}
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



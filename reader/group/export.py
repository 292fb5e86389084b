"""This library's side of a sync: its decisions changed since the last export, compared with
what its own files say, written to its own folder with new sequence numbers (above any it ever
wrote): appended to its log, or as a new generation (a snapshot of everything, then an empty
log, the older generation's files removed)."""

from __future__ import annotations

import errno
import json
import sqlite3
from operator import itemgetter
from pathlib import Path
from typing import Any

from ..store import group as gs
from . import folder as fs
from .folder import Checkpoint
from .format import DEFAULTS, FIELDS, MAX_NOTE, header_line, record_line
from .keys import keys_of_row
from .meeting import Unwritten, gen_seen
from .records import GroupSyncReport

GROUP_TAG_PREFIX = "group/"  # --tags group: only tags named group/… are shared (default: all)
Record = tuple[list[str], dict[str, tuple[int, Any]]]  # a paper's keys and its fields' (seq, value)
_DECISIONS = itemgetter("id", "starred", "skipped", "read", "tags", "note")  # of a gs.papers_since() row


def export(conn: sqlite3.Connection, root: Path, cfg: sqlite3.Row, found: fs.MemberFiles | None,
           report: GroupSyncReport, computed: dict[str, list[str]], step: Checkpoint,
           compact_at: int, papers: list[sqlite3.Row] | None = None) -> list[Record] | None:
    """Write this library's decisions changed since the last export (every paper's after a
    setting changed) to its own folder: appended to its log, or, when the log would grow past
    `compact_at`, its files are gone or a setting took something back, as a new generation. The
    records written (None: not written, a problem reported; Unwritten: the folder refused).
    `computed`: paper keys already computed this sync, by paper id; `papers`: gs.papers_since()
    of the last export, when the sync has read them already."""
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
    if papers is None:
        papers = gs.papers_since(conn, cfg["exported"])
    own_keys = gs.own_keys(conn, [r["id"] for r in papers])
    new_keys = []
    for r in papers:
        pid = r["id"]
        if pid not in own_keys:
            keys = computed.get(pid) or keys_of_row(r)  # computed a moment ago by the sync, mostly
            entry = own_keys[pid] = (keys[0], " ".join(keys))
            new_keys.append((pid, *entry))
    published = gs.member_state(conn, me, [k for k, _ in own_keys.values()])
    records: list[bytes] = []
    fresh: list[Record] = []
    for pid, starred, skipped, read, tags_json, note in map(_DECISIONS, papers):
        tags = [] if tags_json == "[]" else sorted(
            t for t in json.loads(tags_json or "[]") if all_tags or t.startswith(GROUP_TAG_PREFIX))
        note = (note or "") if share_notes else ""
        if len(note) > MAX_NOTE:
            note = note[:MAX_NOTE - 1] + "…"
        pkey, keys_json = own_keys[pid]
        prev = published.get(pkey)
        if prev is None and not note:  # the common record: a paper not written before, its flags set
            if starred or skipped or read or tags:
                seq += 1
                fields: dict[str, tuple[int, Any]] = {}
                if starred:
                    fields["star"] = (seq, int(starred))
                if skipped:
                    fields["skip"] = (seq, int(skipped))
                if read:
                    fields["read"] = (seq, int(read))
                if tags:
                    fields["tags"] = (seq, tags)
                fresh.append((keys_json.split(), fields))
            continue
        now = {"star": int(starred), "skip": int(skipped), "read": int(read), "tags": tags, "note": note}
        before = DEFAULTS if prev is None else {f: json.loads(prev[f]) if f == "tags" else prev[f] for f in FIELDS}
        diff = [f for f in FIELDS if now[f] != before[f]]
        if not diff:
            continue
        seq += 1
        fresh.append((keys_json.split(), {f: (seq, now[f]) for f in diff}))
    gen = max(cfg["gen"], gen_seen(found))
    whole = found is not None and gen in found.logs and (gen in found.snapshots)
    compact = not whole or bool(cfg["purge"])
    if not compact and found is not None:
        records = [record_line(keys, fields) for keys, fields in fresh]
        compact = found.logs[gen].st_size + sum(map(len, records)) > compact_at
    if not fresh and not compact:
        return []
    try:
        if new_keys:
            gs.put_own_keys(conn, new_keys)
        if compact:
            first = not cfg["own_seq"] and not gen_seen(found)
            _compact(conn, own_dir, me, mine, 1 if first else gen + 1, found, fresh, step)
        else:
            fs.append(own_dir / f"log-{gen}.jsonl", b"".join(records), step)
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
    return fresh


def _compact(conn: sqlite3.Connection, own_dir: Path, me: str, library: str, gen: int,
             found: fs.MemberFiles | None, records: list[Record], step: Checkpoint) -> None:
    """A new generation: the snapshot of every decision this library wrote (what its files
    said with the new `records` folded in, one line a paper: a value taken back, a note no
    longer shared, is not in it), an empty log, and the older generation's files removed
    (readers of the new one need nothing older)."""
    own_dir.mkdir(exist_ok=True)
    fs.remove_temporaries(own_dir)
    state: dict[str, Record] = {}
    for pkey, r in gs.member_state(conn, me).items():
        state[pkey] = (r["keys"].split(), {f: (r[f + "_s"], json.loads(r[f]) if f == "tags" else r[f])
                                           for f in FIELDS if r[f + "_s"]})
    for keys, fields in records:
        entry = state.setdefault(keys[0], (keys, {}))
        for f, (fseq, value) in fields.items():
            if f not in entry[1] or fseq > entry[1][f][0]:
                entry[1][f] = (fseq, value)
    lines = [header_line(me, library, gen)]
    lines += [record_line(keys, fields) for _pkey, (keys, fields) in sorted(state.items()) if fields]
    fs.write_atomic(own_dir / f"snapshot-{gen}.jsonl", b"".join(lines), step)
    step("after-snapshot")
    fs.write_atomic(own_dir / f"log-{gen}.jsonl", header_line(me, library, gen))
    gs.set_options(conn, gen=gen, purge=0)
    step("after-new-log")
    if found is not None:
        for old in sorted({*found.logs, *found.snapshots}):
            if old < gen:
                for kind in ("snapshot", "log"):
                    (own_dir / f"{kind}-{old}.jsonl").unlink(missing_ok=True)

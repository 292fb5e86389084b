"""The sync's helpers: which local paper a member's record meets, folding records by the highest
sequence number per field, each paper's strongest key, and the folder's generation names."""

from __future__ import annotations

import contextlib
import gc
import json
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

from ..store import group as gs
from . import folder as fs
from .format import DEFAULTS, FIELDS, MAX_KEYS, MAX_SEQ, BadLine, parse_record
from .keys import key_hash, paper_keys

FEW_RECORDS = 200  # up to this many records meet the papers by indexed look-ups, more by one read of all keys


class Meeting:
    """Which local paper a member's record is about: the first of its keys a paper holds
    (group_keys, read once per sync when a record needs it)."""

    def __init__(self, conn: sqlite3.Connection, known: dict[str, str] | None = None) -> None:
        self._conn = conn
        self._map: dict[str, str] | None = known  # every key's paper, when the sync has just computed them all
        self._asked = 0
        self.papers: set[str] = set()

    def paper(self, keys: list[str]) -> str | None:
        return self.papers_of([keys])[0]

    def papers_of(self, many: list[list[str]]) -> list[str | None]:
        """paper() of each record's keys, in one pass."""
        self._asked += len(many)
        if self._map is None and self._asked > FEW_RECORDS:
            self._map = gs.all_key_papers(self._conn)  # many records: one read of every key
        found = self._map if self._map is not None else gs.key_papers(self._conn, {k for ks in many for k in ks})
        out: list[str | None] = []
        for keys in many:
            pid = None
            for k in keys:
                pid = found.get(k)
                if pid is not None:
                    break
            out.append(pid)
        self.papers.update(pid for pid in out if pid is not None)
        return out

    def rows(self, member: str, merged: dict[str, list[Any]]) -> list[list[Any]]:
        """A member's folded records (fold()'s rows) as group_state rows, in the order folded
        (gs.merge_records orders a batch where that matters): each met as paper() meets its
        keys and given the member, in one loop. Not sorted here: sorting a member's 6,300 keys
        and reading the rows in that order took four times the rest (their files' order)."""
        self._asked += len(merged)
        if self._map is None and self._asked > FEW_RECORDS:
            self._map = gs.all_key_papers(self._conn)  # many records: one read of every key
        found = self._map if self._map is not None else gs.key_papers(
            self._conn, {k for row in merged.values() for k in row[0].split(" ")})
        out = list(merged.values())
        pids = list(map(found.get, merged))  # by the first key (the pkey): mostly the one that meets
        for i in [i for i, pid in enumerate(pids) if pid is None]:
            keys = out[i][0]
            if " " in keys:
                for k in keys.split(" ")[1:]:
                    pid = found.get(k)
                    if pid is not None:
                        pids[i] = pid
                        break
        for row, pid in zip(out, pids, strict=True):
            row[12] = pid
            row[13] = member
        self.papers.update(filter(None, pids))  # those that met a paper
        return out


class Unwritten(Exception):
    """The own folder could not be written: the export's part of the sync is undone."""


_EMPTY_ROW = [x for f in FIELDS for x in (("[]" if f == "tags" else DEFAULTS[f]), 0)]


def fold(merged: dict[str, list[Any]], keys: list[str], fields: dict[str, tuple[int, Any]]) -> None:
    """Fold one record into `merged` (pkey -> its group_state row: the keys space-separated, value
    and seq per field, pkey, then the local paper and the member, set by Meeting.rows()),
    highest seq wins."""
    pkey = keys[0]
    row = merged.get(pkey)
    if row is None:
        row = merged[pkey] = [" ".join(keys), *_EMPTY_ROW, pkey, None, ""]
    for name, (seq, value) in fields.items():  # the fields the record sets
        slot = _SLOT_OF.get(name)
        if slot is not None and seq > row[slot + 1]:
            row[slot] = column(name, value) if slot == 7 else value
            row[slot + 1] = seq


_SLOT_OF = {name: 1 + 2 * i for i, name in enumerate(FIELDS)}  # a field's value in a fold row (its seq next)


_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
# json.loads without its Python wrapping: one C call a line
_KEYS = re.compile(rf"[^ ]{{1,64}}(?: [^ ]{{1,64}}){{0,{MAX_KEYS - 1}}}")  # parse_record's check of the keys
_SLOTS = {"star": 1, "skip": 3, "read": 5, "tags": 7, "note": -1}  # a field's value in a fold row; notes: the thorough path


def fold_fast(merged: dict[str, list[Any]], line: bytes) -> bool:
    """Fold the common record line (UTF-8 JSON, no notes) into `merged` as parse_record then
    fold() would; False, with nothing folded, for any line it is unsure of, which then takes
    parse_record's thorough path (that also says what is wrong). Accepts a subset of what
    parse_record accepts, with the same result."""
    return not fold_lines(merged, [(0, line)], thorough=False)


def fold_lines(merged: dict[str, list[Any]], lines: list[tuple[int, bytes]], *,
               thorough: bool = True) -> list[tuple[int, Any]]:
    """Fold the record lines in order, in one loop (a full merge folds tens of thousands): each
    as fold_fast() does, and a line it is unsure of through parse_record and fold(). The bad
    lines, as (offset, why); without `thorough`, the lines fold_fast() would leave, unfolded.

    The record lines record_line() writes (hex keys, flags, tags without escapes, in FIELDS
    order) are taken apart by one regular expression (_RECORD) with no JSON object built; any
    other line goes through the JSON path below (_fold_json), and those it is unsure of through
    parse_record. Each way folds a line as parse_record then fold() would."""
    left: list[tuple[int, Any]] = []  # (offset, BadLine), or (offset, line) without thorough
    if not lines:
        return left
    get, flags = merged.get, _FLAGS
    tag_columns: dict[Any, str] = {0: "[]"}  # a group's few tag sets: each written as JSON once per call
    for item, m in zip(lines, map(_RECORD, _texts(lines)), strict=True):
        if m is not None:
            # a field the line doesn't set comes as 0: its value 0 (flags[0]), its seq 0 (int(0))
            pkey, more, s1, v1, s2, v2, s3, v3, s4, t4 = m.groups(0)
            tags = tag_columns.get(t4)  # no tags field: "[]"
            if tags is None:
                tags = tag_columns[t4] = column("tags", sorted(set(json.loads(t4))))
            row = get(pkey)
            if row is None:  # the common case: the paper's first record in these files
                merged[pkey] = [pkey + more.replace('","', " ") if more else pkey,
                                flags[v1], int(s1), flags[v2], int(s2), flags[v3], int(s3),
                                tags, int(s4), "", 0, pkey, None, ""]
                continue
            # highest sequence number wins; a tie keeps the value read first (a field not set: seq 0)
            if (seq := int(s1)) > row[2]:
                row[1], row[2] = flags[v1], seq
            if (seq := int(s2)) > row[4]:
                row[3], row[4] = flags[v2], seq
            if (seq := int(s3)) > row[6]:
                row[5], row[6] = flags[v3], seq
            if (seq := int(s4)) > row[8]:
                row[7], row[8] = tags, seq
        elif not _fold_json(merged, item, tag_columns):
            if thorough:
                _thorough(merged, left, item)
            else:
                left.append(item)
    return left


def _texts(lines: list[tuple[int, bytes]]) -> list[str]:
    """The lines as text, decoded at once ('' for a line that is no UTF-8: the JSON path takes it)."""
    try:
        return b"\n".join(map(itemgetter(1), lines)).decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return [_decoded(line) for _at, line in lines]


def _decoded(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return ""


_FLAGS: dict[Any, int] = {"0": 0, "1": 1, 0: 0}  # 0: a field the line does not set
_SEQ = r"([1-9][0-9]{0,17}+)"  # a sequence number >= 1 (a longer one: the JSON path, as before)
# Every repeat is possessive (`{m,n}+`, `?+`, `*+`): what follows each can't start with what it
# repeats, so giving back a character could never make a line match, and the matcher keeps no
# state to try (about 0.4 of the time a full merge's lines took with the plain repeats).
_RECORD: Callable[[str], Any] = re.compile(  # a re.Match or None (Any: groups(0) gives str or 0)
    r'\{"k":\["([0-9a-f]{1,64}+)((?:","[0-9a-f]{1,64}+){0,' + str(MAX_KEYS - 1) + r'}+)"\]'
    + "".join(r'(?:,"' + name + r'":\[' + _SEQ + r',([01])\])?+' for name in ("star", "skip", "read"))
    + r'(?:,"tags":\[' + _SEQ + r',(\[(?:"[^"\\\x00-\x1f]*+"(?:,"[^"\\\x00-\x1f]*+")*+)?+\])\])?+\}'
).fullmatch  # the common record line as record_line() writes it: every part of it checked by its shape


def _fold_json(merged: dict[str, list[Any]], item: tuple[int, bytes], tag_columns: dict[Any, str]) -> bool:
    """Fold a record line as parse_record then fold() would, through the JSON module; False, with
    nothing folded, for any line it is unsure of (parse_record's thorough path then says what)."""
    try:
        s = item[1].decode("utf-8")
        obj, end = _SCAN(s, 0)
    except (ValueError, StopIteration):
        return False
    if "\\u" in s:
        return False  # an escape may spell a lone surrogate, which SQLite can't store: parse_record checks
    if end != len(s) or type(obj) is not dict:
        return False
    keys = obj.get("k")
    if type(keys) is not list:
        return False
    try:
        joined = " ".join(keys)
    except TypeError:
        return False  # a key that is no string
    if _KEYS.fullmatch(joined) is None or joined.count(" ") != len(keys) - 1:
        return False  # no key, too many, an empty or long one, or one with a space in it
    pkey = keys[0]
    old = merged.get(pkey)
    row: list[Any] = [joined, *_EMPTY_ROW, pkey, None, ""] if old is None else old.copy()  # stored once sound
    for name, pair in obj.items():
        slot = _SLOTS.get(name)
        if slot is None:
            continue  # the keys, or a field this version doesn't know (ignored, as parse_record does)
        if slot < 0 or type(pair) is not list or len(pair) != 2:
            return False
        seq, value = pair
        if type(seq) is not int or not 0 < seq <= MAX_SEQ:
            return False
        if slot == 7:
            if type(value) is not list or not all(type(t) is str for t in value):
                return False
            names = tuple(sorted(set(value)))
            value = tag_columns.get(names)
            if value is None:
                value = tag_columns[names] = column("tags", list(names))
        elif type(value) is not int or not (value == 0 or value == 1):
            return False
        if seq > row[slot + 1]:
            row[slot] = value
            row[slot + 1] = seq
    merged[pkey] = row
    return True


def _thorough(merged: dict[str, list[Any]], left: list[tuple[int, Any]],
              item: tuple[int, bytes]) -> None:
    """parse_record() then fold() of a line the fast path left; a bad line added to `left`."""
    try:
        keys, fields = parse_record(item[1])
    except BadLine as exc:
        left.append((item[0], exc))
        return
    fold(merged, keys, fields)


def column(name: str, value: Any) -> Any:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) if name == "tags" else value


def first_keys(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, str]:
    """Each paper's strongest key (the one its records lead with)."""
    out: dict[str, str] = {}
    rows = gs.key_rows_of(conn, ids)
    for r in rows:
        keys = paper_keys(r["doi"], r["arxiv"], r["links"], r["title_key"], r["year"], r["abstract_key"]) \
            or [key_hash("id:" + r["id"])]
        out[r["id"]] = keys[0]
    for pid, (pkey, _keys) in gs.own_keys(conn, list(ids)).items():
        out[pid] = pkey
    return out


def gen_seen(found: fs.MemberFiles | None) -> int:
    return found.gen if found is not None else 0


def gen_of(fname: str) -> int:
    return int(fname.rsplit("-", 1)[1].split(".", 1)[0])


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while a sync folds its records: they are tens of
    thousands of small lists and tuples, none in a cycle, and each collection it would run
    meanwhile walks all of them (a third of a full merge's time). Collection resumes after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

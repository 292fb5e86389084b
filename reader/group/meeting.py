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
from typing import Any

from ..store import group as gs
from . import folder as fs
from .format import DEFAULTS, FIELDS, MAX_KEYS, BadLine, parse_record
from .keys import key_hash, paper_keys

FEW_RECORDS = 200  # up to this many records meet the papers by indexed look-ups, more by one read of all keys


class Meeting:
    """Which local paper a member's record is about: the first of its keys a paper holds
    (group_keys, read once per sync when a record needs it)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._map: dict[str, str] | None = None
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


class Unwritten(Exception):
    """The own folder could not be written: the export's part of the sync is undone."""


_EMPTY_ROW = [x for f in FIELDS for x in (("[]" if f == "tags" else DEFAULTS[f]), 0)]


def fold(merged: dict[str, list[Any]], keys: list[str], fields: dict[str, tuple[int, Any]]) -> None:
    """Fold one record into `merged` (pkey -> [keys, value, seq per field]), highest seq wins."""
    pkey = keys[0]
    row = merged.get(pkey)
    if row is None:
        row = merged[pkey] = [keys, *_EMPTY_ROW]
    for i, name in enumerate(FIELDS):
        found = fields.get(name)
        if found is not None and found[0] > row[2 + 2 * i]:
            row[1 + 2 * i] = column(name, found[1])
            row[2 + 2 * i] = found[0]


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
    lines, as (offset, why); without `thorough`, the lines fold_fast() would leave, unfolded."""
    left: list[tuple[int, Any]] = []  # (offset, BadLine), or (offset, line) without thorough

    def leave(item: tuple[int, bytes]) -> None:
        if thorough:
            _thorough(merged, left, item)
        else:
            left.append(item)

    scan, keys_ok, slots, empty, get = _SCAN, _KEYS.fullmatch, _SLOTS, _EMPTY_ROW, merged.get
    tag_columns: dict[tuple[str, ...], str] = {}
    for item in lines:
        try:
            s = item[1].decode("utf-8")
            obj, end = scan(s, 0)
        except (ValueError, StopIteration):
            leave(item)
            continue
        if end != len(s) or type(obj) is not dict:
            leave(item)
            continue
        keys = obj.get("k")
        if type(keys) is not list:
            leave(item)
            continue
        try:
            joined = " ".join(keys)
        except TypeError:
            leave(item)  # a key that is no string
            continue
        if keys_ok(joined) is None or joined.count(" ") != len(keys) - 1:
            leave(item)  # no key, too many, an empty or long one, or one with a space in it
            continue
        pkey = keys[0]
        old = get(pkey)
        row: list[Any] = [keys, *empty] if old is None else old.copy()  # folded into a copy: stored once sound
        for name, pair in obj.items():
            slot = slots.get(name)
            if slot is None:
                continue  # the keys, or a field this version doesn't know (ignored, as parse_record does)
            if slot < 0 or type(pair) is not list or len(pair) != 2:
                break
            seq, value = pair
            if type(seq) is not int or seq < 1:
                break
            if slot == 7:
                if type(value) is not list:
                    break
                if not all(type(t) is str for t in value):
                    break
                names = tuple(sorted(set(value)))
                value = tag_columns.get(names)
                if value is None:  # a group's few tag sets: each written as JSON once per file
                    value = tag_columns[names] = column("tags", list(names))
            elif type(value) is not int or not (value == 0 or value == 1):
                break
            if seq > row[slot + 1]:
                row[slot] = value
                row[slot + 1] = seq
        else:
            merged[pkey] = row
            continue
        leave(item)
    return left


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

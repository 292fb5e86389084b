"""The sync's helpers: which local paper a member's record meets, folding records by the highest
sequence number per field, each paper's strongest key, and the folder's generation names."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ..store import group as gs
from . import folder as fs
from .format import DEFAULTS, FIELDS
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
        self._asked += 1
        if self._map is None and self._asked > FEW_RECORDS:
            self._map = gs.all_key_papers(self._conn)  # many records: one read of every key
        found = self._map if self._map is not None else gs.key_papers(self._conn, keys)
        pid = next((found[k] for k in keys if k in found), None)
        if pid is not None:
            self.papers.add(pid)
        return pid


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


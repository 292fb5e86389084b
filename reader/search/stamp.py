"""The index folder's stamp file (the store change the index is up to date with, and the
schema version it was built with) and the health check run when an index is opened."""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path

from whoosh import index as windex
from whoosh.searching import Searcher

from reader.derived_files import read_regular, save_bytes
from reader.search.schema import SCHEMA_VERSION, build_schema

STAMP_FILE = "reader-stamp.json"
_STAMP_LIMIT = 4096  # a few dozen bytes; anything larger is not ours


def check(ix: windex.Index) -> Searcher:
    """Touch every segment's files so a damaged index fails here, not in the first search;
    returns the searcher it read them with, open (the index's first reads reuse it)."""
    if set(ix.schema.names()) != set(build_schema().names()):
        raise ValueError("schema differs")
    s = ix.searcher()
    try:
        r = s.reader()
        s.doc_count()
        for fn in ("title", "abstract"):
            list(islice(r.lexicon(fn), 3))
        if r.doc_count_all():
            s.stored_fields(0)
            r.column_reader("id")[0]
    except BaseException:
        s.close()
        raise
    return s


def read_meta(index_dir: Path) -> dict | None:
    """The stamp, or None (the index is then rebuilt) when it is missing, damaged, or not a
    regular file: a FIFO or a device there is never opened for a blocking read."""
    raw = read_regular(index_dir / STAMP_FILE, _STAMP_LIMIT)
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def write_meta(index_dir: Path, stamp: int) -> None:
    """Atomically, under a unique temporary name (two processes may commit at once), and only
    over a regular file (NotRegularFile, one line, otherwise)."""
    data = json.dumps({"stamp": stamp, "schema": SCHEMA_VERSION}).encode("utf-8")
    save_bytes(index_dir / STAMP_FILE, ".reader-stamp.", data)

"""The index folder's stamp file (the store change the index is up to date with, and the
schema version it was built with) and the health check run when an index is opened."""

from __future__ import annotations

import json
import os
from itertools import islice
from pathlib import Path

from whoosh import index as windex
from whoosh.searching import Searcher

from reader.search.schema import SCHEMA_VERSION, build_schema

STAMP_FILE = "reader-stamp.json"


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
    try:
        data = json.loads((index_dir / STAMP_FILE).read_text("utf-8"))
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def write_meta(index_dir: Path, stamp: int) -> None:
    path = index_dir / STAMP_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"stamp": stamp, "schema": SCHEMA_VERSION}), "utf-8")
    os.replace(tmp, path)

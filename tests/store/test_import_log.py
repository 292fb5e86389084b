"""reader.store.import_log: one row per imported file."""

from __future__ import annotations

import json

from reader.models import Problem
from reader.store import import_log


def test_log_and_read_back(conn):
    assert not import_log.any_import(conn)
    import_log.log_import(conn, "/x/a.csv", "csv", 2, 1, [Problem(3, "no abstract")])
    assert import_log.any_import(conn)
    [entry] = import_log.entries(conn)
    assert (entry["path"], entry["format"], entry["new"], entry["duplicates"], entry["skipped"]) == (
        "/x/a.csv", "csv", 2, 1, 1)
    assert json.loads(str(entry["problems"])) == ["line 3: no abstract"]

"""The group's views as the sidebar lists them: agree, split, undecided and each member's stars,
each a query of the group filters (reader.store.group_filters), with its count."""

from __future__ import annotations

import sqlite3

from ..store import group as gs
from ..store.group_filters import select, split_filters

VIEWS = (("Agree", "group:agree"), ("Split", "group:split"),
         ("Undecided", "group:undecided"))


def sidebar_views(conn: sqlite3.Connection) -> list[tuple[str, int, str]] | None:
    """(label, papers, query) per view; None when the library is in no group."""
    cfg = gs.config(conn)
    if cfg is None:
        return None
    out = []
    rows = gs.member_rows(conn)
    members = sorted({*rows, cfg["name"]}, key=str.casefold)

    def title(m: str) -> str:
        said = " (you)" if m == cfg["name"] else " (left)" if m in rows and rows[m]["left_at"] else ""
        return f"★ by {m}{said}"

    queries = [*VIEWS, *((title(m), f'starred-by:"{m}"' if " " in m else f"starred-by:{m}") for m in members)]
    for label, query in queries:
        problems: list[str] = []
        out.append((label, len(select(conn, split_filters(query)[1], problems)), query))
    return out

"""The query language's group filters: `starred-by:NAME`, `skipped-by:NAME`, `tagged-by:NAME`,
`group:agree` (starred by two or more members), `group:split` (starred by one, skipped by
another) and `group:undecided` (no member starred or skipped it). Each is a set of papers read
from the merged group state in SQLite, ANDed with the rest of the query (`-` negates one)."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from . import group as gs

_FILTER = re.compile(r'(?<![^\s(])(-?)(starred-by|skipped-by|tagged-by|group):("[^"]*"|[^\s()"]+)', re.IGNORECASE)
VIEWS = ("agree", "split", "undecided")
BY = ("starred-by", "skipped-by", "tagged-by")


@dataclass(frozen=True)
class GroupFilter:
    negated: bool
    kind: str  # starred-by, skipped-by, tagged-by or group
    value: str  # a member's name, or agree/split/undecided

    def text(self) -> str:
        value = f'"{self.value}"' if " " in self.value else self.value
        return f"{'-' if self.negated else ''}{self.kind}:{value}"


def split_filters(text: str) -> tuple[str, list[GroupFilter]]:
    """The query without its group filters, and the filters."""
    found: list[GroupFilter] = []

    def take(m: re.Match[str]) -> str:
        found.append(GroupFilter(m.group(1) == "-", m.group(2).lower(), m.group(3).strip('"').strip()))
        return " "

    rest = _FILTER.sub(take, text)
    return (" ".join(rest.split()) if found else text), found


def has_filters(text: str) -> bool:
    return bool(_FILTER.search(text))


def select(conn: sqlite3.Connection, filters: list[GroupFilter], problems: list[str]) -> set[str]:
    """The papers every filter admits (problems: unknown names or views, no group)."""
    cfg = gs.config(conn)
    if cfg is None:
        problems.append(f"{filters[0].text()}: this library is in no reading group (reader group join)")
        return set()
    members = {m.casefold(): m for m in (*gs.member_rows(conn), cfg["name"])}
    every: set[str] | None = None
    include: set[str] | None = None
    exclude: set[str] = set()
    for f in filters:
        if f.kind == "group":
            view = f.value.lower()
            if view not in VIEWS:
                problems.append(f'Unknown group view "{f.text()}" (use group:agree, group:split, group:undecided)')
                found: set[str] = set()
            elif view == "agree":
                found = gs.agree(conn)
            elif view == "split":
                found = gs.split(conn)
            else:
                if every is None:
                    every = {r[0] for r in conn.execute("SELECT id FROM papers")}
                found = every - gs.decided(conn)
        else:
            name = members.get(f.value.casefold())
            if name is None:
                problems.append(f'No member named "{f.value}" in the group (members: {", ".join(sorted(members.values()))})')
                found = set()
            elif f.kind == "starred-by":
                found = gs.starred_by(conn, name)
            elif f.kind == "skipped-by":
                found = gs.skipped_by(conn, name)
            else:
                found = gs.tagged_by(conn, name)
        if f.negated:
            exclude |= found
        else:
            include = found if include is None else include & found
    if include is None:
        if every is None:
            every = {r[0] for r in conn.execute("SELECT id FROM papers")}
        include = every
    return include - exclude

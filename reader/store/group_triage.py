"""What the group gives triage: this member's share of the latest division (offered first) and,
when the member chose it (best_first_group), the others' stars as positives for best first."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from . import group as gs


def hints(conn: sqlite3.Connection) -> tuple[set[str], list[str]]:
    """(this member's share as local paper ids, papers the other members starred if used)."""
    try:
        cfg = gs.config(conn)
    except sqlite3.Error:  # a store without the group's tables (a test's stand-in)
        return set(), []
    if cfg is None:
        return set(), []
    share: set[str] = set()
    found = gs.divisions(conn)
    if found:
        keys = json.loads(found[0]["shares"]).get(cfg["name"], [])
        share = set(gs.key_papers(conn, keys).values())
    stars: list[str] = []
    if cfg["best_first_group"]:
        stars = [r[0] for r in conn.execute(
            "SELECT DISTINCT paper_id FROM group_state WHERE star = 1 AND member != ? AND paper_id IS NOT NULL",
            [cfg["name"]])]
    return share, stars


def share_first(ids: Sequence[str], share: set[str]) -> list[str]:
    """`ids` with this member's share first, each part in its own order."""
    if not share:
        return list(ids)
    return [p for p in ids if p in share] + [p for p in ids if p not in share]

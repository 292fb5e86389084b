"""Dividing the undecided papers of a list among the members: topics kept together (the map's
regions when a layout is stored, else papers grouped by a title word they share), shares even
(no member gets more than one paper above another); and reading a member's published division."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..identity import fold
from ..store import group as gs
from . import folder as fs
from .format import FORMAT
from .records import GroupSyncReport

DIVIDE_CAP = 4 << 20  # bytes of a member's division read at most

_STOP = frozenset("""a an and are as at by for from in into is its of on or the to via with without we our
towards toward using based learning new approach method methods model models deep neural network networks
data analysis study efficient fast improved large scale via through under over beyond""".split())
_WORD = re.compile(r"[a-z][a-z0-9-]{2,}")


def undecided(conn: sqlite3.Connection, ids: Sequence[str]) -> list[str]:
    """`ids` less the papers a member (this library too) starred or skipped."""
    decided = gs.decided(conn)
    local = gs.locally_decided(conn)
    return [pid for pid in dict.fromkeys(ids) if pid not in decided and pid not in local]


def topics(conn: sqlite3.Connection, root: Path, ids: Sequence[str]) -> tuple[dict[str, tuple[int, ...]], str]:
    """Per paper a topic and an order within it: the stored map's fine regions (by place),
    else the commonest title word the paper shares with the others. (topics, how)."""
    found: dict[str, tuple[int, ...]] = {}
    how = "title words"
    try:
        from ..map.mapfile import load, path_for

        data = load(path_for(root))
    except ImportError:  # numpy missing from a trimmed install: the word grouping
        data = None
    if data is not None:
        pos = data.position()
        for pid in ids:
            i = pos.get(pid)
            if i is not None:
                found[pid] = (int(data.fine[i]), int(data.xy[i][0] * 1000), int(data.xy[i][1] * 1000))
        if found:
            how = "map regions"
    rest = [pid for pid in ids if pid not in found]
    if rest:
        words = _title_words(conn, rest)
        df = Counter(w for ws in words.values() for w in set(ws))
        cap = max(2, len(rest) // 3)
        names: dict[str, int] = {}
        for pid in rest:
            shared = [w for w in words.get(pid, ()) if 1 < df[w] <= cap]
            word = max(shared, key=lambda w: (df[w], w)) if shared else ""
            topic = names.setdefault(word, 1_000_000 + len(names))
            found[pid] = (topic, 0, 0)
    return found, how


def _title_words(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for pid, title in gs.titles(conn, ids):
        out[pid] = [w for w in _WORD.findall(fold(title)) if w not in _STOP]
    return out


def split_even(ids: Sequence[str], topic_of: dict[str, tuple[int, ...]], members: Sequence[str]) -> dict[str, list[str]]:
    """Shares of `ids` for `members`, even (sizes differ by one at most: n // members, the first
    n % members by name one more): each topic, biggest first, goes whole to the member with the
    most room left when it fits there, else fills that room in place order and goes on with the
    next member. Deterministic: ties go by member name and topic."""
    members = sorted(members)
    shares: dict[str, list[str]] = {m: [] for m in members}
    if not members or not ids:
        return shares
    base, extra = divmod(len(ids), len(members))
    quota = {m: base + (1 if i < extra else 0) for i, m in enumerate(members)}
    groups: dict[int, list[str]] = {}
    for pid in ids:
        groups.setdefault(topic_of[pid][0], []).append(pid)
    for papers in groups.values():
        papers.sort(key=lambda p: (topic_of[p][1:], p))
    for _topic, papers in sorted(groups.items(), key=lambda t: (-len(t[1]), t[0])):
        rest = papers
        while rest:
            member = min(members, key=lambda m: (len(shares[m]) - quota[m], m))
            room = quota[member] - len(shares[member])
            shares[member].extend(rest[:room])
            rest = rest[room:]
    return shares


def read_division(conn: sqlite3.Connection, root: Path, member: str, found: fs.MemberFiles,
                  stored: dict[tuple[str, str], tuple[int, int, int]], library: str,
                  report: GroupSyncReport) -> None:
    """A member's division of the work (its `divide.json`), read when it changed."""
    st = found.divide
    if st is None:
        return
    seen = stored.get((member, fs.DIVIDE_FILE))
    if seen is not None and seen[0] == st.st_size and seen[1] == st.st_mtime_ns:
        return
    path = root / member / fs.DIVIDE_FILE
    try:
        obj = json.loads(fs.read_small(path, DIVIDE_CAP))
        if not isinstance(obj, dict) or obj.get("reader-group", 0) > FORMAT:
            raise ValueError("from a newer Reader" if isinstance(obj, dict) else "not a division")
        shares = obj["shares"]
        if obj.get("name") != member or (library and obj.get("library") != library):
            raise ValueError("written by another member or library")
        if not isinstance(shares, dict) or not all(
                isinstance(k, str) and isinstance(v, list) and all(isinstance(x, str) for x in v)
                for k, v in shares.items()):
            raise ValueError("its shares are not lists of paper keys")
        gs.put_division(conn, member, int(obj["seq"]), str(obj["made_at"]), str(obj.get("query", "")), shares)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        report.problems.append(f"{path}: {fs.reason(exc)}: ignored")
    gs.put_file(conn, member, fs.DIVIDE_FILE, st.st_size, st.st_mtime_ns, st.st_size)

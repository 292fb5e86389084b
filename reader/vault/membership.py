"""Which papers a vault holds: its stored query, OR-ed filters answered in SQL, the rest by the index."""

from __future__ import annotations

import re

from ..errors import ReaderError
from ..store import vault_state as vs
from . import snapshot
from .library import VaultLibrary

DEFAULT_QUERY = "is:starred OR has:note OR tag:* OR has:highlight"
_OR = re.compile(r"\s+OR\s+")
_TAG = re.compile(r"""^tag:(?:"([^"]+)"|(\S+))$""")


def needs_index(query: str) -> bool:
    """True when the membership query has a part only the search index answers."""
    return any(alt not in vs.SQL_FILTERS and not alt.startswith("tag:") for alt in alternatives(query))


def alternatives(query: str) -> list[str]:
    """The query split at its top-level ORs (not inside parentheses or quotes)."""
    parts: list[str] = []
    depth, quoted, start = 0, False, 0
    i = 0
    while i < len(query):
        ch = query[i]
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth = max(0, depth - 1)
        elif not quoted and depth == 0:
            # Only where a run of blanks starts: tried at every blank, `\s+OR` re-read the rest of
            # the run each time (quadratic: 40k spaces in a vault's query took 3.4 s CPU).
            m = _OR.match(query, i) if ch.isspace() and (i == 0 or not query[i - 1].isspace()) else None
            if m:
                parts.append(query[start:i])
                start = i = m.end()
                continue
        i += 1
    parts.append(query[start:])
    return [p.strip() for p in parts if p.strip()]


def member_ids(library: VaultLibrary, query: str) -> set[str]:
    """Paper ids the vault's query selects."""
    query = query.strip()
    if not query:
        raise ReaderError("the vault's query is empty")
    conn = snapshot.read_connection(library)
    out: set[str] = set()
    rest: list[str] = []
    for alt in alternatives(query):
        if alt in vs.SQL_FILTERS:
            out |= vs.ids_for_filter(conn, alt)
            continue
        tag = _TAG.match(alt)
        if tag and "*" not in alt:
            out |= vs.ids_with_tag(conn, tag.group(1) or tag.group(2))
            continue
        rest.append(alt)
    if rest:
        library.sync_index()
        res = library.search(" OR ".join(f"({r})" for r in rest), limit=None)
        if res.problem:
            raise ReaderError(f"vault query {query!r}: {res.problem}")
        out.update(h.id for h in res.hits)
    return out

"""The reads triage needs from the Library: a list's ids, seeds for best first, counts and tags."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from reader.plural import count_noun
from reader.store.group_triage import hints as group_hints
from reader.store.group_triage import share_first
from reader.store.papers import PaperRow
from reader.store.views import View
from reader.triage.best import BestFirst
from reader.triage.interests import Decisions
from reader.triage.ports import TriageLibrary
from reader.triage.queue import BEST_FIRST, UNREAD_FIRST, order_unread_first
from reader.triage.ranking import rank_like
from reader.triage.state import QueueSpec

SEED_LIMIT = 200  # the most recent stars/tags are enough to say what the user likes; bounds the work
LEGEND_SIZE = 9


def list_ids(library: TriageLibrary, spec: QueueSpec) -> tuple[list[str], list[str]]:
    """(ids, search terms) of the list `spec` describes: every match of a search, not the first 1000."""
    if spec.ids:  # chosen papers (a map selection), in their order
        return list(dict.fromkeys(spec.ids)), []
    view = View(spec.view_kind, spec.view_value)
    if not spec.query:
        return library.paper_ids(view, spec.sort, spec.descending), []
    results = library.search(spec.query, view=view, limit=None)
    ids = [h.id for h in results.hits]
    terms = list(results.terms)
    if results.filters_only or not terms:
        # Filters only (is:, tag:, year:…): no relevance, so the table's sort as the main window does.
        wanted = set(ids)
        ids = [pid for pid in library.paper_ids(view, spec.sort, spec.descending) if pid in wanted]
    return ids, terms


def is_decided(row: PaperRow) -> bool:
    """The one definition every triage queue uses (the window's, the map's Triage, `reader
    triage next`): a paper is decided once starred, tagged, skipped ("not for me") or read
    (moving on in triage marks read); the rest is still to decide."""
    return bool(row.starred or row.tags or row.skipped or row.read)


def still_to_decide(library: TriageLibrary, ids: Sequence[str]) -> list[str]:
    """`ids` less the decided papers (and unknown ids), in their order."""
    rows = library.rows(list(ids))
    return [pid for pid in ids if pid in rows and not is_decided(rows[pid])]


def interest(library: TriageLibrary, ids: Iterable[str] = ()) -> tuple[int, list[str]]:
    """(how many of `ids` are starred, the library's starred then tagged papers) from one scan."""
    starred = library.paper_ids(View("starred"))
    starred_set = set(starred)
    seeds = list(starred)
    for name, _count in library.tags():
        if len(seeds) >= SEED_LIMIT * 2:
            break
        seeds += library.paper_ids(View("tag", name))
    return sum(1 for pid in ids if pid in starred_set), list(dict.fromkeys(seeds))


def library_seeds(library: TriageLibrary) -> list[str]:
    """Every starred paper, then the tagged ones (a scan of the papers table: computed once, then kept)."""
    return interest(library)[1]


def merge_seeds(recent: Sequence[str], base: Sequence[str], dropped: Collection[str] = ()) -> list[str]:
    """This session's stars/tags first (newest first), then the library's; unstarred ones left out."""
    seeds = [pid for pid in dict.fromkeys([*reversed(list(recent)), *base]) if pid not in dropped]
    return seeds[:SEED_LIMIT]


def seed_ids(library: TriageLibrary, recent: Sequence[str] = ()) -> list[str]:
    """The papers the user showed interest in: this session's stars/tags first, then all starred, then tagged."""
    return merge_seeds(recent, library_seeds(library))


def order_ids(library: TriageLibrary, ids: Sequence[str], order: str, recent: Sequence[str] = (),
              best: BestFirst | None = None, decisions: Decisions | None = None) -> list[str]:
    """`ids` (a list order) in the queue order `order`. Best first learns from the decisions
    when `best`'s features are built (else: similarity to the starred and tagged papers)."""
    if order == UNREAD_FIRST:
        unread = set(library.paper_ids(View("unread")))
        ordered = order_unread_first(ids, unread, library.paper_ids(View(), "added", True))
    elif order == BEST_FIRST:
        if best is not None and best.covers(ids):
            return best.rank(ids, decisions or best.decisions(), why=0)[0].order  # its share first already
        ordered = rank_like(library, seed_ids(library, recent), ids)
    else:
        ordered = list(ids)
    connect = getattr(library, "read_connection", None)  # a reading group's division: one's share first
    return share_first(ordered, group_hints(connect())[0]) if connect is not None else ordered


def top_tags(library: TriageLibrary, count: int = LEGEND_SIZE) -> list[str]:
    """The most-used tags, most used first."""
    return [name for name, _ in sorted(library.tags(), key=lambda t: (-t[1], t[0].casefold()))[:count]]


def stable_legend(previous: Sequence[str], ranked: Sequence[str], size: int = LEGEND_SIZE) -> list[str]:
    """Keep each tag on its digit while it exists; free digits take the next most-used tags."""
    known = {t.casefold() for t in ranked}
    legend: list[str | None] = [t if t.casefold() in known else None for t in previous[:size]]
    taken = {t.casefold() for t in legend if t}
    fresh = iter(t for t in ranked if t.casefold() not in taken)
    legend = [t if t else next(fresh, None) for t in legend]
    legend += list(fresh)
    return [t for t in legend if t][:size]


@dataclass(frozen=True)
class Summary:
    """The end-of-queue counts over the queue's papers."""

    total: int
    read: int
    starred: int
    tagged: int
    noted: int

    def describe(self) -> str:
        return (f"{count_noun(self.total, 'paper')} · {self.read:,} read · {self.starred:,} starred · "
                f"{self.tagged:,} tagged · {self.noted:,} with notes")


def summarize(library: TriageLibrary, ids: Sequence[str]) -> Summary:
    rows = library.rows(list(ids))
    present = [rows[pid] for pid in ids if pid in rows]
    return Summary(
        total=len(present),
        read=sum(1 for r in present if r.read),
        starred=sum(1 for r in present if r.starred),
        tagged=sum(1 for r in present if r.tags),
        noted=sum(1 for r in present if r.has_note),
    )

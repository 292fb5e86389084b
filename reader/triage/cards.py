"""What triage shows of a paper, fetched and rendered off the GUI thread, ahead of the keys."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from reader.models import Paper
from reader.text.render import HIT_STYLE, abstract_html
from reader.triage.ports import TriageLibrary

AUTHORS_SHOWN = 8


@dataclass
class Card:
    """One paper as triage shows it; the flags change locally at once and are confirmed by refetch."""

    id: str
    title: str
    meta: str
    html: str  # the abstract, rendered (math, emphasis, search hits, highlights)
    links: list[str] = field(default_factory=list)  # code links first, then the paper's links
    url: str = ""  # what O opens: the paper's own page, else its code
    starred: bool = False
    read: bool = False
    skipped: bool = False  # "not for me"
    tags: list[str] = field(default_factory=list)
    note: str = ""


def meta_line(paper: Paper) -> str:
    parts = [str(x) for x in (paper.venue, paper.year) if x]
    if paper.method:
        parts.append(f"method: {paper.method}")
    authors = paper.authors
    if authors:
        more = f" … (+{len(authors) - AUTHORS_SHOWN})" if len(authors) > AUTHORS_SHOWN else ""
        parts.append(", ".join(authors[:AUTHORS_SHOWN]) + more)
    return " · ".join(parts)


def card_for(paper: Paper, terms: Sequence[str] = (), hit_style: str = HIT_STYLE,
             highlight_css: Callable[[str], str] | None = None) -> Card:
    highlights = [
        (h.start, h.end, highlight_css(h.color) if highlight_css else "#ffe08a")
        for h in paper.highlights
    ]
    own = list(paper.links)
    links = list(paper.code_links)
    links += [u for u in own if u not in links]
    return Card(
        id=paper.id,
        title=paper.title,
        meta=meta_line(paper),
        html=abstract_html(paper.abstract, highlights=highlights, terms=terms, hit_style=hit_style),
        links=links,
        url=(own or links or [""])[0],
        starred=paper.starred,
        read=paper.read,
        skipped=paper.skipped,
        tags=list(paper.tags),
        note=paper.note,
    )


def build_cards(library: TriageLibrary, ids: Sequence[str], terms: Sequence[str] = (), hit_style: str = HIT_STYLE,
                highlight_css: Callable[[str], str] | None = None) -> dict[str, Card]:
    """Cards for `ids` (one query for all of them); unknown ids are left out."""
    if not ids:
        return {}
    return {c.id: c for c in (card_for(p, terms, hit_style, highlight_css) for p in library.papers(list(ids)))}

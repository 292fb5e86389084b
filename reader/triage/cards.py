"""What triage shows of a paper, fetched and rendered off the GUI thread, ahead of the keys."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reader.text.render import HIT_STYLE, abstract_html

AUTHORS_SHOWN = 8


def paper_field(paper: Any, name: str, default: Any = None) -> Any:
    """A field of a paper whether the Library hands out dicts or (after the store refactor) objects."""
    if isinstance(paper, dict):
        value = paper.get(name, default)
    else:
        value = getattr(paper, name, default)
    return default if value is None else value


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
    tags: list[str] = field(default_factory=list)
    note: str = ""


def meta_line(paper: Any) -> str:
    parts = [str(x) for x in (paper_field(paper, "venue", ""), paper_field(paper, "year", "")) if x]
    method = paper_field(paper, "method", "")
    if method:
        parts.append(f"method: {method}")
    authors = list(paper_field(paper, "authors", []))
    if authors:
        more = f" … (+{len(authors) - AUTHORS_SHOWN})" if len(authors) > AUTHORS_SHOWN else ""
        parts.append(", ".join(authors[:AUTHORS_SHOWN]) + more)
    return " · ".join(parts)


def card_for(paper: Any, terms: Sequence[str] = (), hit_style: str = HIT_STYLE,
             highlight_css: Callable[[str], str] | None = None) -> Card:
    highlights = [
        (h.start, h.end, highlight_css(h.color) if highlight_css else "#ffe08a")
        for h in paper_field(paper, "highlights", [])
    ]
    own = [u for u in paper_field(paper, "links", []) if isinstance(u, str)]
    links = [u for u in paper_field(paper, "code_links", []) if isinstance(u, str)]
    links += [u for u in own if u not in links]
    return Card(
        id=paper_field(paper, "id"),
        title=paper_field(paper, "title", ""),
        meta=meta_line(paper),
        html=abstract_html(paper_field(paper, "abstract", ""), highlights=highlights, terms=terms, hit_style=hit_style),
        links=links,
        url=(own or links or [""])[0],
        starred=bool(paper_field(paper, "starred", False)),
        read=bool(paper_field(paper, "read", False)),
        tags=list(paper_field(paper, "tags", [])),
        note=paper_field(paper, "note", ""),
    )


def build_cards(library: Any, ids: Sequence[str], terms: Sequence[str] = (), hit_style: str = HIT_STYLE,
                highlight_css: Callable[[str], str] | None = None) -> dict[str, Card]:
    """Cards for `ids` (one query for all of them); unknown ids are left out."""
    if not ids:
        return {}
    return {c.id: c for c in (card_for(p, terms, hit_style, highlight_css) for p in library.papers(list(ids)))}

"""How the paper pane (and the triage card) colour an abstract: user highlights, search hits,
and a small cache of rendered abstracts so J/K back and forth renders each abstract once."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reader.library import Library
from reader.models import HighlightColour, Paper
from reader.text.render import abstract_html

HIGHLIGHT_COLOURS = {  # colour -> (light css: the colour's own hex, dark css)
    HighlightColour.YELLOW: (HighlightColour.YELLOW.hex, "#6b5d12"),
    HighlightColour.GREEN: (HighlightColour.GREEN.hex, "#2f5a2a"),
    HighlightColour.BLUE: (HighlightColour.BLUE.hex, "#2b4a73"),
    HighlightColour.PINK: (HighlightColour.PINK.hex, "#6e2f47"),
    HighlightColour.PURPLE: (HighlightColour.PURPLE.hex, "#4d3a73"),
}
# Search hits: bold on orange, so they read apart from the (yellow by default) user highlights
# and keep their contrast on the dark palette.
HIT_STYLES = {
    False: "background-color:#ffc98a;color:#000000;font-weight:bold",
    True: "background-color:#9a4d12;color:#ffffff;font-weight:bold",
}
ABSTRACT_CACHE = 256  # rendered abstracts kept (a few hundred KB)


def highlight_css(color: str, dark: bool) -> str:
    light_css, dark_css = HIGHLIGHT_COLOURS[HighlightColour.coerce(color)]
    return dark_css if dark else light_css


def paper_highlights(paper: Paper, dark: bool) -> tuple[tuple[int, int, str], ...]:
    """The paper's highlights as abstract_html takes them, in the palette's colours."""
    return tuple((h.start, h.end, highlight_css(h.color, dark)) for h in paper.highlights)


def abstract_key(abstract: str, highlights: tuple[tuple[int, int, str], ...], terms: Sequence[str],
                 dark: bool) -> tuple:
    """Everything an abstract's HTML depends on (RenderedAbstracts' key)."""
    return (abstract, highlights, tuple(terms), dark)


class RenderedAbstracts:
    """The last ABSTRACT_CACHE abstracts rendered, keyed on everything their HTML depends on.
    Workers rendering ahead (`read_ahead`) add to it too: its dict is used under a lock."""

    def __init__(self, size: int = ABSTRACT_CACHE) -> None:
        self.size = size
        self._cache: OrderedDict[tuple, str] = OrderedDict()
        self._lock = threading.Lock()
        self.rendered_here = 0  # abstracts rendered by html() (tests count them)

    def html(self, abstract: str, highlights: tuple[tuple[int, int, str], ...], terms: list[str], dark: bool) -> str:
        key = abstract_key(abstract, highlights, terms, dark)
        with self._lock:
            text = self._cache.get(key)
            if text is not None:
                self._cache.move_to_end(key)
                return text
        text = abstract_html(abstract, highlights=highlights, terms=terms, hit_style=HIT_STYLES[dark])
        self.rendered_here += 1
        self.add(key, text)
        return text

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._cache

    def add(self, key: tuple, text: str) -> None:
        with self._lock:
            self._cache[key] = text
            self._cache.move_to_end(key)
            if len(self._cache) > self.size:
                self._cache.popitem(last=False)


@dataclass(frozen=True)
class ReadAhead:
    """Papers read on a worker before the pane shows them (the neighbours of the open paper for
    J/K, a new list's first hit), their abstracts rendered into the pane's cache. The window
    takes them only if no change was seen since it asked (one may have touched them)."""

    papers: dict[str, Paper]
    # The reading group's marks on each of them (the pane's Group tab: None when the library is
    # in no group), when asked for: read here, not by the GUI thread at each J/K step.
    marks: dict[str, list[Any] | None] = field(default_factory=dict)


def read_ahead(library: Library, ids: list[str], terms: list[str], dark: bool,
               cache: RenderedAbstracts, group_marks: Callable[[str], list[Any] | None] | None = None) -> ReadAhead:
    """On a worker: the papers `ids`, and their abstracts as the pane renders them (into
    `cache`, each unless it holds it already); with `group_marks` (the pane's), their group marks."""
    found = {p.id: p for p in library.papers(ids)} if ids else {}
    marks: dict[str, list[Any] | None] = {}
    if group_marks is not None and found:
        first, *rest = found
        marks[first] = group_marks(first)
        # In no group (None), for every paper alike: asked once.
        marks.update((pid, group_marks(pid) if marks[first] is not None else None) for pid in rest)
    for paper in found.values():
        if paper.abstract:
            highlights = paper_highlights(paper, dark)
            key = abstract_key(paper.abstract, highlights, terms, dark)
            if key not in cache:
                cache.add(key, abstract_html(paper.abstract, highlights=highlights, terms=terms,
                                             hit_style=HIT_STYLES[dark]))
    return ReadAhead(found, marks)

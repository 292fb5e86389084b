"""How the paper pane (and the triage card) colour an abstract: user highlights, search hits,
and a small cache of rendered abstracts so J/K back and forth renders each abstract once."""

from __future__ import annotations

from collections import OrderedDict

from reader.models import HighlightColour
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


class RenderedAbstracts:
    """The last ABSTRACT_CACHE abstracts rendered, keyed on everything their HTML depends on."""

    def __init__(self, size: int = ABSTRACT_CACHE) -> None:
        self.size = size
        self._cache: OrderedDict[tuple, str] = OrderedDict()

    def html(self, abstract: str, highlights: tuple[tuple[int, int, str], ...], terms: list[str], dark: bool) -> str:
        key = (abstract, highlights, tuple(terms), dark)
        text = self._cache.get(key)
        if text is None:
            text = abstract_html(abstract, highlights=highlights, terms=terms, hit_style=HIT_STYLES[dark])
            self._cache[key] = text
            if len(self._cache) > self.size:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return text

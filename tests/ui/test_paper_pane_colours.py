"""The paper pane shows each highlight colour as itself (its own hex in the light theme)."""

from __future__ import annotations

from reader.models import HighlightColour
from reader.ui.paper.abstract_html import HIGHLIGHT_COLOURS, highlight_css


def test_every_colour_has_a_light_and_dark_shade():
    assert set(HIGHLIGHT_COLOURS) == set(HighlightColour)
    for colour in HighlightColour:
        assert highlight_css(colour, dark=False) == colour.hex
    darks = [highlight_css(c, dark=True) for c in HighlightColour]
    assert len(set(darks)) == len(darks)


def test_old_stored_values_show_as_their_colour():
    assert highlight_css("#ffe066", dark=False) == HighlightColour.YELLOW.hex
    assert highlight_css("something else", dark=True) == highlight_css("yellow", dark=True)

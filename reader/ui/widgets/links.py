"""A line of links (the paper pane's and the triage card's): each link's text is its URL without
the scheme, shortened in the middle to fit, and glued so that a line breaks between two links,
never inside one (the pane wrapped "github.com/some-user/deep-" and "learning" onto two lines, read
as two links). The href keeps the whole URL; hovering shows it."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel

from .plain import tooltip

GLUE = "\u2060"  # WORD JOINER: no line break here, no width, not read aloud
SEPARATOR = " · "  # the one place a links line breaks
_PUNCTUATION = re.compile(r"(\W)")


def link_text(url: str, metrics: QFontMetrics, width: int, most: int = 60) -> str:
    """What a link shows (plain text, glued): the URL without its scheme, at most `most`
    characters, elided in the middle to `width` pixels (when > 0)."""
    text = url.split("://", 1)[-1]
    if len(text) > most:
        text = text[: most - 3] + "…"
    if width > 0 and metrics.horizontalAdvance(text) > width:
        text = metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, width)
    return _PUNCTUATION.sub(GLUE + r"\1" + GLUE, text).strip(GLUE)


def link_line(urls: Sequence[str], metrics: QFontMetrics, width: int, most: int = 60) -> str:
    """The rich text of a line of links for a label `width` pixels wide."""
    return SEPARATOR.join(
        f"<a href='{html.escape(u, quote=True)}'>{html.escape(link_text(u, metrics, width - 4, most))}</a>"
        for u in urls)


def show_href_on_hover(label: QLabel) -> None:
    """The hovered link's whole URL as the label's tooltip (its text may be shortened)."""
    label.linkHovered.connect(lambda url: label.setToolTip(tooltip(url)))

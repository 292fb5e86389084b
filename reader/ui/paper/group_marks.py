"""The paper pane's Group tab: the members' decisions on a paper and their shared notes."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtWidgets import QTextBrowser, QWidget

from reader.group.records import initials


def group_html(marks: list[Any]) -> str:
    """The members' decisions and shared notes as HTML (notes escaped: never run as markup)."""
    if not marks:
        return "<p style='color:gray'>No member of the group decided on this paper yet.</p>"
    rows = []
    for m in marks:
        what = [w for w, on in (("★ starred", m.star), ("skipped", m.skip), ("read", m.read)) if on]
        if m.tags:
            what.append("tags: " + ", ".join(m.tags))
        rows.append(f"<p><b>{html.escape(initials(m.member))}</b> {html.escape(m.member)}: "
                    f"{html.escape(' · '.join(what) or 'no decision')}</p>")
        if m.note:
            body = "<br>".join(html.escape(line) for line in m.note.splitlines())
            rows.append(f"<blockquote><i>Note by {html.escape(m.member)} (read-only):</i><br>{body}</blockquote>")
    return "".join(rows)


class GroupView(QTextBrowser):
    """The pane's Group tab: who starred, skipped or tagged the paper, and their shared notes,
    each with its author's name and initials, read-only."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("groupView")
        self.setAccessibleName("The reading group on this paper")
        self.setOpenLinks(False)
        self._shown: str | None = None

    def show_marks(self, marks: list[Any]) -> str:
        """Show the members' marks; the tab's title ("Group", or "Group ★2" when two starred it)."""
        text = group_html(marks)
        if text != self._shown:  # the same HTML again (most papers: no marks) is not set again
            self._shown = text
            self.setHtml(text)
        starred = sum(1 for m in marks if m.star)
        return f"Group ★{starred}" if starred else "Group"

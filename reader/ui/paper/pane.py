"""The paper pane: title, metadata, star/read, tags, rendered abstract, highlights, note, related."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Literal

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from reader.models import Paper
from reader.text.render import note_html, title_plain

from ..widgets.fold_row import FoldRow
from ..widgets.links import link_line, show_href_on_hover
from ..widgets.plain import plain_label, tooltip
from .abstract_html import HIGHLIGHT_COLOURS, RenderedAbstracts, paper_highlights
from .citekey_edit import CitationKeyEdit
from .group_marks import GroupView
from .highlights_page import HighlightsPage
from .steady import AbstractWrap, SteadyHeights
from .tag_editor import TagEditor
from .title_edit import TitleEdit

NO_ABSTRACT = "No abstract: this entry was imported with its title only."
NOTE_SAVE_DELAY_MS = 700  # saved ≤ 1 s after typing stops
NOTE_RETRY_MS = 10_000  # a failed note write is tried again this often
NOTE_NOT_SAVED = "Not saved — will retry"
ID_ROLE = Qt.ItemDataRole.UserRole + 1
PANE_SPLIT = (490, 260)  # the paper above the tabs, in the ratio the widgets' size hints gave at 1280 px


class PaperPane(QWidget):
    """Shows one paper and turns the user's edits into signals the window writes."""

    starToggled = Signal(bool)
    readToggled = Signal(bool)
    tagAdded = Signal(str)
    tagRemoved = Signal(str)
    titleEdited = Signal(str)
    noteSaveRequested = Signal(str, str)  # paper id, text
    highlightRequested = Signal(int, int, str, str)  # start, end, colour, comment
    highlightRemoveRequested = Signal(int)
    highlightCommentRequested = Signal(int)
    relatedActivated = Signal(str)
    linkActivated = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("paperPane")
        self.paper: Paper | None = None
        self.terms: list[str] = []
        self.dark = False
        self._note_paper: str | None = None
        self._note_saved = ""
        self._unsaved: dict[str, str] = {}  # paper id -> typed text not confirmed stored
        self._inflight: dict[str, str] = {}  # paper id -> text being written now
        self._failed: set[str] = set()  # papers whose last note write failed
        self._loading = False
        self._abstracts = RenderedAbstracts()  # J/K back and forth renders each abstract once
        self._abstract_shown: str | None = None

        top = self._build_top()
        note_page = self._build_note_page()
        hl_page = self._build_highlights_page()

        self.relatedList = QListWidget(self)
        self.relatedList.setObjectName("relatedList")
        self.relatedList.setAccessibleName("Related papers")
        self.relatedList.itemActivated.connect(lambda item: self.relatedActivated.emit(item.data(ID_ROLE)))

        # The reading group's decisions on the paper and its members' shared notes (read-only).
        self.groupView = GroupView(self)
        self.group_marks: Callable[[str], list[Any] | None] | None = None  # set by the window: paper id -> Marks

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("paneTabs")
        self.tabs.addTab(note_page, "Note")
        self.tabs.addTab(hl_page, "Highlights")
        self.tabs.addTab(self.relatedList, "Related")
        self.tabs.addTab(self.groupView, "Group")
        self.tabs.setTabVisible(GROUP_TAB, False)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("paneSplitter")
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes(list(PANE_SPLIT))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

        self._note_timer = QTimer(self)
        self._note_timer.setSingleShot(True)
        self._note_timer.setInterval(NOTE_SAVE_DELAY_MS)
        self._note_timer.timeout.connect(self.flush_note)
        self._retry_timer = QTimer(self)
        self._retry_timer.setSingleShot(True)
        self._retry_timer.setInterval(NOTE_RETRY_MS)
        self._retry_timer.timeout.connect(self.flush_note)
        self.steady = SteadyHeights(self.titleEdit, self.metaLabel)  # J/K: rows below stay put (steady.py)
        self.set_paper(None)

    # -- construction (split by page: the paper above, the tabs below) ------------------------
    def _build_top(self) -> QWidget:
        """Title, meta line, buttons, tags, the abstract and its code links."""
        self.titleEdit = TitleEdit(self)
        self.titleEdit.setObjectName("titleEdit")
        self.titleEdit.setAccessibleName("Title")
        self.titleEdit.editingFinished.connect(self._title_finished)

        self.metaLabel = QLabel(self)
        self.metaLabel.setObjectName("metaLabel")
        plain_label(self.metaLabel)  # venue/authors are imported data: never rich text
        self.metaLabel.setWordWrap(True)
        self.metaLabel.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.starButton = QToolButton(self)
        self.starButton.setObjectName("starButton")
        self.starButton.setCheckable(True)
        self.starButton.setToolTip("Star (S)")
        self.starButton.clicked.connect(lambda checked: self._emit_unless_loading(self.starToggled, checked))
        self.readButton = QToolButton(self)
        self.readButton.setObjectName("readButton")
        self.readButton.setCheckable(True)
        self.readButton.setToolTip("Mark read / unread (R)")
        self.readButton.clicked.connect(lambda checked: self._emit_unless_loading(self.readToggled, checked))

        self.highlightButton = QToolButton(self)
        self.highlightButton.setObjectName("highlightButton")
        self.highlightButton.setText("Highlight")
        self.highlightButton.setToolTip("Highlight the text selected in the abstract")
        self.highlightButton.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.highlightButton.setEnabled(False)
        self.highlightButton.clicked.connect(lambda: self.request_highlight("yellow"))
        colours = QMenu(self.highlightButton)
        for name in HIGHLIGHT_COLOURS:
            colours.addAction(name.capitalize(), partial(self.request_highlight, name))
        self.highlightButton.setMenu(colours)
        self.highlightComment = QLineEdit(self)
        self.highlightComment.setObjectName("highlightComment")
        self.highlightComment.setAccessibleName("Highlight comment")
        self.highlightComment.setPlaceholderText("Comment")
        self.highlightComment.setToolTip("Optional comment stored with the next highlight")
        self.highlightComment.returnPressed.connect(lambda: self.request_highlight("yellow"))

        marks, highlight = QHBoxLayout(), QHBoxLayout()
        for row, widgets in ((marks, (self.starButton, self.readButton)),
                             (highlight, (self.highlightButton, self.highlightComment))):
            row.setSpacing(6)
            for widget in widgets:
                row.addWidget(widget)
        marks.addStretch(1)  # folded: the buttons keep their size, on the left
        self.highlightComment.setMinimumWidth(self.fontMetrics().horizontalAdvance("Comment") + 24)
        buttons = FoldRow(spacing=18)  # a narrow pane: star and read above, highlight below
        buttons.setObjectName("paneButtons")
        buttons.addLayout(marks)
        buttons.addLayout(highlight, 1)

        self.tagEditor = TagEditor(self)
        self.tagEditor.tagAdded.connect(self.tagAdded)
        self.tagEditor.tagRemoved.connect(self.tagRemoved)

        self.abstractView = QTextBrowser(self)
        self.abstractView.setObjectName("abstractView")
        self.abstractView.setAccessibleName("Abstract")
        self.abstractView.setOpenLinks(False)
        self.abstractView.setOpenExternalLinks(False)
        self.abstractView.anchorClicked.connect(self.linkActivated)
        self.abstractView.copyAvailable.connect(self.highlightButton.setEnabled)
        self.abstractView.document().setDocumentMargin(8)
        self.abstractWrap = AbstractWrap(self.abstractView)  # laid out at one width (steady.py)

        self.codeLinks = QLabel(self)
        self.codeLinks.setObjectName("codeLinks")
        self.codeLinks.setWordWrap(True)
        self.codeLinks.setTextFormat(Qt.TextFormat.RichText)
        self.codeLinks.linkActivated.connect(lambda url: self.linkActivated.emit(QUrl(url)))
        show_href_on_hover(self.codeLinks)
        self._links: list[str] = []

        top = self._paper_part = QWidget(self)
        top.installEventFilter(self)  # its minimum height follows its width (_fit_paper_part)
        top_layout = self._paper_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(8, 8, 8, 4)
        top_layout.addWidget(self.titleEdit)
        meta_row = FoldRow()  # a narrow pane: the key below the venue, year and authors
        meta_row.setObjectName("paneMeta")
        meta_row.addWidget(self.metaLabel, 1)
        self.metaLabel.setMinimumWidth(self.fontMetrics().averageCharWidth() * 16)
        self.citationKey = CitationKeyEdit(self)
        meta_row.addWidget(self.citationKey, 0, Qt.AlignmentFlag.AlignTop)
        top_layout.addLayout(meta_row)
        top_layout.addLayout(buttons)
        top_layout.addWidget(self.tagEditor)
        top_layout.addWidget(self.abstractView, 1)
        top_layout.addWidget(self.codeLinks)
        # The abstract takes what room there is, down to three lines; when even that does not fit
        # (a narrow, short window: folded rows, tags on several lines) the paper scrolls.
        self.abstractView.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.abstractView.setMinimumHeight(self.fontMetrics().lineSpacing() * 3 + 2 * 8 + 6)
        scroll = QScrollArea(self)
        scroll.setObjectName("paperScroll")
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(top)
        bar = scroll.verticalScrollBar().sizeHint().width()
        scroll.setMinimumWidth(top.minimumSizeHint().width() + bar)  # never scrolls sideways
        return scroll

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's name
        if watched is self._paper_part and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            if event.type() == QEvent.Type.Resize and self._links and self._links_text() != self.codeLinks.text():
                self.render_links()  # shortened to the new width
            self._fit_paper_part()
        return False

    def _fit_paper_part(self) -> None:
        """The paper's part as tall as its rows need at its width, wrapped tags and folded rows
        included, so its scroll area scrolls rather than squeezes it: a minimum height counts a
        row's one line, and the abstract was drawn over the tags' second line."""
        part = self._paper_part
        need = self._paper_layout.minimumHeightForWidth(part.width())
        if need > 0 and need != part.minimumHeight():
            part.setMinimumHeight(need)

    def _build_note_page(self) -> QWidget:
        """The Note tab: Markdown source or its preview, and the save status."""
        self.noteEditor = QPlainTextEdit(self)
        self.noteEditor.setObjectName("noteEditor")
        self.noteEditor.setAccessibleName("Note")
        self.noteEditor.setPlaceholderText("Notes (Markdown) — saved as you type")
        self.noteEditor.textChanged.connect(self._note_changed)
        self.notePreview = QTextBrowser(self)
        self.notePreview.setObjectName("notePreview")
        self.notePreview.setAccessibleName("Note preview")
        self.notePreview.setOpenLinks(False)
        self.notePreview.anchorClicked.connect(self.linkActivated)
        self.noteStack = QStackedWidget(self)
        self.noteStack.addWidget(self.noteEditor)
        self.noteStack.addWidget(self.notePreview)
        self.previewButton = QToolButton(self)
        self.previewButton.setObjectName("previewButton")
        self.previewButton.setText("Preview")
        self.previewButton.setCheckable(True)
        self.previewButton.toggled.connect(self.set_preview)
        self.noteStatus = QLabel(self)
        self.noteStatus.setObjectName("noteStatus")
        plain_label(self.noteStatus)
        note_page = QWidget(self)
        note_layout = QVBoxLayout(note_page)
        note_layout.setContentsMargins(4, 4, 4, 4)
        note_bar = QHBoxLayout()
        note_bar.addWidget(self.previewButton)
        note_bar.addStretch(1)
        note_bar.addWidget(self.noteStatus)
        note_layout.addLayout(note_bar)
        note_layout.addWidget(self.noteStack, 1)
        return note_page

    def _build_highlights_page(self) -> QWidget:
        """The Highlights tab (highlights_page.HighlightsPage)."""
        page = HighlightsPage(self, self.highlightCommentRequested.emit, self.remove_selected_highlight)
        self.highlightList, self.removeHighlightButton = page.list, page.removeButton
        self.highlightsPage = page
        return page

    @property  # -- showing ------------------------------------------------------------------
    def paper_id(self) -> str | None:
        return self.paper.id if self.paper else None

    def set_paper(self, paper: Paper | None, *, terms: list[str] | None = None,
                  marks: list[Any] | None | Literal[False] = False) -> None:
        """Show `paper`; re-showing the same paper keeps what is being typed. `marks`: its group
        marks read already (ReadAhead.marks; None: in no group), else (False) asked here."""
        same = bool(paper and self.paper and paper.id == self.paper.id)
        if not same:
            self.flush_note()
            self.steady.paper_changed(paper is not None and self.paper is not None)
        self.paper = paper
        if terms is not None:
            self.terms = terms
        self._loading = True
        try:
            self._fill(paper, same, marks)
        finally:
            self._loading = False

    def show_pending(self, title: str) -> None:
        """A paper being read on a worker (window.pane_reads): its title from the list, nothing
        to edit until the paper is shown."""
        self.set_paper(None)
        self._loading = True
        try:
            self.titleEdit.setText(title)
            self._set_abstract_html("")
        finally:
            self._loading = False

    def _fill(self, paper: Paper | None, same: bool, marks: list[Any] | None | Literal[False] = False) -> None:
        enabled = paper is not None
        for w in (self.titleEdit, self.starButton, self.readButton, self.tagEditor, self.tabs, self.highlightComment,
                  self.citationKey):
            w.setEnabled(enabled)
        self.citationKey.set_key(paper.citation_key if paper is not None else "")
        if paper is None:
            self.titleEdit.clear()
            self.metaLabel.clear()
            self._set_abstract_html("<p style='color:gray'>Select a paper.</p>")
            self._links = []
            self.render_links()
            self.tagEditor.set_tags([])
            self.highlightsPage.show_highlights([])
            self.relatedList.clear()
            self._set_note(None, "")
            self._sync_buttons(False, False)
            self.render_group(None)
            return
        if not (same and self.titleEdit.hasFocus()):
            self.titleEdit.setText(paper.title)
        meta = [str(x) for x in (paper.venue, paper.year) if x]
        authors = paper.authors
        if authors:
            shown = ", ".join(authors[:12]) + (f" … (+{len(authors) - 12})" if len(authors) > 12 else "")
            meta.append(shown)
        if paper.method:
            meta.append(f"method: {paper.method}")
        self.metaLabel.setText(" · ".join(meta))
        self._sync_buttons(paper.starred, paper.read)
        self.tagEditor.set_tags(list(paper.tags))
        self.render_abstract()
        links = list(paper.code_links)
        links += [u for u in paper.links if u not in links]
        if links[:6] != self._links:  # a label's setText relays the paper out
            self._links = links[:6]
            self.render_links()
        self._show_highlights(paper)
        if not same:
            self.relatedList.clear()
        note = paper.note
        if not same or (not self.note_dirty() and self.noteEditor.toPlainText() != note):
            self._set_note(paper.id, note)  # same paper: only when nothing unsaved is typed
        if self.previewButton.isChecked():
            self.notePreview.setHtml(note_html(self.noteEditor.toPlainText()))
        self.render_group(paper.id, marks)

    def _show_highlights(self, paper: Paper) -> None:
        count = self.highlightsPage.show_highlights(paper.highlights)
        self._set_tab(HIGHLIGHTS_TAB, f"Highlights ({count})" if count else "Highlights")

    def _set_tab(self, index: int, text: str, visible: bool = True) -> None:
        """A tab's title and visibility, touched only when they change: QTabBar relays itself (and
        so every layout up to the window) out on each setTabText, even to the same text."""
        if self.tabs.tabText(index) != text:
            self.tabs.setTabText(index, text)
        if self.tabs.isTabVisible(index) != visible:
            self.tabs.setTabVisible(index, visible)

    def render_group(self, paper_id: str | None, marks: list[Any] | None | Literal[False] = False) -> None:
        """The Group tab (group_marks.GroupView), hidden when the library is in no group;
        `marks` read already (on a worker), else (False) asked of group_marks here."""
        if marks is False:
            marks = self.group_marks(paper_id) if self.group_marks is not None and paper_id else None
        self._set_tab(GROUP_TAB, self.groupView.show_marks(marks or []), marks is not None)

    def _links_text(self) -> str:  # for the paper part's width less its margins (8 + 8)
        return link_line(self._links, self.codeLinks.fontMetrics(), self._paper_part.width() - 16, most=48)

    def render_links(self) -> None:
        """The links line, in the current palette's link colour (a label's rich text takes the
        colour when set: after a theme switch the old one stayed, dark blue on dark)."""
        self.codeLinks.clear()
        self.codeLinks.setText(self._links_text())
        self.codeLinks.setVisible(bool(self._links))

    def render_abstract(self) -> None:
        if not self.paper:
            return
        if not self.paper.abstract:  # a title-only paper (an entry imported without one)
            self._set_abstract_html(f"<p style='color:gray'><i>{NO_ABSTRACT}</i></p>")
            return
        highlights = paper_highlights(self.paper, self.dark)
        text = self._abstracts.html(self.paper.abstract, highlights, self.terms, self.dark)
        scroll = self.abstractView.verticalScrollBar().value()
        if self._set_abstract_html(text):
            self.abstractView.verticalScrollBar().setValue(scroll)

    @property
    def abstracts(self) -> RenderedAbstracts:
        """The rendered abstracts (a worker reading ahead renders into it: abstract_html.read_ahead)."""
        return self._abstracts

    def _set_abstract_html(self, text: str) -> bool:
        """setHtml only when the HTML differs from what is shown (a same-paper refresh, a theme
        switch without highlights); True when it was set."""
        if text == self._abstract_shown:
            return False
        self._abstract_shown = text
        self.abstractView.setHtml(text)
        return True

    def set_related(self, items: list[tuple[str, str]]) -> None:
        self.relatedList.clear()
        for pid, title in items:
            shown = title_plain(title)
            item = QListWidgetItem(shown, self.relatedList)
            item.setData(ID_ROLE, pid)
            item.setToolTip(tooltip(shown))

    def _sync_buttons(self, starred: bool, read: bool) -> None:
        self.starButton.setChecked(starred)
        self.starButton.setText("★ Starred" if starred else "☆ Star")
        self.starButton.setAccessibleName("Starred" if starred else "Star")  # the sign is read as its name
        self.readButton.setChecked(read)
        self.readButton.setText("✓ Read" if read else "○ Unread")
        self.readButton.setAccessibleName("Read" if read else "Unread")

    def _emit_unless_loading(self, signal: Any, value: Any) -> None:
        if not self._loading:
            signal.emit(value)

    def _title_finished(self) -> None:
        if self.paper is None or self._loading:
            return
        text = self.titleEdit.text().strip()
        if text != self.paper.title:
            self.titleEdited.emit(text)

    # -- highlights -----------------------------------------------------------------------
    def selected_range(self) -> tuple[int, int] | None:
        cursor = self.abstractView.textCursor()
        if not cursor.hasSelection():
            return None
        return cursor.selectionStart(), cursor.selectionEnd()

    def request_highlight(self, color: str = "yellow") -> bool:
        span = self.selected_range()
        if self.paper is None or span is None:
            return False
        comment = self.highlightComment.text().strip()
        self.highlightComment.clear()
        self.highlightRequested.emit(span[0], span[1], color, comment)
        return True

    def remove_selected_highlight(self) -> None:
        hid = self.highlightsPage.selected_id()
        if hid is not None:
            self.highlightRemoveRequested.emit(hid)

    # -- note -----------------------------------------------------------------------------
    # A note is "saved" only once the window reports the write succeeded (note_stored). Until
    # then its text stays in `_unsaved` (per paper), is shown again when the paper is re-selected,
    # and is written again: by the retry timer, on the next flush, and on quit.
    def _set_note(self, paper_id: str | None, text: str) -> None:
        self._note_timer.stop()
        self._note_paper = paper_id
        self._note_saved = text
        shown = self._unsaved.get(paper_id, text) if paper_id else text
        self.noteEditor.blockSignals(True)
        self.noteEditor.setPlainText(shown)
        self.noteEditor.blockSignals(False)
        self._show_note_status()

    def _show_note_status(self) -> None:
        pid = self._note_paper
        if pid is not None and pid in self._failed:
            self.noteStatus.setText(NOTE_NOT_SAVED)
        elif pid is not None and pid in self._inflight:
            self.noteStatus.setText("Saving…")
        elif self.note_dirty():
            self.noteStatus.setText("Editing…")
        else:
            self.noteStatus.setText("")

    def note_dirty(self) -> bool:
        return self._note_paper is not None and self.noteEditor.toPlainText() != self._note_saved

    def unsaved_notes(self) -> dict[str, str]:
        """Every note typed but not (yet) confirmed stored, by paper id — the editor's included."""
        notes = dict(self._unsaved)
        if self.note_dirty() and self._note_paper is not None:
            notes[self._note_paper] = self.noteEditor.toPlainText()
        return notes

    def _note_changed(self) -> None:
        if self.note_dirty():
            if self._note_paper not in self._failed:
                self.noteStatus.setText("Editing…")
            self._note_timer.start()

    def flush_note(self) -> bool:
        """Ask the window to save the typed note (and retry failed ones); True when a save was requested."""
        self._note_timer.stop()
        pid = self._note_paper
        if pid is not None:
            text = self.noteEditor.toPlainText()
            if text != self._note_saved:
                self._unsaved[pid] = text
            elif pid not in self._inflight:
                self._unsaved.pop(pid, None)  # typed back to what is stored
                self._failed.discard(pid)
        requested = False
        for note_pid, text in list(self._unsaved.items()):
            if self._inflight.get(note_pid) == text:
                continue  # this very text is being written now
            self._inflight[note_pid] = text
            requested = True
            self.noteSaveRequested.emit(note_pid, text)
        self._show_note_status()
        return requested

    def note_stored(self, paper_id: str, text: str) -> None:
        """The window's report that `text` is now the stored note of `paper_id`."""
        if self._inflight.get(paper_id) == text:
            del self._inflight[paper_id]
        if self._unsaved.get(paper_id) == text:
            del self._unsaved[paper_id]
            self._failed.discard(paper_id)
        if not self._failed:
            self._retry_timer.stop()
        if paper_id == self._note_paper:
            self._note_saved = text
            self._show_note_status()
            if self.noteEditor.toPlainText() == text:
                self.noteStatus.setText("Saved")

    def note_failed(self, paper_id: str, text: str) -> None:
        """The window's report that writing `text` failed: keep it unsaved and retry later."""
        if self._inflight.get(paper_id) == text:
            del self._inflight[paper_id]
        self._unsaved.setdefault(paper_id, text)  # a newer text typed meanwhile wins
        self._failed.add(paper_id)
        self._retry_timer.start()
        if paper_id == self._note_paper:
            self._show_note_status()

    def note_failed_before(self, paper_id: str) -> bool:
        return paper_id in self._failed

    def forget_unsaved_note(self, paper_id: str) -> None:
        """Drop a note that was stored another way (on quit) or recovered to a file."""
        self._unsaved.pop(paper_id, None)
        self._inflight.pop(paper_id, None)
        self._failed.discard(paper_id)
        if paper_id == self._note_paper:
            self._note_saved = self.noteEditor.toPlainText()
            self._show_note_status()

    def commit_title(self) -> None:
        """On quit: save an edited title; notes are written synchronously by the window instead."""
        self._note_timer.stop()
        self._retry_timer.stop()
        self._title_finished()

    def commit_edits(self) -> None:
        """Save whatever is being edited (title and note) now."""
        self._title_finished()
        self.flush_note()

    def focus_note(self) -> None:
        """N: the note editor, in edit mode, the cursor at the end (when a paper is shown)."""
        if self.paper_id:
            self.tabs.setCurrentIndex(0)
            self.set_preview(False)
            self.noteEditor.setFocus(Qt.FocusReason.ShortcutFocusReason)
            self.noteEditor.moveCursor(self.noteEditor.textCursor().MoveOperation.End)

    def set_preview(self, on: bool) -> None:
        if on:
            self.notePreview.setHtml(note_html(self.noteEditor.toPlainText()))
        self.noteStack.setCurrentIndex(1 if on else 0)
        self.previewButton.setChecked(on)


HIGHLIGHTS_TAB, GROUP_TAB = 1, 3

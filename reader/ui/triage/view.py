"""The triage view: one paper at a time, big abstract, keys for every decision, progress and summary."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QKeyEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from reader.text import title_plain
from reader.triage.cards import Card
from reader.triage.queue import ORDER_LABELS, ORDERS

from ..paper.tag_editor import TagEditor
from ..widgets.links import link_line
from ..widgets.plain import LiveLabel, plain_label, set_tip

COLUMN_WIDTH = 880  # a comfortable line length for the abstract
ABSTRACT_SCALE = 1.3
NOTE_LINES = 4
STAR_COLOUR = "#e3a008"  # amber: reads on the light and the dark palette
# Keys without modifiers, as the commands the controller runs.
KEY_COMMANDS = {
    Qt.Key.Key_J: "next", Qt.Key.Key_K: "previous", Qt.Key.Key_S: "star", Qt.Key.Key_X: "skip",
    Qt.Key.Key_T: "tag", Qt.Key.Key_N: "note", Qt.Key.Key_O: "open", Qt.Key.Key_U: "undo",
    Qt.Key.Key_R: "read", Qt.Key.Key_Escape: "back",
}
DIGITS = {getattr(Qt.Key, f"Key_{n}"): n for n in range(1, 10)}
KEYS_HINT = ("J/K next/previous · S star · X not for me · T tag · N note · 1–9 tags · "
             "O open link · U undo · R read · Esc library")


def _name(widget: QWidget, name: str, accessible: str) -> None:
    widget.setObjectName(name)
    widget.setAccessibleName(accessible)


def _live(parent: QWidget, name: str, role: str, text: str = "", *, rich: bool = False) -> LiveLabel:
    """A label read as its text (a screen reader heard "Title", never the title), `role` its description."""
    label = LiveLabel(role, parent, rich=rich)
    label.setObjectName(name)
    if text:
        label.setText(text)
    return label


def is_dark(widget: QWidget) -> bool:
    return widget.palette().color(QPalette.ColorRole.Window).lightness() < 128


class TriageView(QWidget):
    """Shows cards and turns keys into `command` signals; holds no queue logic itself."""

    command = Signal(str)  # next, previous, star, skip, tag, note, open, undo, read, back, tag:N
    orderChanged = Signal(str)
    markReadChanged = Signal(bool)
    noteEdited = Signal(str)  # the note field's text, as typed
    noteDone = Signal()  # Esc in the note field: save now, back to the keys
    tagAdded = Signal(str)
    tagRemoved = Signal(str)
    linkActivated = Signal(str)
    exportRequested = Signal()
    vaultRequested = Signal()
    themeChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        _name(self, "triageView", "Triage")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.card: Card | None = None
        self._html = ""
        self._loading = False

        self.queueLabel = _live(self, "triageQueueLabel", "Queue")
        self.orderCombo = QComboBox(self)
        _name(self.orderCombo, "triageQueueOrder", "Queue order")
        for key in ORDERS:
            self.orderCombo.addItem(ORDER_LABELS[key], key)
        self.orderCombo.setToolTip("The order of the papers still to come")
        self.orderCombo.currentIndexChanged.connect(self._order_picked)
        self.markReadCheck = QCheckBox("Mark read when moving on", self)
        _name(self.markReadCheck, "triageMarkRead", "Mark read when moving on")
        self.markReadCheck.toggled.connect(self._mark_read_toggled)
        self.backButton = QPushButton("Library (Esc)", self)
        _name(self.backButton, "triageBack", "Back to the library")
        self.backButton.clicked.connect(lambda: self.command.emit("back"))
        top = QHBoxLayout()
        top.addWidget(self.queueLabel, 1)
        order_label = QLabel("&Order:", self)
        order_label.setBuddy(self.orderCombo)
        top.addWidget(order_label)
        top.addWidget(self.orderCombo)
        top.addSpacing(12)
        top.addWidget(self.markReadCheck)
        top.addSpacing(12)
        top.addWidget(self.backButton)

        self.progressBar = QProgressBar(self)
        _name(self.progressBar, "triageProgress", "Triage progress")
        self.progressBar.setTextVisible(False)
        self.progressBar.setFixedHeight(8)
        self.progressText = _live(self, "triageProgressText", "Progress")

        paper_page = self._build_paper_page()
        summary_page = self._build_summary_page()

        self.pages = QStackedWidget(self)
        _name(self.pages, "triagePages", "Triage pages")
        self.pages.addWidget(paper_page)
        self.pages.addWidget(summary_page)

        self.legendLabel = _live(self, "triageTagLegend", "Tag keys", rich=True)
        self.legendLabel.setTextFormat(Qt.TextFormat.RichText)
        self.legendLabel.setWordWrap(True)
        self.keysLabel = _live(self, "triageKeys", "Keys", KEYS_HINT)
        self.keysLabel.setWordWrap(True)
        self.keysLabel.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # follows the theme

        # The view's rows live in a body it sizes itself (resizeEvent): a card's new title, meta or
        # why-line relays the body out, and stops there. With the rows in the view's own layout,
        # each card relaid the whole window out (the library page's sidebar and table, the status
        # bar) for a change that cannot move anything outside the view.
        self._body = QWidget(self)
        self._body.setObjectName("triageBody")
        self._minimum = QSize(0, 0)  # the largest minimum the body asked for: the window's floor
        layout = QVBoxLayout(self._body)
        layout.setContentsMargins(16, 10, 16, 10)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.progressBar)
        layout.addWidget(self.progressText)
        layout.addWidget(self.pages, 1)
        self._column.addWidget(self.legendLabel)  # under the note, where the eyes are
        self._column.addWidget(self.keysLabel)
        self._column.addStretch(0)  # what the abstract does not need stays under the card and its keys

        for w in [self, *self.findChildren(QWidget)]:
            w.installEventFilter(self)
        self.show_message("Loading the queue…")
        self._minimum = self._body.minimumSizeHint()

    # -- size: the body's, without relaying the window out for each card ---------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        self._body.setGeometry(self.rect())
        super().resizeEvent(event)

    def sizeHint(self) -> QSize:
        return self._body.sizeHint()

    def minimumSizeHint(self) -> QSize:
        return self._minimum

    def event(self, event: QEvent) -> bool:
        """The body was relaid out (a card shown): the window hears of it only when the body
        needs more room than it ever asked for (once per longer title, not per card)."""
        if event.type() == QEvent.Type.LayoutRequest:
            grown = self._minimum.expandedTo(self._body.minimumSizeHint())
            if grown != self._minimum:
                self._minimum = grown
                self.updateGeometry()
        return super().event(event)

    # -- construction (one method a page) ----------------------------------------------------
    def _build_paper_page(self) -> QWidget:
        """The paper page: star, title, meta, tags, the abstract, links and the note."""
        self.starLabel = plain_label(QLabel(self))
        _name(self.starLabel, "triageStar", "Starred")
        self.titleLabel = _live(self, "triageTitle", "Title")
        self.titleLabel.setWordWrap(True)
        self.titleLabel.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        title_font = QFont(self.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.45)
        title_font.setBold(True)
        self.titleLabel.setFont(title_font)
        self.starLabel.setFont(title_font)
        self.metaLabel = _live(self, "triageMeta", "Venue, year, method and authors")
        self.metaLabel.setWordWrap(True)
        self.metaLabel.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.whyLabel = _live(self, "triageWhy", "Why this paper")
        self.whyLabel.setWordWrap(True)
        self.whyLabel.setToolTip("Why best first put this paper here: the starred or tagged papers it is most "
                                 "like, and the words that weighed most")
        why_font = QFont(self.font())
        why_font.setItalic(True)
        self.whyLabel.setFont(why_font)
        self.whyLabel.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # follows the theme
        self.whyLabel.hide()
        self.skippedLabel = _live(self, "triageSkipped", "Not for me", "Not for me (X) — U undoes it")
        self.skippedLabel.hide()
        self.tagEditor = TagEditor(self)
        _name(self.tagEditor, "triageTags", "Tags")
        self.tagEditor.input.setAccessibleName("Add tag")
        self.tagEditor.tagAdded.connect(self.tagAdded)
        self.tagEditor.tagRemoved.connect(self.tagRemoved)
        self.abstractView = QTextBrowser(self)
        _name(self.abstractView, "triageAbstract", "Abstract")
        self.abstractView.setOpenLinks(False)
        self.abstractView.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.abstractView.anchorClicked.connect(lambda url: self.linkActivated.emit(url.toString()))
        self.abstractView.setFrameShape(QTextBrowser.Shape.NoFrame)
        abstract_font = QFont(self.font())
        abstract_font.setPointSizeF(abstract_font.pointSizeF() * ABSTRACT_SCALE)
        self.abstractView.setFont(abstract_font)
        self.abstractView.document().setDocumentMargin(4)
        self.abstractView.setLineWrapMode(QTextBrowser.LineWrapMode.FixedPixelWidth)
        self.abstractView.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._wrap_abstract()
        # As tall as its text, up to the room there is (then it scrolls): stretched to the
        # window, a short abstract left ~350 px of empty white under it at 1600 x 1000.
        self.abstractView.document().documentLayout().documentSizeChanged.connect(self._fit_abstract)
        self.linksLabel = _live(self, "triageLinks", "Links", rich=True)
        self.linksLabel.setTextFormat(Qt.TextFormat.RichText)
        self.linksLabel.setWordWrap(True)
        self.linksLabel.linkActivated.connect(self.linkActivated)
        self.noteEdit = QPlainTextEdit(self)
        _name(self.noteEdit, "triageNote", "Note")
        self.noteEdit.setPlaceholderText("N to write a note (Markdown), Esc to return to the keys")
        self.noteEdit.setTabChangesFocus(True)
        self.noteEdit.setFixedHeight(self.noteEdit.fontMetrics().lineSpacing() * NOTE_LINES + 14)
        self.noteEdit.textChanged.connect(self._note_changed)

        title_row = QHBoxLayout()
        title_row.addWidget(self.starLabel, 0, Qt.AlignmentFlag.AlignTop)
        title_row.addWidget(self.titleLabel, 1)
        column = QWidget(self)
        column.setMaximumWidth(COLUMN_WIDTH)
        col = QVBoxLayout(column)
        col.setContentsMargins(0, 8, 0, 0)
        col.setSpacing(8)
        col.addLayout(title_row)
        col.addWidget(self.metaLabel)
        col.addWidget(self.whyLabel)
        col.addWidget(self.skippedLabel)
        col.addWidget(self.tagEditor)
        col.addWidget(self.abstractView, 1)
        col.addWidget(self.linksLabel)
        col.addWidget(self.noteEdit)
        self._column = col
        paper_page = QWidget(self)
        centered = QHBoxLayout(paper_page)
        centered.setContentsMargins(0, 0, 0, 0)
        centered.addStretch(1)
        centered.addWidget(column, 100)
        centered.addStretch(1)
        return paper_page

    def _wrap_abstract(self) -> None:
        """The abstract's lines wrap beside a scroll bar's room whether one shows or not (set on
        each resize): the text is laid out once per card, at one width."""
        view = self.abstractView
        width = max(view.width() - view.verticalScrollBar().sizeHint().width(), 40)
        if width != view.lineWrapColumnOrWidth():
            view.setLineWrapColumnOrWidth(width)

    def _fit_abstract(self) -> None:
        """The abstract's most height: its text's, laid out beside a scroll bar's room, so a
        view that showed the bar still fits the text and drops it. (A copy of the document laid
        out again at that width for each size change cost ~5 ms, several times per card.)"""
        view = self.abstractView
        height = int(view.document().size().height()) + 2
        if height != view.maximumHeight():
            view.setMaximumHeight(height)

    def _build_summary_page(self) -> QWidget:
        """The end-of-queue page: what was done, and what to do with the starred papers."""
        self.summaryTitle = plain_label(QLabel("Queue done", self))
        _name(self.summaryTitle, "triageSummaryTitle", "Queue done")
        self.summaryTitle.setFont(self.titleLabel.font())
        self.summaryText = _live(self, "triageSummary", "Summary")
        self.summaryText.setWordWrap(True)
        self.exportButton = QPushButton("Export starred as reading list", self)
        _name(self.exportButton, "triageExportStarred", "Export starred as reading list")
        self.exportButton.clicked.connect(self.exportRequested)
        self.vaultButton = QPushButton("Open vault", self)
        _name(self.vaultButton, "triageOpenVault", "Open vault")
        self.vaultButton.clicked.connect(self.vaultRequested)
        summary_buttons = QHBoxLayout()
        summary_buttons.addWidget(self.exportButton)
        summary_buttons.addWidget(self.vaultButton)
        summary_buttons.addStretch(1)
        summary_column = QWidget(self)
        summary_column.setMaximumWidth(COLUMN_WIDTH)
        summary = QVBoxLayout(summary_column)
        summary.addStretch(1)
        summary.addWidget(self.summaryTitle)
        summary.addWidget(self.summaryText)
        summary.addWidget(plain_label(QLabel("K goes back to the last paper, Esc to the library.", self)))
        summary.addLayout(summary_buttons)
        summary.addStretch(2)
        summary_page = QWidget(self)
        summary_centered = QHBoxLayout(summary_page)
        summary_centered.addStretch(1)
        summary_centered.addWidget(summary_column, 100)
        summary_centered.addStretch(1)
        return summary_page

    # -- showing ---------------------------------------------------------------------------
    def restyle(self) -> None:
        """After a theme change: the next `show_card` renders the abstract and the links again
        (Qt resolves a link's colour when the rich text is set, so old text keeps the old theme's)."""
        self._html = ""
        self.linksLabel.clear()

    def show_card(self, card: Card | None) -> None:
        """Put `card` on screen (the abstract's HTML is already rendered)."""
        same = card is not None and self.card is not None and card.id == self.card.id
        self.card = card
        self.pages.setCurrentIndex(0)
        self._loading = True
        try:
            if card is None:
                self.titleLabel.clear()
                self.metaLabel.clear()
                self.abstractView.clear()
                self._html = ""
                self.linksLabel.clear()
                self.tagEditor.set_tags([])
                self.noteEdit.clear()
                self.starLabel.clear()
                return
            self.titleLabel.setText(title_plain(card.title))  # math and symbols as the abstract shows them
            self.metaLabel.setText(card.meta)
            self.show_flags(card)
            if not same or card.html != self._html:  # a refetch or a theme change re-renders
                self._html = card.html
                self.abstractView.setHtml(card.html)
            if not same:
                self.noteEdit.setPlainText(card.note)
            elif not self.noteEdit.hasFocus() and self.noteEdit.toPlainText() != card.note:
                self.noteEdit.setPlainText(card.note)
            links = link_line(card.links[:6], self.linksLabel.fontMetrics(), self.linksLabel.width())
            if self.linksLabel.text() != links:  # (a rich label parses its text, and its name, on every setText)
                self.linksLabel.setText(links)
            self.linksLabel.setVisible(bool(card.links))
        finally:
            self._loading = False

    def show_flags(self, card: Card) -> None:
        """Star, read state and tags of the card on screen (after a decision, without re-rendering)."""
        mark = "★" if card.starred else "☆"
        if self.starLabel.text() != mark:  # set only when it changes, as every label of the card
            self.starLabel.setText(mark)
            self.starLabel.setStyleSheet(f"color: {STAR_COLOUR}" if card.starred else "")
            self.starLabel.setAccessibleName("Starred" if card.starred else "Not starred")
            self.starLabel.setToolTip("Starred (S)" if card.starred else "Not starred (S)")
        self.skippedLabel.setVisible(card.skipped)
        if self.tagEditor.set_tags(card.tags):  # (nothing done for the same tags)
            for chip in self.tagEditor.findChildren(QToolButton):
                chip.installEventFilter(self)  # new chips too: a clicked chip must not hand J/K to the table

    def show_why(self, text: str) -> None:
        """The card's why-line ("like “A” you starred · graph, molecule"); hidden when empty."""
        self.whyLabel.setText(f"Why: {text}" if text else "")
        self.whyLabel.setVisible(bool(text))

    def show_message(self, text: str) -> None:
        self.card = None
        self.show_why("")
        self.skippedLabel.hide()
        self.pages.setCurrentIndex(0)
        self.titleLabel.setText(text)
        for w in (self.metaLabel, self.abstractView, self.linksLabel, self.starLabel):
            w.clear()
        self._html = ""

    def show_summary(self, text: str, can_export: bool) -> None:
        self.summaryText.setText(text)
        self.exportButton.setEnabled(can_export)
        self.pages.setCurrentIndex(1)

    def set_progress(self, done: int, total: int, text: str) -> None:
        self.progressBar.setRange(0, max(total, 1))
        self.progressBar.setValue(min(done, total))
        self.progressText.setText(text)

    def set_queue(self, label: str, order: str, mark_read: bool) -> None:
        self._loading = True
        try:
            self.queueLabel.setText(label)
            self.orderCombo.setCurrentIndex(max(ORDERS.index(order) if order in ORDERS else 0, 0))
            self.markReadCheck.setChecked(mark_read)
        finally:
            self._loading = False

    def set_legend(self, tags: list[str], on: list[str]) -> None:
        applied = {t.casefold() for t in on}
        parts = []
        for n, tag in enumerate(tags, 1):
            name = html.escape(tag)
            if tag.casefold() in applied:
                name = f"<b><u>{name}</u></b>"
            parts.append(f"<b>{n}</b>&nbsp;{name}")
        text = ("Tags: " + " &nbsp;·&nbsp; ".join(parts) if parts else
                "Tags: none yet — T adds one; your nine most used get the keys 1–9")
        if self.legendLabel.text() == text:
            return  # the same legend as the last card's: no new parse, no relayout
        self.legendLabel.setText(text)
        set_tip(self.legendLabel, "Press the digit to toggle the tag on this paper")

    def focus_keys(self) -> None:
        self.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_note(self) -> None:
        self.noteEdit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.noteEdit.moveCursor(self.noteEdit.textCursor().MoveOperation.End)

    def focus_tag_input(self) -> None:
        self.tagEditor.input.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _mark_read_toggled(self, on: bool) -> None:
        if not self._loading:
            self.markReadChanged.emit(on)

    def _note_changed(self) -> None:
        if not self._loading:
            self.noteEdited.emit(self.noteEdit.toPlainText())

    def _order_picked(self, index: int) -> None:
        if not self._loading and index >= 0:
            self.orderChanged.emit(str(self.orderCombo.itemData(index)))

    # -- keys --------------------------------------------------------------------------------
    def _is_text(self, widget: QObject) -> bool:
        return widget in (self.noteEdit, self.tagEditor.input)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            if watched is self.abstractView and kind == QEvent.Type.Resize:
                self._wrap_abstract()
            if watched is self and kind in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
                QTimer.singleShot(0, self.themeChanged.emit)
            return False
        assert isinstance(event, QKeyEvent)
        key = Qt.Key(event.key())
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if self._is_text(watched):
            if key == Qt.Key.Key_Escape:
                if kind == QEvent.Type.ShortcutOverride:
                    event.accept()  # the window's Esc must not fire: leave the field instead
                    return True
                if watched is self.noteEdit:
                    self.noteDone.emit()
                else:
                    self.tagEditor.input.clear()
                self.focus_keys()
                return True
            if watched is self.tagEditor.input and kind == QEvent.Type.KeyPress and key in (
                    Qt.Key.Key_Return, Qt.Key.Key_Enter) and not self.tagEditor.input.text().strip():
                self.focus_keys()  # Enter on an empty tag field: back to the keys
                return True
            return False
        if mods not in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier):
            return False  # Ctrl+Z, Ctrl+T, Ctrl+Q… stay the window's
        command = KEY_COMMANDS.get(key)
        if command is None and key in DIGITS:
            command = f"tag:{DIGITS[key]}"
        letter = Qt.Key.Key_A <= key <= Qt.Key.Key_Z or key in (Qt.Key.Key_Slash, Qt.Key.Key_Delete)
        if command is None and not letter:
            return False  # arrows, Tab, Space… keep their usual meaning in the focused control
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # ours, not the library's single-letter actions (which act on the table)
            return True
        # Held keys repeat only moves: a held S must not flip the star back and forth.
        if command is not None and (command in ("next", "previous") or not event.isAutoRepeat()):
            self.command.emit(command)
        return True



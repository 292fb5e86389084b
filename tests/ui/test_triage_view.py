"""Triage mode driven by the keyboard on the seeds: decisions, undo, resume after restart, Esc."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QWidget,
)

from reader.library import Library, View
from reader.ui.list.model import COL_TAGS
from reader.ui.operations import papers
from reader.ui.triage import summary as triage_summary
from reader.ui.triage.controller import TriageController, install_triage
from reader.ui.window.main_window import MainWindow

from .helpers import key

K = Qt.Key


def press(qtbot, ctl: TriageController, key: Qt.Key) -> None:
    qtbot.keyClick(ctl.view.focusWidget() or ctl.view, key)


def open_triage(qtbot, window: MainWindow) -> TriageController:
    ctl = install_triage(window)
    key(qtbot, window.table, K.Key_T, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: ctl.active and ctl.view.card is not None)
    return ctl


def settle(qtbot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: not window.runner.busy)
    qtbot.wait(50)
    qtbot.waitUntil(lambda: not window.runner.busy)


def states(library: Library) -> dict[str, set[str]]:
    return {
        "starred": set(library.paper_ids(View("starred"))),
        "read": set(library.paper_ids(View("read"))),
        "beta": set(library.paper_ids(View("tag", "beta"))),
        "notes": set(library.paper_ids(View("notes"))),
    }


def test_object_and_accessible_names(qtbot, window: MainWindow) -> None:
    ctl = open_triage(qtbot, window)
    for name in ("triageView", "triageAbstract", "triageProgress", "triageQueueOrder", "triageTagLegend"):
        found = window.findChild(QWidget, name)
        assert found is not None and found.accessibleName(), name
    controls = (QPushButton, QComboBox, QCheckBox, QPlainTextEdit, QTextBrowser, QProgressBar, QLineEdit)
    unnamed = [w.objectName() or type(w).__name__ for w in ctl.view.findChildren(QWidget)
               if isinstance(w, controls) and w.objectName() != "tagChip" and not w.accessibleName()]
    assert unnamed == []

    opened: list[str] = []
    window.open_link = lambda url: opened.append(url.toString()) or True  # type: ignore[method-assign]
    q = ctl.queue
    assert q is not None
    with_link = next(pid for pid in q.ids if getattr(window.library.paper(pid), "code_links", None))
    while q.current != with_link:
        press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_O)  # the seeds have no paper page: the code link
    paper = window.library.paper(with_link)
    assert paper is not None and opened == [(paper.links or paper.code_links)[0]]


def test_triage_by_keyboard_undo_resume_and_back(qtbot, window: MainWindow, library: Library,
                                                 data_dir: Path) -> None:
    listed = list(window.model.ids())
    papers.add_tags(window.ops, listed[20:24], ["alpha"])
    papers.add_tags(window.ops, listed[20:22], ["beta"])
    settle(qtbot, window)
    before = states(library)
    ctl = open_triage(qtbot, window)
    assert ctl.legend[:2] == ["alpha", "beta"]  # most used first
    assert "1" in ctl.view.legendLabel.text() and "beta" in ctl.view.legendLabel.text()
    q = ctl.queue
    tagged = set(listed[20:24])  # decided (tagged): left out of the queue
    assert q is not None and q.ids == [p for p in listed if p not in tagged]  # "as listed": the table's order
    assert ctl.view.abstractView.toPlainText().strip()
    assert ctl.view.progressText.text().startswith("1 / 52 · 0 starred")

    press(qtbot, ctl, K.Key_S)  # star p0 (stays on it)
    assert q.current == listed[0] and ctl.view.starLabel.text() == "★"
    press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_S)  # star p1
    press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_X)  # skip p2
    press(qtbot, ctl, K.Key_X)  # skip p3
    assert q.current == listed[4]
    press(qtbot, ctl, K.Key_2)  # tag p4 with the second most used tag
    press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_N)  # note on p5
    assert ctl.view.noteEdit.hasFocus()
    qtbot.keyClicks(ctl.view.noteEdit, "Just a note")  # J, S, X typed here do not leave the paper
    press(qtbot, ctl, K.Key_Escape)
    assert ctl.active and ctl.view.hasFocus() and q.current == listed[5]
    press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_S)  # star p6
    assert ctl.view.progressText.text().startswith("7 / 52 · 3 starred")
    qtbot.waitUntil(lambda: listed[6] in states(library)["starred"])
    settle(qtbot, window)

    after = states(library)
    assert after["starred"] - before["starred"] == {listed[0], listed[1], listed[6]}
    assert after["read"] - before["read"] == set(listed[:6])  # every paper moved past, p6 still on screen
    assert after["beta"] - before["beta"] == {listed[4]}
    assert after["notes"] == {listed[5]}
    assert library.paper(listed[5]).note == "Just a note"
    assert window.status.countsLabel.text() == "56 papers · 3 starred · 6/56 read"
    row = window.model.row_of(listed[4])
    assert "beta" in str(window.model.index(row, COL_TAGS).data())

    press(qtbot, ctl, K.Key_U)  # undo the last decision: the star of p6
    qtbot.waitUntil(lambda: listed[6] not in states(library)["starred"])
    settle(qtbot, window)
    assert states(library)["starred"] - before["starred"] == {listed[0], listed[1]}
    assert q.current == listed[6] and ctl.view.starLabel.text() == "☆"
    press(qtbot, ctl, K.Key_U)  # then moving on from p5 (which marked it read): back on that paper
    qtbot.waitUntil(lambda: listed[5] not in states(library)["read"])
    qtbot.waitUntil(lambda: q.current == listed[5])
    press(qtbot, ctl, K.Key_U)  # then its note
    qtbot.waitUntil(lambda: not library.paper(listed[5]).note)
    qtbot.waitUntil(lambda: ctl.view.noteEdit.toPlainText() == "")

    press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_J)  # on p8
    assert q.current == listed[8]
    window.close()
    library.close()

    lib2 = Library.open(data_dir)
    try:
        w2 = MainWindow(lib2, theme="light")
        qtbot.addWidget(w2)
        w2.show()
        qtbot.waitExposed(w2)
        ctl2 = install_triage(w2)  # triage was on screen at quit: it comes back, same queue and paper
        qtbot.waitUntil(lambda: ctl2.active and ctl2.view.card is not None)
        assert ctl2.queue is not None and ctl2.queue.current == listed[8]
        assert ctl2.queue.ids[:9] == listed[:9] and ctl2.queue.seen == 9
        assert ctl2.view.progressText.text().startswith("9 / 52")  # the seen nine, then the 43 still to decide
        assert set(lib2.paper_ids(View("read"))) - before["read"] == set(listed[:8])  # marks flushed on quit

        press(qtbot, ctl2, K.Key_Escape)  # back to the library, on the paper that was on screen
        assert not ctl2.active
        qtbot.waitUntil(lambda: w2.current_id() == listed[8])
        qtbot.waitUntil(lambda: w2.pane.paper_id == listed[8])  # read on a worker (pane_reads)
        assert w2.selected_ids() == [listed[8]]

        key(qtbot, w2.table, K.Key_T, Qt.KeyboardModifier.ControlModifier)  # same list: resumes
        qtbot.waitUntil(lambda: ctl2.active and ctl2.view.card is not None)
        assert ctl2.queue is not None and ctl2.queue.current == listed[8]
        w2.close()
    finally:
        lib2.close()


def test_end_of_queue_summary_and_export(qtbot, window: MainWindow, library: Library, tmp_path: Path) -> None:
    window.searchBox.setText("has:note")
    for pid in list(window.model.ids())[:3]:  # notes are no decision: the three are still to decide
        library.set_note(pid, "to look at")
    settle(qtbot, window)
    window.refresh_list()
    qtbot.waitUntil(lambda: window.model.rowCount() == 3)
    ctl = open_triage(qtbot, window)
    assert ctl.queue is not None and len(ctl.queue) == 3
    press(qtbot, ctl, K.Key_S)
    for _ in range(3):
        press(qtbot, ctl, K.Key_J)
    assert ctl.queue.finished
    qtbot.waitUntil(lambda: "3 read" in ctl.view.summaryText.text())
    assert ctl.view.summaryText.text() == "3 papers · 3 read · 1 starred · 0 tagged · 3 with notes"
    assert ctl.view.exportButton.isEnabled()
    assert not ctl.view.vaultButton.isHidden()  # the window offers its Markdown vault
    ctl.view.vaultButton.click()  # none is set yet: the vault dialog asks for a folder
    assert window.vault_sync.dialog is not None and window.vault_sync.dialog.isVisible()
    window.vault_sync.dialog.reject()
    out = tmp_path / "starred.md"
    triage_summary.export_starred(ctl, out)
    qtbot.waitUntil(out.exists)
    assert library.paper(ctl.queue.ids[0]).title in out.read_text(encoding="utf-8")
    press(qtbot, ctl, K.Key_K)  # back from the summary to the last paper
    assert ctl.view.card is not None and ctl.view.card.id == ctl.queue.ids[-1]


def test_mark_read_setting_off_and_order_change(qtbot, window: MainWindow, library: Library) -> None:
    ctl = open_triage(qtbot, window)
    ctl.view.markReadCheck.setChecked(False)
    press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_J)
    settle(qtbot, window)
    assert library.paper_ids(View("read")) == []
    q = ctl.queue
    assert q is not None
    first_three = q.ids[:3]
    papers.set_read(window.ops, q.ids[10:], True)  # only 3..9 stay unread among the unseen
    settle(qtbot, window)
    ctl.view.orderCombo.setCurrentIndex(1)  # unread first
    qtbot.waitUntil(lambda: q.order == "unread_first" and set(q.ids[3:10]) == set(ctl.listed[3:10]))
    assert q.ids[:3] == first_three and q.current == first_three[2]  # the seen papers did not move


def test_x_is_not_for_me_stored_and_undone(qtbot, window: MainWindow, library: Library) -> None:
    ctl = open_triage(qtbot, window)
    q = ctl.queue
    assert q is not None
    first = q.current
    press(qtbot, ctl, K.Key_X)  # not for me: stored, read, and on to the next paper
    assert q.current != first
    qtbot.waitUntil(lambda: library.paper(first).skipped)
    settle(qtbot, window)
    assert library.paper(first).read
    assert library.search("is:skipped").ids == [first]
    press(qtbot, ctl, K.Key_K)  # back on it: the card says so
    assert q.current == first and ctl.view.skippedLabel.isVisibleTo(ctl.view)
    press(qtbot, ctl, K.Key_U)  # undo: neither skipped nor read any more
    qtbot.waitUntil(lambda: not library.paper(first).skipped)
    settle(qtbot, window)
    assert not library.paper(first).read and library.search("is:skipped").ids == []


def _best_first_after_a_star(qtbot, window: MainWindow):
    """Triage in best-first order, the first paper starred and left, the learned ranking in."""
    ctl = open_triage(qtbot, window)
    q = ctl.queue
    assert q is not None
    ctl.view.orderCombo.setCurrentIndex(2)  # best first
    qtbot.waitUntil(lambda: q.order == "best_first")
    press(qtbot, ctl, K.Key_S)
    starred = q.current
    press(qtbot, ctl, K.Key_J)
    qtbot.waitUntil(lambda: ctl.ranking.learned_ranks > 0)
    settle(qtbot, window)
    return ctl, starred


def test_best_first_learns_and_says_why(qtbot, window: MainWindow, library: Library) -> None:
    ctl, starred = _best_first_after_a_star(qtbot, window)
    press(qtbot, ctl, K.Key_J)  # a paper placed by the learned ranking
    title = library.paper(starred).title
    assert ctl.view.whyLabel.isVisibleTo(ctl.view)
    assert "you starred" in ctl.view.whyLabel.text() and title[:20] in ctl.view.whyLabel.text()


def test_asked_card_says_so_and_a_theme_change_renders_the_card_again(qtbot, window: MainWindow,
                                                                       library: Library) -> None:
    from reader.triage.interests import ASKED
    from reader.ui.triage.rank import ASK_EVERY_KEY

    window.app_settings.setValue(ASK_EVERY_KEY, 2)
    try:
        ctl, _ = _best_first_after_a_star(qtbot, window)
        press(qtbot, ctl, K.Key_X)  # a skip: now the model has a boundary to be unsure about
        settle(qtbot, window)
        lines = []
        for _ in range(4):
            lines.append(ctl.view.whyLabel.text())
            press(qtbot, ctl, K.Key_J)
            settle(qtbot, window)
        assert any(line.startswith(f"Why: {ASKED}") for line in lines), lines
    finally:
        window.app_settings.remove(ASK_EVERY_KEY)
    set_html: list[str] = []
    original = ctl.view.abstractView.setHtml
    ctl.view.abstractView.setHtml = lambda text: (set_html.append(text), original(text))  # type: ignore[method-assign]
    window.apply_theme("dark")
    qtbot.waitUntil(lambda: bool(set_html))  # the same card, rendered in the new theme's links
    window.apply_theme("light")


def test_a_closed_windows_triage_reads_nothing_on_a_theme_change(qtbot, window: MainWindow, library: Library,
                                                                  monkeypatch) -> None:
    # Another window's theme switch repaints every window: a closed one's library may be closed.
    open_triage(qtbot, window)
    settle(qtbot, window)
    window.close()
    reads: list[object] = []
    monkeypatch.setattr(library, "papers", lambda *a, **k: reads.append(a) or [])
    try:
        window.apply_theme("dark")
        qtbot.wait(200)
    finally:
        window.apply_theme("light")
    qtbot.wait(100)
    assert not reads


def test_moving_on_past_the_ranked_why_lines_ranks_again_for_the_next(qtbot, window: MainWindow,
                                                                      library: Library) -> None:
    from reader.triage.best import WHY_AHEAD

    ctl, _starred = _best_first_after_a_star(qtbot, window)
    for _ in range(WHY_AHEAD + 4):  # J past every paper the first ranking gave a why-line
        press(qtbot, ctl, K.Key_J)
        settle(qtbot, window)
    q = ctl.queue
    assert q is not None and q.position > WHY_AHEAD + 2
    assert ctl.view.whyLabel.isVisibleTo(ctl.view) and "you starred" in ctl.view.whyLabel.text()


def test_a_queue_leaves_out_the_papers_decided_already(qtbot, window: MainWindow, library: Library) -> None:
    """Best first re-entered on the same map selection showed the papers starred and tagged on
    it first and counted them ("1 / 327"), while `reader triage next` left them out: one
    definition (triage.source.still_to_decide) for every queue."""
    from reader.triage.source import still_to_decide

    listed = list(window.model.ids())
    chosen = listed[10:22]
    papers.set_starred(window.ops, [chosen[0]], True)
    papers.add_tags(window.ops, [chosen[1]], ["rl"])
    papers.set_skipped(window.ops, [chosen[2]], True)
    papers.set_read(window.ops, [chosen[3]], True)
    settle(qtbot, window)
    ctl = install_triage(window)
    ctl.open(chosen)  # the map's Triage on its selection
    qtbot.waitUntil(lambda: ctl.active and ctl.view.card is not None)
    q = ctl.queue
    assert q is not None and q.ids == chosen[4:] == still_to_decide(library, chosen)
    assert ctl.view.progressText.text().startswith("1 / 8")
    ctl.view.orderCombo.setCurrentIndex(2)  # best first: the starred and tagged ones are not ranked in
    qtbot.waitUntil(lambda: q.order == "best_first")
    settle(qtbot, window)
    assert set(q.ids) == set(chosen[4:])
    press(qtbot, ctl, K.Key_Escape)
    others = listed[30:33]
    papers.set_starred(window.ops, others, True)  # a selection all decided: the queue says so
    settle(qtbot, window)
    ctl.open(others)
    qtbot.waitUntil(lambda: ctl.active and ctl.queue is not None and not len(ctl.queue))
    assert "Nothing left to decide" in ctl.view.titleLabel.text()


def test_the_first_card_gets_its_why_line(qtbot, window: MainWindow, library: Library) -> None:
    """The first card is on screen before the first ranking is in (it is seen, so never ranked
    again): it had no why-line for the whole visit."""
    listed = list(window.model.ids())
    papers.set_starred(window.ops, listed[30:32], True)
    settle(qtbot, window)
    ctl = open_triage(qtbot, window)
    q = ctl.queue
    assert q is not None
    ctl.view.orderCombo.setCurrentIndex(2)  # best first
    qtbot.waitUntil(lambda: q.order == "best_first")
    qtbot.waitUntil(lambda: ctl.ranking.learned_ranks > 0)
    settle(qtbot, window)
    assert q.position == 0 and q.current == listed[0]
    assert ctl.view.whyLabel.isVisibleTo(ctl.view) and "you starred" in ctl.view.whyLabel.text()

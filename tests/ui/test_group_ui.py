"""The reading group in the window (issue 29): the list's "Group ★" column with initials, the
pane's Group tab with shared notes, the sidebar's group views, divide on a selection, the dialog."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from reader.group import Group
from reader.library import Library
from reader.ui.list.model import COL_GROUP
from reader.ui.list.sidebar import GROUP_SECTION
from reader.ui.paper.pane import GROUP_TAB

from .helpers import shown


@pytest.fixture
def bob(tmp_path):
    lib = Library.open(tmp_path / "bob-lib")
    yield lib
    lib.close()


def _joined(qtbot, window, bob, tmp_path, *, share_notes=True):
    shared = tmp_path / "shared"
    shared.mkdir()
    gb = Group(bob)
    gb.join(shared, "Bob Stone", share_notes=share_notes)
    syncs = window.group_sync.syncs
    window.group_sync.join(shared, "ada")
    qtbot.waitUntil(lambda: window.group_sync.syncs > syncs)
    return shared, gb


def _sync_window(qtbot, window):
    syncs = window.group_sync.syncs
    window.group_sync.sync_now()
    qtbot.waitUntil(lambda: window.group_sync.syncs > syncs and not window.runner.busy)


def test_the_column_shows_who_starred_and_the_pane_their_notes(qtbot, window, bob, tmp_path):
    _shared, gb = _joined(qtbot, window, bob, tmp_path)
    pid = window.model.id_at(0)
    bob.set_starred([pid], True)
    bob.set_note(pid, "Read <b>this</b> first")
    gb.sync()
    _sync_window(qtbot, window)
    row = window.model.row_of(pid)
    qtbot.waitUntil(lambda: window.model.index(row, COL_GROUP).data() == "BS")
    assert window.model.index(row, COL_GROUP).data(Qt.ItemDataRole.ToolTipRole) == "Starred by Bob Stone"
    assert window.model.headerData(COL_GROUP, Qt.Orientation.Horizontal, Qt.ItemDataRole.AccessibleTextRole) \
        == "Starred by the group"
    qtbot.waitUntil(lambda: not window.table.horizontalHeader().isSectionHidden(COL_GROUP))  # content brings it in
    window.load_paper(pid)
    shown(qtbot, window, pid)
    pane = window.pane
    assert pane.tabs.isTabVisible(GROUP_TAB) and pane.tabs.tabText(GROUP_TAB) == "Group ★1"
    text = pane.groupView.toPlainText()
    assert "Bob Stone: ★ starred" in text and "Note by Bob Stone (read-only)" in text
    assert "Read <b>this</b> first" in text  # escaped, never markup
    assert pane.groupView.isReadOnly()


def test_sidebar_group_views_list_agreement_and_each_member(qtbot, window, bob, tmp_path):
    assert window.sidebar.hint(GROUP_SECTION) == "File → Reading group…"  # fits the sidebar unelided
    _shared, gb = _joined(qtbot, window, bob, tmp_path)
    ids = window.model.ids()[:3]
    bob.set_starred(ids[:2], True)
    gb.sync()
    window.library.set_starred(ids[:1], True)
    window.library.set_skipped(ids[1:2], True)
    qtbot.waitUntil(lambda: window.group_sync.syncs >= 2 and not window.runner.busy)
    _sync_window(qtbot, window)
    section = window.sidebar._sections[GROUP_SECTION]

    def entries():
        return {section.child(i).text(0): section.child(i).text(1) for i in range(section.childCount())}

    qtbot.waitUntil(lambda: entries().get("Agree") == "1")
    found = entries()
    assert found["Split"] == "1"
    assert found["★ by Bob Stone"] == "2" and found["★ by ada (you)"] == "1"
    item = next(section.child(i) for i in range(section.childCount()) if section.child(i).text(0) == "★ by Bob Stone")
    window.sidebar.setCurrentItem(item)
    qtbot.waitUntil(lambda: window.searchBox.text() == 'starred-by:"Bob Stone"')
    qtbot.waitUntil(lambda: set(window.model.ids()) == set(ids[:2]))


def test_divide_shares_the_selection_among_the_members(qtbot, window, bob, tmp_path):
    shared, gb = _joined(qtbot, window, bob, tmp_path)
    gb.sync()
    _sync_window(qtbot, window)
    window.table.selectAll()
    chosen = window.selected_ids()
    assert len(chosen) > 10
    done: list[dict] = []
    window.group_sync.divide(chosen, "", on_done=done.append)
    qtbot.waitUntil(lambda: bool(done))
    shares = done[0]
    assert sorted(shares) == ["Bob Stone", "ada"]
    assert abs(len(shares["ada"]) - len(shares["Bob Stone"])) <= 1
    assert sorted(p for v in shares.values() for p in v) == sorted(chosen)
    written = json.loads((shared / "ada" / "divide.json").read_text())
    assert set(written["shares"]) == {"ada", "Bob Stone"}
    gb.sync()  # bob's library reads ada's division: its share, as bob's paper ids
    assert sorted(gb.share()) == sorted(shares["Bob Stone"])


def test_divide_with_nothing_undecided_says_so(qtbot, window, bob, tmp_path):
    """Dividing papers every one of which a member decided said "Divided 0 undecided papers among
    the group: ada 0, Bob Stone 0"."""
    _shared, gb = _joined(qtbot, window, bob, tmp_path)
    chosen = window.model.ids()[:3]
    bob.set_starred(chosen, True)
    gb.sync()
    _sync_window(qtbot, window)
    done: list[dict] = []
    window.group_sync.divide(chosen, "", on_done=done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=20000)
    assert sum(len(v) for v in done[0].values()) == 0
    assert window.statusBar().currentMessage().startswith("Nothing to divide: a member already starred")


def test_the_dialog_joins_and_leaves(qtbot, window, tmp_path):
    shared = tmp_path / "club"
    shared.mkdir()
    window.group_sync.ask()
    dialog = window.group_sync.dialog
    assert dialog is not None and dialog.okButton.text() == "Join"
    dialog.folderEdit.setText(str(shared))
    dialog.nameEdit.setText("ada")
    dialog.shareNotes.setChecked(True)
    dialog.okButton.click()
    qtbot.waitUntil(lambda: (shared / "ada").is_dir() and window.group_sync.joined())
    qtbot.waitUntil(lambda: window.group_sync.button.isVisible() and "synced" in window.group_sync.button.text())
    assert window.group_sync.group.status().share_notes
    window.group_sync.ask()
    dialog = window.group_sync.dialog
    assert dialog.okButton.text() == "Save" and dialog.nameEdit.isReadOnly()
    dialog.leaveButton.click()
    qtbot.waitUntil(lambda: not window.group_sync.joined())
    assert not window.group_sync.button.isVisible()
    assert (shared / "ada" / "left.json").is_file()  # the others give a member that left no share of the work


def test_the_dialog_saves_changed_settings_and_taking_notes_back_rewrites_ones_files(qtbot, window, tmp_path):
    shared = tmp_path / "club"
    shared.mkdir()
    pid = window.model.id_at(0)
    window.library.set_note(pid, "only for me from now on")
    window.group_sync.join(shared, "ada", share_notes=True)
    qtbot.waitUntil(lambda: window.group_sync.syncs >= 1 and not window.runner.busy)

    def written() -> str:
        return "".join(p.read_text(encoding="utf-8") for p in sorted((shared / "ada").glob("*.jsonl")))

    qtbot.waitUntil(lambda: "only for me" in written())
    window.group_sync.ask()
    dialog = window.group_sync.dialog
    assert dialog is not None and dialog.okButton.text() == "Save" and dialog.shareNotes.isChecked()
    assert "out of your files" in dialog.shareNotes.toolTip()
    dialog.shareNotes.setChecked(False)
    dialog.tagsBox.setCurrentIndex(dialog.tagsBox.findData("group"))
    dialog.okButton.click()
    qtbot.waitUntil(lambda: "only for me" not in written(), timeout=20000)
    status = window.group_sync.group.status()
    assert not status.share_notes and status.tags == "group"
    assert sorted(p.name for p in (shared / "ada").iterdir()) == ["log-2.jsonl", "snapshot-2.jsonl"]


def test_the_group_tab_shows_nothing_when_the_library_cannot_be_read(qtbot, window, bob, tmp_path, monkeypatch):
    """The pane asks for a paper's group marks on every paper shown: a closed or damaged
    library hides the group as config() does, never an error out of a paint."""
    import sqlite3

    _joined(qtbot, window, bob, tmp_path)
    pid = window.model.id_at(0)
    assert window.group_sync.marks_of(pid) == []

    def damaged(*_a, **_k):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(window.group_sync.group, "marks", damaged)
    assert window.group_sync.marks_of(pid) is None
    monkeypatch.setattr(window.group_sync.group, "config", damaged)
    assert window.group_sync.marks_of(pid) is None

"""Issue 18 in the window: the Venues section (by count, filter box, elided names with the full
name in the tooltip), sections that show and remember being collapsed, collections of files and
their groups, the import summary's Details…, and the paper pane of a title-only paper."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from reader.library import Library, View
from reader.ui.list.sidebar import CLOSED, OPEN, VENUES
from reader.ui.paper.pane import NO_ABSTRACT
from reader.ui.window import settings
from reader.ui.window.main_window import MainWindow

from .helpers import import_in_window

LONG = "Proceedings of the 33rd Annual ACM Symposium on User Interface Software and Technology Adjunct"
BIB = "".join(
    f"@inproceedings{{u{i}, title = {{Paper {i}}}, booktitle = {{UIST '{10 + i}: Proceedings of the "
    f"{20 + i}th Annual ACM Symposium on User Interface Software and Technology}}, year = {{20{10 + i}}}}}\n"
    for i in range(3)
) + f"@article{{j1, title = {{Journal paper}}, journal = {{{LONG}}}, groups = {{Reading}}}}\n" + (
    "@article{bad, year = {2020}}\n" * 7
) + "@comment{jabref-meta: grouping:\n0 AllEntriesGroup:;\n1 StaticGroup:Reading\\;0\\;1\\;\\;\\;\\;;\n}\n"


def _import(qtbot, window: MainWindow, tmp_path: Path) -> None:
    src = tmp_path / "mylib.bib"
    src.write_text(BIB, encoding="utf-8")
    import_in_window(qtbot, window, src)
    qtbot.waitUntil(lambda: "UIST" in window.sidebar.venue_names())


def test_venues_section_sorted_filtered_and_elided(qtbot, window: MainWindow, tmp_path: Path) -> None:
    _import(qtbot, window, tmp_path)
    sidebar = window.sidebar
    names = sidebar.venue_names()
    assert names.index("UIST") < names.index(sidebar.venue_names()[-1]) or len(names) == 1
    counts = [int(item.text(1)) for item in (sidebar._sections[VENUES].child(i)
                                             for i in range(sidebar._sections[VENUES].childCount()))
              if item.data(0, Qt.ItemDataRole.UserRole + 1)]
    assert counts == sorted(counts, reverse=True)
    assert sidebar.textElideMode() == Qt.TextElideMode.ElideMiddle
    item = next(i for i in sidebar._items() if i.text(0).startswith("ACM Symposium"))
    assert "ACM Symposium on User Interface Software and Technology Adjunct" in item.toolTip(0)
    qtbot.keyClicks(sidebar.venueFilter, "uist")
    assert sidebar.venue_names(visible=True) == ["UIST"]
    sidebar.venueFilter.clear()
    uist = sidebar.item_for(f"venue:{next(v.key for v in window.library.venues() if v.name == 'UIST')}")
    sidebar.setCurrentItem(uist)
    qtbot.waitUntil(lambda: window.model.rowCount() == 3)
    window.resize(1200, 800)
    window.grab().save(str(tmp_path / "venues.png"))


def test_collections_are_the_file_and_its_groups(qtbot, window: MainWindow, library: Library,
                                                 tmp_path: Path) -> None:
    _import(qtbot, window, tmp_path)
    names = [n for n, _ in library.collections()]
    assert "mylib" in names and "mylib › Reading" in names
    item = window.sidebar.item_for("collection:mylib › Reading")
    assert item is not None and item.text(0).strip() == "Reading"
    assert library.paper_ids(View("collection", "mylib › Reading")) != []


def test_sections_show_and_remember_that_they_collapse(qtbot, window: MainWindow) -> None:
    section = window.sidebar._sections[VENUES]
    assert section.text(0).startswith(OPEN)
    window.sidebar._clicked(section, 0)
    assert not section.isExpanded() and section.text(0).startswith(CLOSED)
    assert window.sidebar.collapsed_sections() == [VENUES]
    settings.save_settings(window)
    window.sidebar.set_collapsed_sections([])
    assert section.isExpanded()
    settings.restore_settings(window)
    assert not section.isExpanded() and window.sidebar.collapsed_sections() == [VENUES]


def test_import_summary_has_details_and_a_title_only_paper_says_so(qtbot, window: MainWindow,
                                                                  tmp_path: Path) -> None:
    _import(qtbot, window, tmp_path)
    box = window.findChild(QMessageBox, "importSummary")
    assert box is not None
    text = box.text()
    assert "mylib.bib: 11 entries: 4 new, 0 duplicates, 4 without abstract, 7 rejected" in text
    assert text.count("line ") <= 12  # five places for the seven rejected entries
    assert box.detailedText().count("no title and no abstract") == 9  # the first, the cause, all seven
    box.close()
    pid = next(i for i in window.library.paper_ids() if window.library.paper(i).title == "Journal paper")
    window.pane.set_paper(window.library.paper(pid))
    assert NO_ABSTRACT in window.pane.abstractView.toPlainText()


def test_hundreds_of_venues_and_tags_go_in_at_once(qtbot, window: MainWindow) -> None:
    """A real user library (a JabRef file: 401 venues) re-read after a CLI import: every entry
    changed in the tree had the count column, sized to its contents, measure all the others
    again (7 s on the GUI thread). Entries are now made whole and added once per section: the
    tree's model hears of a few insertions, not of every entry and every field set."""
    from reader.venues import Venue

    sidebar = window.sidebar
    lib = window.library
    venues = [Venue(f"v{i}", f"Journal of Things {i}", 500 - i) for i in range(300)]
    tags = [(f"tag{i}", i + 1) for i in range(200)]
    model = sidebar.model()
    heard = {"inserted": 0, "changed": 0}
    model.rowsInserted.connect(lambda *_a: heard.__setitem__("inserted", heard["inserted"] + 1))
    model.dataChanged.connect(lambda *_a: heard.__setitem__("changed", heard["changed"] + 1))
    sidebar.update_data(lib.counts(), lib.collections(), tags, lib.saved_searches(), venues, [])
    assert sidebar.venue_names() == [v.name for v in venues]
    assert len([i for i in sidebar._items() if i.text(0).startswith("tag")]) == 200
    assert heard["inserted"] <= 12, heard  # ~1,000 before: one per entry
    assert heard["changed"] <= 40, heard  # ~2,000 before: each field of each entry

"""The sidebar: sections with hints, context menus."""

from __future__ import annotations

from reader.services import Library
from reader.ui.main_window import MainWindow
from reader.ui.operations import papers, searches


def search(qtbot, window: MainWindow, query: str) -> None:
    window.searchBox.setText(query)
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == query)


def test_sidebar_sections_always_shown_with_hints(qtbot, window: MainWindow, library: Library) -> None:
    sections = window.sidebar._sections
    assert all(not item.isHidden() for item in sections.values())
    assert window.sidebar.hint("Saved searches") == "Ctrl+S saves a search"
    assert window.sidebar.hint("Tags")
    assert window.sidebar.tag_names() == []  # the hint is not a tag
    hint_item = sections["Saved searches"].child(0)
    window.sidebar.setCurrentItem(hint_item)
    assert not hint_item.isSelected()  # hints can't be selected

    search(qtbot, window, "diffusion")
    action = window.findChild(type(window.relevanceAction), "saveSearchAction")
    assert action is not None and action.shortcut().toString() == "Ctrl+S"
    searches.save_current_search(window, "Diffusion")
    qtbot.waitUntil(lambda: window.sidebar.hint("Saved searches") is None)
    assert [s["name"] for s in library.saved_searches()] == ["Diffusion"]


def test_sidebar_context_menus(qtbot, window: MainWindow) -> None:
    papers.add_tags(window, window.model.ids()[:2], ["rl"])
    searches.save_current_search(window, "nothing")  # no query: refused with a status message
    search(qtbot, window, "attention")
    searches.save_current_search(window, "Attention")
    qtbot.waitUntil(lambda: "rl" in window.sidebar.tag_names() and window.sidebar.hint("Saved searches") is None)

    tag_menu = window.sidebar.context_menu_for(window.sidebar.item_for("tag:rl"))
    assert [a.text() for a in tag_menu.actions()][:3] == ["Rename tag…", "Merge into…", "Delete tag"]
    seen: list[str] = []
    window.sidebar.deleteTagRequested.connect(seen.append)
    tag_menu.actions()[2].trigger()
    assert seen == ["rl"]
    qtbot.waitUntil(lambda: window.sidebar.tag_names() == [])

    saved = window.sidebar._sections["Saved searches"].child(0)
    search_menu = window.sidebar.context_menu_for(saved)
    texts = [a.text() for a in search_menu.actions()]
    assert texts[:2] == ["Rename saved search…", "Delete saved search"]
    search_menu.actions()[1].trigger()
    qtbot.waitUntil(lambda: window.sidebar.hint("Saved searches") is not None)

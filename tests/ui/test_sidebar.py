"""The sidebar: sections with hints, context menus."""

from __future__ import annotations

from reader.library import Library
from reader.ui.operations import papers, searches
from reader.ui.window.main_window import MainWindow

from .helpers import search


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
    searches.save_current_search(window.ops, window.searchBar.query(), "Diffusion")
    qtbot.waitUntil(lambda: window.sidebar.hint("Saved searches") is None)
    assert [s["name"] for s in library.saved_searches()] == ["Diffusion"]


def test_sidebar_context_menus(qtbot, window: MainWindow) -> None:
    papers.add_tags(window.ops, window.model.ids()[:2], ["rl"])
    searches.save_current_search(window.ops, window.searchBar.query(), "nothing")  # no query: refused with a status message
    search(qtbot, window, "attention")
    searches.save_current_search(window.ops, window.searchBar.query(), "Attention")
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


def test_like_views_rank_by_similarity_and_follow_stars_and_tags(qtbot, window: MainWindow, library: Library) -> None:
    from PySide6.QtCore import Qt

    from reader.library import View
    from reader.listing import LIKE_LIMIT
    from reader.models import ViewKind

    sidebar = window.sidebar
    like_starred = sidebar.item_for("like_starred:")
    assert like_starred is not None and not like_starred.flags() & Qt.ItemFlag.ItemIsSelectable  # nothing starred
    qtbot.waitUntil(lambda: window.pane.paper_id is not None)
    seeds = window.model.ids()[:3]
    papers.set_starred(window.ops, seeds, True)
    qtbot.waitUntil(lambda: bool(sidebar.item_for("like_starred:").flags() & Qt.ItemFlag.ItemIsSelectable))
    # The index has the stars too (re-indexed papers shift document frequencies a little).
    qtbot.waitUntil(lambda: not window.runner.busy)

    sidebar.select_key("like_starred:")
    expected = [pid for pid, _ in library.more_like(seeds, limit=LIKE_LIMIT)]
    qtbot.waitUntil(lambda: window.model.ids() == expected)
    assert expected and not set(seeds) & set(expected)  # the starred papers themselves are left out
    assert window.view == View(ViewKind.LIKE_STARRED)
    assert "by similarity" in window.searchBar.resultLabel.text()

    # Starring another paper re-ranks the view (off the GUI thread, after the write).
    papers.set_starred(window.ops, [expected[0]], True)
    qtbot.waitUntil(lambda: library.counts().starred == 4 and not window.runner.busy)
    again = [pid for pid, _ in library.more_like(library.paper_ids(View("starred")), limit=LIKE_LIMIT)]
    qtbot.waitUntil(lambda: window.model.ids() == again)
    assert expected[0] not in window.model.ids()

    # A search inside the view searches its papers only, by relevance.
    search(qtbot, window, "learning")
    assert set(window.model.ids()) <= set(again)
    window.searchBox.clear()

    # "Like tag X" from the tag's context menu: a new entry, selected, its list ranked by the tag's papers.
    papers.add_tags(window.ops, seeds[:2], ["mine"])
    qtbot.waitUntil(lambda: "mine" in sidebar.tag_names())
    menu = sidebar.context_menu_for(sidebar.item_for("tag:mine"))
    like = next(a for a in menu.actions() if a.objectName() == "likeTagAction")
    assert like.text() == "Papers like mine"
    like.trigger()
    assert sidebar.item_for("like_tag:mine") is not None
    tagged = [pid for pid, _ in library.more_like(library.paper_ids(View("tag", "mine")), limit=LIKE_LIMIT)]
    qtbot.waitUntil(lambda: window.view == View(ViewKind.LIKE_TAG, "mine") and window.model.ids() == tagged)
    assert not set(seeds[:2]) & set(tagged)

    # The next start shows the same view, its "Like tag X" entry and its ranked list.
    window.close()
    again = MainWindow(library, theme="light")
    qtbot.addWidget(again)
    assert again.view == View(ViewKind.LIKE_TAG, "mine")
    qtbot.waitUntil(lambda: again.sidebar.item_for("like_tag:mine") is not None
                    and again.model.ids() == tagged)
    assert again.sidebar.currentItem() is again.sidebar.item_for("like_tag:mine")
    again.close()


def test_the_new_view_is_shown_only_in_a_library_that_follows_a_feed(qtbot, window: MainWindow,
                                                                     library: Library) -> None:
    library_section = window.sidebar._sections["Library"]
    items = {library_section.child(i).text(0): library_section.child(i) for i in range(library_section.childCount())}
    new = items.pop("New")
    qtbot.waitUntil(lambda: window.sidebar.counts is not None)
    assert library.counts().total > 0 and library.feeds() == []
    assert new.isHidden()  # no "New 0" in a library that follows nothing
    assert all(not item.isHidden() for item in items.values())
    feed, _ = library.follow_feed("arxiv", "cs.LG")
    window.sidebar.refresh()
    qtbot.waitUntil(lambda: not new.isHidden())
    assert new.text(1) == "0" and new.toolTip(0)
    library.unfollow_feed(feed.id)
    window.sidebar.refresh()
    qtbot.waitUntil(lambda: new.isHidden())


def test_every_hint_fits_the_sidebar_unelided_at_1024_px(qtbot, window: MainWindow) -> None:
    """An elided hint reads as nonsense ("File → Read…up… to join"): each one fits the
    sidebar of a 1024 px window whole."""
    from PySide6.QtGui import QFontMetrics

    from reader.ui.list.sidebar import HINT_ROLE

    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024)
    sidebar = window.sidebar
    sidebar.expandAll()
    hints = [item for item in sidebar._items() if item.data(0, HINT_ROLE)]
    assert len(hints) >= 3
    for item in hints:
        room = sidebar.visualItemRect(item).width() - 2 * sidebar.style().pixelMetric(
            sidebar.style().PixelMetric.PM_FocusFrameHMargin) - 4
        assert QFontMetrics(item.font(0)).horizontalAdvance(item.text(0)) <= room, item.text(0)


def test_an_empty_librarys_hints_fit_too(qtbot, tmp_path) -> None:
    """A new library shows every section's hint: "Import pap…to add one" and "Papers wit…ppear
    here" were elided at 1024 px (the seeded library of the test above has collections and venues)."""
    from PySide6.QtGui import QFontMetrics

    from reader.ui.list.sidebar import HINT_ROLE, HINTS

    lib = Library.open(tmp_path / "empty", seed_if_empty=False)
    try:
        window = MainWindow(lib, theme="light")
        qtbot.addWidget(window)
        window.resize(1024, 640)
        window.show()
        qtbot.waitUntil(lambda: window.width() == 1024 and window.index_ready and not window.runner.busy)
        sidebar = window.sidebar
        sidebar.expandAll()
        hints = [item for item in sidebar._items() if item.data(0, HINT_ROLE)]
        assert {item.text(0) for item in hints} >= {text for text, _ in HINTS.values()}
        for item in hints:
            room = sidebar.visualItemRect(item).width() - 2 * sidebar.style().pixelMetric(
                sidebar.style().PixelMetric.PM_FocusFrameHMargin) - 4
            assert QFontMetrics(item.font(0)).horizontalAdvance(item.text(0)) <= room, item.text(0)
        window.close()
    finally:
        lib.close()

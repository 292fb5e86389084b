"""Screenshots of the reading group (issue 29), light and dark, at each size asked: the list with
its Group ★ column and the sidebar's group views with the paper pane's Group tab (a shared note),
the sidebar's "Agree" view chosen, and the status line after Edit → Divide among the group.

    python scripts/group_screenshots.py [--size 1024x640 --size 1600x1000] [--out DIR]
    # writes group-<W>x<H>[-agree|-divide]-<theme>.png (at 1024x640 also group-<theme>.png)"""

from __future__ import annotations

import tempfile
from pathlib import Path

from shots import desktop_screen, out_and_sizes, prepare, shoot_themes, wait


def main() -> None:
    out, sizes = out_and_sizes(__doc__, prepare())
    from PySide6.QtWidgets import QApplication

    from reader.group import Group
    from reader.library import Library
    from reader.ui.list.sidebar import GROUP_SECTION
    from reader.ui.paper.pane import GROUP_TAB
    from reader.ui.window.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shared = root / "shared"
        shared.mkdir()
        others = []
        for name in ("Bob Stone", "Cy Lee"):
            lib = Library.open(root / name)
            g = Group(lib)
            g.join(shared, name, share_notes=True)
            others.append((lib, g))
        desktop_screen()  # offscreen: the window at the size asked, not the 800 px screen's
        window = MainWindow(Library.open(root / "ada"), theme="light")
        window.resize(*sizes[0])
        window.show()
        wait(app, lambda: window.index_ready and not window.runner.busy)
        ids = window.model.ids()
        (bob, gb), (cy, gc) = others
        bob.set_starred(ids[:6], True)
        bob.set_note(ids[0], "Worth the journal club: the ablation in section 4 is the interesting part.")
        cy.set_starred(ids[0:8:2], True)
        cy.set_skipped(ids[1:2], True)
        gb.sync()
        gc.sync()
        window.group_sync.join(shared, "Ada Park")
        window.library.set_starred(ids[2:3], True)
        wait(app, lambda: window.group_sync.syncs > 0 and not window.runner.busy)
        window.group_sync.sync_now()
        wait(app, lambda: window.group_sync.syncs > 1 and not window.runner.busy)
        section = window.sidebar._sections[GROUP_SECTION]
        for width, height in sizes:
            size = f"{width}x{height}"
            window.resize(width, height)
            window.sidebar.setCurrentItem(window.sidebar.topLevelItem(0).child(0))  # All
            wait(app, lambda: window.model.rowCount() == len(ids), timeout=10)
            window.table.selectRow(0)
            window.pane.tabs.setCurrentIndex(GROUP_TAB)
            wait(app, lambda: False, timeout=1.0)
            shoot_themes(app, window, out, f"group-{size}")
            if size == "1024x640":
                shoot_themes(app, window, out, "group")  # the name README and earlier stops use
            agree = next(section.child(i) for i in range(section.childCount())
                         if section.child(i).text(0) == "Agree")
            window.sidebar.setCurrentItem(agree)
            wait(app, lambda: window.searchBox.text() == "group:agree" and not window.runner.busy, timeout=10)
            wait(app, lambda: False, timeout=1.0)
            shoot_themes(app, window, out, f"group-{size}-agree")
            window.searchBox.clear()  # choosing All keeps the group view's query in the search box
            window.sidebar.setCurrentItem(window.sidebar.topLevelItem(0).child(0))
            wait(app, lambda: window.model.rowCount() == len(ids), timeout=10)
            window.table.selectAll()
            window.divide_among_group()
            wait(app, lambda: "Divided" in window.statusBar().currentMessage(), timeout=30)
            shoot_themes(app, window, out, f"group-{size}-divide")
        window.close()
        for lib, _g in others:
            lib.close()


if __name__ == "__main__":
    main()

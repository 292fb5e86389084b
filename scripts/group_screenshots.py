"""Screenshots of the reading group (issue 29) at 1024x640, light and dark: the list with its
Group ★ column and the sidebar's group views, the paper pane's Group tab with a shared note.

    python scripts/group_screenshots.py   # writes screenshots/group-*.png"""

from __future__ import annotations

import tempfile
from pathlib import Path

from shots import desktop_screen, prepare, shoot_themes, wait


def main() -> None:
    out = prepare()
    from PySide6.QtWidgets import QApplication

    from reader.group import Group
    from reader.library import Library
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
        window.resize(1024, 640)
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
        window.table.selectRow(0)
        window.pane.tabs.setCurrentIndex(GROUP_TAB)
        wait(app, lambda: False, timeout=1.0)
        shoot_themes(app, window, out, "group")
        window.close()
        for lib, _g in others:
            lib.close()


if __name__ == "__main__":
    main()

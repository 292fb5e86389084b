"""Save PNGs of the screens a new user meets in the first hour (issue 30), light and dark, at the
window size the screen allows (run under Xvfb at 1024×640 and 1600×1000, or offscreen with
--size): the first window as it opens, the list with "Did you mean", the map (a search lit, papers
selected), the triage card (from the map's Triage, the search highlighted) and a new library's
empty state offering the sample. Into screenshots/ (or --out): first-hour-<screen>-<name>-<theme>.png.

    Xvfb :59 -screen 0 1024x640x24 & DISPLAY=:59 QT_QPA_PLATFORM=xcb python scripts/shots_first_hour.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from shots import first_start, out_folder, prepare, wait  # scripts/ is on sys.path when run

OUT = prepare()  # before Qt is imported: offscreen unless QT_QPA_PLATFORM says otherwise


def main() -> int:
    out = out_folder(__doc__, OUT)
    from reader.ui.window import libraries
    from reader.ui.window.main_window import MainWindow

    with first_start("reader-first-hour-") as (app, window, tmp, screen):
        area = window.screen().availableGeometry()
        print(f"screen {screen}: window {window.width()}x{window.height()} at {window.x()},{window.y()}, "
              f"frame {window.frameGeometry().getRect()}, splitter {window.splitter.sizes()}")

        def shoot(name: str) -> None:
            for theme in ("light", "dark"):
                window.apply_theme(theme)
                wait(app, lambda: False, timeout=0.6)
                path = out / f"first-hour-{screen}-{name}-{theme}.png"
                window.grab().save(str(path))
                print(path)

        shoot("first-window")
        window.setGeometry(area)  # the rest at the whole screen (1600 x 1000: the sidebar's share)
        wait(app, lambda: False, timeout=0.5)
        print(f"  at {window.width()}x{window.height()}: splitter {window.splitter.sizes()}")
        window.searchBox.setText("atention transfomer")  # typos: hits, and "Did you mean"
        window.refresh_list()
        wait(app, lambda: window.searchBar.suggestionLabel.isVisible(), timeout=20)
        print(f"  search box {window.searchBox.width()} px beside 'Did you mean' "
              f"(visible {window.searchBar.suggestionLabel.isVisible()})")
        shoot("search")
        window.searchBox.setText("attention")
        window.refresh_list()
        wait(app, lambda: window.search_results is not None and window.search_results.query == "attention")
        controller = window.map
        before = controller.generation
        controller.open()
        wait(app, lambda: controller.generation > before, timeout=120)
        wait(app, lambda: controller.canvas.marks.hits is not None, timeout=20)
        controller.select(controller.canvas.shown_ids(lit_only=True))
        wait(app, lambda: False, timeout=0.5)
        print(f"  map: {controller.canvas.accessibleName()!r}; {controller.canvas.accessibleDescription()[:90]!r}")
        shoot("map")
        controller.page.selection_actions["triage"].trigger()
        ctl = window.triage
        wait(app, lambda: ctl.active and ctl.view.card is not None, timeout=30)
        print(f"  triage title read as {ctl.view.titleLabel.accessibleName()!r}")
        shoot("triage")
        ctl.close()
        controller.close()
        wait(app, lambda: False, timeout=0.3)
        new = libraries.switch_library(window, Path(tmp) / "new-library", MainWindow)
        assert new is not None
        window = new  # type: ignore[assignment]
        wait(app, lambda: new.empty_state.isVisible() and not new.runner.busy, timeout=30)
        shoot("new-library")
        new.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

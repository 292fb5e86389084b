"""Save PNGs of every screen with input fields, light and dark, at the size of the screen it runs on
(run it under Xvfb at 1024×640 and at 1600×1000): the list with the paper pane (its Note tab
too), the map page (its year boxes), the triage card (its tag and note fields), Edit →
Preferences… (and its theme list dropped down), File → Export…, Markdown vault…, Reading
group…, Add by identifier…, Add a conference…, Qt's own file dialog (the dark theme's) and an
open menu. Into screenshots/ (or --out): frames-<screen>-<name>-<theme>.png. Nothing is
fetched: the dialogs are shown, never run.

    Xvfb :59 -screen 0 1024x640x24 & DISPLAY=:59 QT_QPA_PLATFORM=xcb python scripts/shots_frames.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from shots import first_start, out_folder, prepare, wait  # scripts/ is on sys.path when run

OUT = prepare()  # before Qt is imported: offscreen unless QT_QPA_PLATFORM says otherwise


def main() -> int:
    out = out_folder(__doc__, OUT)
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMenu

    from reader.ui.dialogs.common import ExportDialog, ExportOptions
    from reader.ui.operations import papers
    from reader.ui.widgets.theme import file_dialog_options

    with first_start("reader-frames-") as (app, window, tmp, screen):
        area = window.screen().availableGeometry()
        window.setGeometry(area)
        wait(app, lambda: False, timeout=0.5)
        print(f"screen {screen}: window {window.width()}x{window.height()}")

        def shoot(name: str, widget: Any = None, before: Any = None) -> None:
            for theme in ("light", "dark"):
                window.apply_theme(theme)
                if before is not None:
                    before()
                wait(app, lambda: False, timeout=0.6)
                shown = widget if widget is not None else window
                path = out / f"frames-{screen}-{name}-{theme}.png"
                shown.grab().save(str(path))
                print(path, f"{shown.width()}x{shown.height()}")

        def dialog_shot(name: str, dialog: Any) -> None:
            wait(app, lambda: dialog.isVisible(), timeout=10)
            shoot(name, dialog)
            dialog.reject()
            wait(app, lambda: False, timeout=0.3)

        papers.add_tags(window.ops, window.model.ids()[:40], ["to-read", "baseline"])  # chips on the card
        wait(app, lambda: not window.runner.busy)
        shoot("list")
        window.pane.tabs.setCurrentIndex(window.pane.tabs.indexOf(window.pane.noteEditor.parentWidget()))
        shoot("list-note")
        window.pane.tabs.setCurrentIndex(0)

        menu = window.menuBar().actions()[0].menu()
        if isinstance(menu, QMenu):
            def pop() -> None:
                menu.popup(window.mapToGlobal(QPoint(8, window.menuBar().height())))
            shoot("menu-file", menu, before=pop)
            menu.hide()

        def opened(action_name: str) -> Any:
            from PySide6.QtGui import QAction

            action = window.findChild(QAction, action_name)
            if action is None:
                raise SystemExit(f"no action named {action_name!r}")
            action.trigger()
            wait(app, lambda: isinstance(QApplication.activeModalWidget(), QDialog), timeout=10)
            dialog = QApplication.activeModalWidget()
            if dialog is None:
                raise SystemExit(f"{action_name}: no dialog opened")
            return dialog

        prefs = opened("preferencesAction")
        combo = prefs.themeCombo

        def drop() -> None:
            combo.hidePopup()
            combo.showPopup()  # the list on the theme just applied

        shoot("preferences-theme-list", combo.view().window(), before=drop)
        combo.hidePopup()
        dialog_shot("preferences", prefs)
        for action_name, name in (("vaultAction", "vault"), ("groupAction", "group")):
            dialog_shot(name, opened(action_name))
        export = ExportDialog(window, ["to-read", "baseline"], 1, ExportOptions(scope="view"))
        export.show()
        dialog_shot("export", export)
        dialog_shot("add-by-id", window.sources.ask_add())
        venue = window.sources.ask_add_venue()
        venue.filterEdit.setText("neurips")
        dialog_shot("add-venue", venue)
        files = QFileDialog(window, "Export", str(Path(tmp)), "BibTeX (*.bib)")
        files.setOptions(QFileDialog.Option.DontUseNativeDialog | file_dialog_options())
        files.show()
        dialog_shot("file-dialog", files)

        controller = window.map
        before = controller.generation
        controller.open()
        wait(app, lambda: controller.generation > before, timeout=120)
        wait(app, lambda: False, timeout=0.5)
        shoot("map")
        controller.close()
        wait(app, lambda: False, timeout=0.3)
        window.triage.open()
        ctl = window.triage
        wait(app, lambda: ctl.active and ctl.view.card is not None, timeout=30)
        shoot("triage")
        ctl.close()
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

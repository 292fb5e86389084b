"""Save PNGs of the dialogs at a window size, light and dark, into screenshots/ (or --out):
File → Markdown vault…, File → Reading group… (before joining), Edit → Preferences…, Help →
About Reader, and the summary an import shows (real RIS and CSL-JSON files of the shared corpus,
one with records skipped). Each is opened from the window's menu on the seeds, as the user does;
the file is dialog-<W>x<H>-<name>-<theme>.png, and its size is printed beside the window's.
    python scripts/shots_dialogs.py --size 1024x640
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from shots import (  # scripts/ is on sys.path when run
    ROOT,
    desktop_screen,
    out_and_sizes,
    prepare,
    wait,
)

OUT = prepare()  # before Qt is imported: offscreen unless QT_QPA_PLATFORM says otherwise
CORPUS = ROOT.parent / "shared" / "corpora" / "ris_csl"
IMPORTS = ("asreview_embase.ris", "bbt_user_items_issue811.csl.json")


def menu_action(window: Any, name: str) -> Any:
    """The window's menu action with objectName `name` (as the user triggers it)."""
    from PySide6.QtGui import QAction

    action = window.findChild(QAction, name)
    if action is None:
        raise SystemExit(f"no action named {name!r} in the window's menus")
    return action


def main() -> int:
    out, sizes = out_and_sizes(__doc__, OUT)
    width, height = sizes[0]
    from PySide6.QtWidgets import QApplication, QDialog

    from reader.library import Library
    from reader.ui.app import make_app
    from reader.ui.window.main_window import MainWindow

    with tempfile.TemporaryDirectory(prefix="reader-dialogs-") as tmp:
        os.environ["READER_CONFIG_DIR"] = str(Path(tmp) / "config")  # nothing of the user's read or changed
        app = make_app()
        desktop_screen()  # offscreen: the window at the size asked, not the 800 px screen's
        window = MainWindow(Library.open(Path(tmp) / "library"))
        window.resize(width, height)
        window.show()
        wait(app, lambda: window.index_ready and not window.runner.busy and window.model.rowCount() > 0)

        def shoot(name: str, dialog: Any) -> None:
            for theme in ("light", "dark"):
                window.apply_theme(theme)
                wait(app, lambda: False, timeout=0.5)
                path = out / f"dialog-{width}x{height}-{name}-{theme}.png"
                dialog.grab().save(str(path))
                print(path, f"dialog {dialog.width()}x{dialog.height()} in window {window.width()}x{window.height()}")
            dialog.reject()
            wait(app, lambda: False, timeout=0.2)

        def opened(action_name: str) -> Any:
            menu_action(window, action_name).trigger()
            wait(app, lambda: isinstance(QApplication.activeModalWidget(), QDialog), timeout=10)
            dialog = QApplication.activeModalWidget()
            if dialog is None:
                raise SystemExit(f"{action_name}: no dialog opened")
            return dialog

        for action_name, name in (("vaultAction", "vault"), ("groupAction", "group"),
                                  ("preferencesAction", "preferences"), ("aboutAction", "about")):
            shoot(name, opened(action_name))

        files = [CORPUS / f for f in IMPORTS if (CORPUS / f).exists()]
        if files:
            window.transfer.import_paths(files)
            wait(app, lambda: any(b.objectName() == "importSummary" for b in window.messages.boxes), timeout=120)
            boxes = [b for b in window.messages.boxes if b.objectName() == "importSummary"]
            if boxes:
                shoot("import-summary", boxes[0])
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

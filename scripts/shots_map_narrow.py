"""Save PNGs of the map page on the seeds at 1024×640 (the selection's actions folded into the
Selection menu) and at 1600×1000 (shown as buttons), light and dark, into screenshots/:
map-1024-{light,dark}.png, map-1600-{light,dark}.png, and map-1024-menu.png (the menu open);
map-<W>-lit-*.png with a search lit (the other points dimmed) and map-<W>-lasso-edge-*.png with
a lasso being dragged past the canvas's edges (drawn cut inside it)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from shots import prepare, seeded_window, shoot_themes, wait  # scripts/ is on sys.path when run

OUT = prepare()  # before Qt is imported: offscreen


def main() -> int:
    from PySide6.QtCore import QPoint, Qt, QTimer
    from PySide6.QtTest import QTest

    from reader.ui.app import make_app

    out = OUT
    app = make_app()
    with tempfile.TemporaryDirectory(prefix="reader-map-narrow-") as tmp:
        window = seeded_window(app, Path(tmp))
        ctl = window.map
        before = ctl.generation
        ctl.open()
        wait(app, lambda: ctl.generation > before, timeout=120)
        ctl.select(list(ctl.picture.ids[:5]))
        wait(app, lambda: not window.runner.busy)
        for width, height in ((1024, 640), (1600, 1000)):
            window.resize(width, height)
            wait(app, lambda: False, timeout=0.5)
            print(f"{width}x{height}: splitter {window.splitter.sizes()}, folded {ctl.page.toolbar.folded}")
            shoot_themes(app, window, out, f"map-{width}")
            window.searchBox.setText("attention")
            wait(app, lambda: ctl.canvas.marks.hits is not None, timeout=20)
            shoot_themes(app, window, out, f"map-{width}-lit")
            canvas = ctl.canvas
            w, h = canvas.width(), canvas.height()
            ctrl = Qt.KeyboardModifier.ControlModifier
            QTest.mousePress(canvas, Qt.MouseButton.LeftButton, ctrl, QPoint(int(w * 0.3), int(h * 0.2)))
            for x, y in ((w + 150, h * 0.35), (w * 0.6, h + 120), (w * 0.3, h * 0.6)):
                QTest.mouseMove(canvas, QPoint(int(x), int(y)))
            shoot_themes(app, window, out, f"map-{width}-lasso-edge")  # the lasso as it is dragged
            QTest.mouseRelease(canvas, Qt.MouseButton.LeftButton, ctrl, QPoint(int(w * 0.3), int(h * 0.6)))
            window.searchBox.setText("")
            wait(app, lambda: ctl.canvas.marks.hits is None, timeout=20)
            ctl.select(list(ctl.picture.ids[:5]))
        window.apply_theme("light")
        window.resize(1024, 640)
        wait(app, lambda: False, timeout=0.5)
        menu = ctl.page.toolbar.menu

        def grab_menu() -> None:  # the button's click waits on the open menu
            menu.grab().save(str(out / "map-1024-menu.png"))
            menu.close()

        QTimer.singleShot(300, grab_menu)
        ctl.page.toolbar.more.click()
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

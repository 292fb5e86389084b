"""Save PNGs of the main window on the seeds, a paper selected (tagged, with a highlight), at
700×500, 800×600, 1024×640 and 1600×1000, light and dark, into screenshots/:
narrow-<w>x<h>-{light,dark}.png, and the sidebar's venue filter box alone (venue-filter-*.png).
Prints the splitter's sizes and the Title column's width at each size."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from shots import prepare, seeded_window, shoot_themes, wait  # scripts/ is on sys.path when run

OUT = prepare()  # before Qt is imported: offscreen
SIZES = ((700, 500), (800, 600), (1024, 640), (1600, 1000))


def main() -> int:
    from reader.ui.app import make_app
    from reader.ui.list.model import COL_TITLE
    from reader.ui.operations import highlights, papers

    out = OUT
    with tempfile.TemporaryDirectory(prefix="reader-narrow-") as tmp:
        os.environ["READER_CONFIG_DIR"] = str(Path(tmp) / "config")  # no saved geometry or splitter
        app = make_app()
        window = seeded_window(app, Path(tmp) / "library")
        ids = window.model.ids()
        papers.add_tags(window.ops, ids[:1], ["diffusion", "to-read", "generative models"])
        papers.set_starred(window.ops, ids[:1], True)
        highlights.add_highlight(window.ops, ids[0], 0, 40, "yellow", "")
        wait(app, lambda: not window.runner.busy)
        window.table.go_to_row(0)
        wait(app, lambda: window.pane.paper_id == ids[0] and not window.runner.busy)
        for width, height in SIZES:
            window.resize(width, height)
            wait(app, lambda: False, timeout=0.5)
            print(f"{width}x{height}: window {window.width()}x{window.height()}, splitter "
                  f"{window.splitter.sizes()}, title column {window.table.columnWidth(COL_TITLE)}")
            shoot_themes(app, window, out, f"narrow-{width}x{height}")
        for theme in ("light", "dark"):
            window.apply_theme(theme)
            wait(app, lambda: False, timeout=0.3)
            window.sidebar.grab().save(str(out / f"sidebar-{theme}.png"))
            window.pane.grab().save(str(out / f"pane-{theme}.png"))
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Save PNGs of the main window on the bundled seeds (light and dark) into screenshots/."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from shots import seeded_window, shoot_themes, wait  # scripts/ is on sys.path when run

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")

ROOT = Path(__file__).resolve().parents[1]




def main() -> int:
    from reader.ui.app import make_app
    from reader.ui.operations import highlights, papers

    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    app = make_app()
    with tempfile.TemporaryDirectory(prefix="reader-shots-") as tmp:
        window = seeded_window(app, Path(tmp))
        library = window.library
        ids = window.model.ids()
        papers.add_tags(window.ops, ids[:4], ["diffusion"])
        papers.add_tags(window.ops, ids[2:5], ["to-read"])
        papers.set_starred(window.ops, ids[1:6:2], True)
        papers.set_read(window.ops, ids[3:12], True)
        wait(app, lambda: not window.runner.busy)

        window.searchBox.setText("diffusion")
        wait(app, lambda: window.search_results is not None and not window.runner.busy)
        # The first result whose abstract shows the term, so the hit highlighting is visible.
        for pid in list(window.model.ids()):
            window.select_paper(pid)
            if "diffusion" in window.pane.abstractView.toPlainText().lower():
                break
        pid = window.pane.paper_id
        papers.set_starred(window.ops, [pid], True)
        papers.add_tags(window.ops, [pid], ["must-read"])
        window.pane.noteEditor.setPlainText(
            "**Why it matters:** the guidance trick could replace our sampler.\n\n"
            "- check the ablation in Table 2\n- compare with $O(n \\log n)$ baseline")
        window.flush()
        plain = window.pane.abstractView.toPlainText()
        start = plain.find(" ", 200) + 1
        highlights.add_highlight(window.ops, pid, start, start + 60, "yellow", "key claim")
        wait(app, lambda: not window.runner.busy)
        wait(app, lambda: window.pane.relatedList.count() > 0, timeout=5)
        window.table.setFocus()

        shoot_themes(app, window, out, "reader")
        window.pane.tabs.setCurrentIndex(1)
        window.apply_theme("light")
        wait(app, lambda: False, timeout=0.2)
        window.grab().save(str(out / "reader-highlights.png"))
        window.pane.tabs.setCurrentIndex(0)
        window.pane.set_preview(True)
        wait(app, lambda: False, timeout=0.2)
        window.grab().save(str(out / "reader-note-preview.png"))
        window.pane.set_preview(False)
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(out / "reader-light.png", ROOT / "docs" / "screenshot.png")
        window.close()
        library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

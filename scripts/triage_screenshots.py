"""Save PNGs of the triage view on the bundled seeds (light and dark, 1280×800) into screenshots/."""

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
sys.path.insert(0, str(ROOT))




def main() -> int:
    from reader.ui.app import make_app
    from reader.ui.operations import papers
    from reader.ui.triage.controller import install_triage

    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    app = make_app()
    with tempfile.TemporaryDirectory(prefix="reader-triage-shots-") as tmp:
        window = seeded_window(app, Path(tmp))
        library = window.library
        ids = window.model.ids()
        papers.add_tags(window.ops, ids[:6], ["diffusion"])
        papers.add_tags(window.ops, ids[3:7], ["to-read"])
        papers.add_tags(window.ops, ids[8:10], ["rl"])
        papers.set_starred(window.ops, ids[1:6:2], True)
        wait(app, lambda: not window.runner.busy)
        window.searchBox.setText("diffusion")
        wait(app, lambda: window.search_results is not None and not window.runner.busy)
        triage = install_triage(window)
        triage.open()
        wait(app, lambda: triage.view.card is not None)
        # Step to a paper whose abstract shows the search term, as a user pressing J would.
        for _ in range(12):
            if "diffusion" in triage.view.abstractView.toPlainText().lower()[:400]:
                break
            triage.run_command("next")
        triage.run_command("star")
        triage.toggle_tag("must-read", True)
        triage.view.noteEdit.setPlainText("Guidance trick could replace our sampler; check Table 2.")
        triage.flush_note()
        wait(app, lambda: not window.runner.busy)
        wait(app, lambda: False, timeout=0.5)
        triage.view.focus_keys()
        shoot_themes(app, window, out, "triage")
        while triage.queue is not None and not triage.queue.finished:
            triage.run_command("next")
        wait(app, lambda: "read" in triage.view.summaryText.text(), timeout=10)
        window.apply_theme("light")
        wait(app, lambda: False, timeout=0.5)
        window.grab().save(str(out / "triage-summary.png"))
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(out / "triage-light.png", ROOT / "docs" / "triage.png")
        window.close()
        library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

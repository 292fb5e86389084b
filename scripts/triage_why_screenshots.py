"""Save PNGs of triage's best first with its why-line, and a card asked because the model is
unsure, light and dark, at 1024×640 and 1600×1000, into screenshots/ (docs/triage-why.png: one of them)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from shots import seeded_window, wait  # scripts/ is on sys.path when run

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SIZES = ((1024, 640), (1600, 1000))


def main() -> int:
    from reader.triage.interests import ASKED
    from reader.triage.queue import BEST_FIRST
    from reader.ui.app import make_app
    from reader.ui.operations import papers
    from reader.ui.triage.controller import install_triage
    from reader.ui.triage.rank import ASK_EVERY_KEY

    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    app = make_app()
    with tempfile.TemporaryDirectory(prefix="reader-triage-why-") as tmp:
        os.environ["READER_CONFIG_DIR"] = str(Path(tmp) / "config")  # the asking setting stays in here
        window = seeded_window(app, Path(tmp) / "lib")
        library = window.library
        window.app_settings.setValue(ASK_EVERY_KEY, 3)
        ids = window.model.ids()
        diffusion = [p for p in ids if "diffusion" in (library.paper(p).abstract or "").lower()]
        papers.set_starred(window.ops, diffusion[:2], True)
        papers.add_tags(window.ops, [p for p in ids if "reinforcement" in (library.paper(p).abstract or "").lower()][:2],
                        ["reinforcement learning"])
        wait(app, lambda: not window.runner.busy)
        triage = install_triage(window)
        triage.open()
        wait(app, lambda: triage.view.card is not None)
        triage.view.orderCombo.setCurrentIndex(triage.view.orderCombo.findData(BEST_FIRST))  # as a user picks it
        wait(app, lambda: triage.ranking.learned_ranks > 0 and not window.runner.busy, timeout=60)
        triage.run_command("skip")
        wait(app, lambda: not window.runner.busy)
        wait(app, lambda: False, timeout=0.5)
        shots: dict[str, Path] = {}
        for kind in ("why", "asked"):
            if kind == "asked":  # step on to a card placed because the model is unsure
                for _ in range(6):
                    if triage.view.whyLabel.text().startswith(f"Why: {ASKED}"):
                        break
                    triage.run_command("next")
                    wait(app, lambda: not window.runner.busy)
            for theme in ("light", "dark"):
                window.apply_theme(theme)
                for w, h in SIZES:
                    window.resize(w, h)
                    wait(app, lambda: False, timeout=0.5)
                    path = out / f"triage-{kind}-{theme}-{w}x{h}.png"
                    window.grab().save(str(path))
                    shots[path.name] = path
                    print(path, "·", triage.view.whyLabel.text())
        window.apply_theme("light")
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copyfile(shots["triage-why-light-1600x1000.png"], ROOT / "docs" / "triage-why.png")
        window.close()
        library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

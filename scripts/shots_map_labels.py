"""Save PNGs of the map's region labels on a real conference pool imported with titles (ICLR 2018
from the shared corpus's raw OpenReview list; the seeds when the corpus is absent) at 1024×640
and 1600×1000, light and dark, into screenshots/: map-labels-{1024,1600}-{light,dark}.png.
Prints the labels shown (coarse level) so they can be read beside the pictures."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from shots import ROOT, prepare, shoot_themes, wait  # scripts/ is on sys.path when run

OUT = prepare()  # before Qt is imported: offscreen
ICLR = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "raw_paperlists" / "iclr2018.json"


def _library(folder: Path):
    from reader.library import Library

    if not ICLR.exists():
        return Library.open(folder / "lib")
    src = folder / "iclr2018.jsonl"
    raw = json.loads(ICLR.read_text("utf-8"))
    src.write_text("".join(json.dumps({"title": p["title"], "abstract": p["abstract"]}) + "\n"
                           for p in raw if (p.get("abstract") or "").strip()), "utf-8")
    lib = Library.open(folder / "lib", seed_if_empty=False)
    lib.import_files([src])
    return lib


def main() -> int:
    from reader.ui.app import make_app
    from reader.ui.window.main_window import MainWindow

    app = make_app()
    with tempfile.TemporaryDirectory(prefix="reader-map-labels-") as tmp:
        window = MainWindow(_library(Path(tmp)), theme="light")
        window.resize(1280, 800)
        window.show()
        wait(app, lambda: window.index_ready and not window.runner.busy, timeout=300)
        ctl = window.map
        before = ctl.generation
        ctl.open()
        wait(app, lambda: ctl.generation > before, timeout=600)
        wait(app, lambda: not window.runner.busy)
        data = ctl.data if hasattr(ctl, "data") else None
        if data is not None:
            print("coarse labels:", [c.label for c in data.clusters if c.level == 0])
        for width, height in ((1024, 640), (1600, 1000)):
            window.resize(width, height)
            wait(app, lambda: False, timeout=0.5)
            shoot_themes(app, window, OUT, f"map-labels-{width}")
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

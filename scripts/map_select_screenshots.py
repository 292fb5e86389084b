"""Save PNGs of the map's lasso selection and of a refit subset (light and dark, 1280×800) into screenshots/.

On the first 3,300 papers of the shared corpus when it is there (an ICML-size library), else on
the bundled seeds. Files: map-lasso-{light,dark}.png, map-subset-{light,dark}.png (a tag's
papers at their library places) and map-refit-{light,dark}.png (the same papers refit)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from shots import shoot_themes, wait  # scripts/ is on sys.path when run

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"
PAPERS = 3300


def _library(folder: Path):
    from reader.library import Library

    if not CORPUS.exists():
        return Library.open(folder / "lib")
    src = folder / "papers.jsonl"
    with CORPUS.open(encoding="utf-8") as f, src.open("w", encoding="utf-8") as out:
        kept = 0
        for line in f:
            r = json.loads(line)
            if (r.get("abstract") or "").strip() and kept < PAPERS:
                out.write(json.dumps({k: r.get(k) for k in ("title", "abstract", "authors", "year", "venue")}) + "\n")
                kept += 1
    lib = Library.open(folder / "lib", seed_if_empty=False)
    lib.import_files([src])
    return lib


def _lasso_around(canvas, spot) -> list:
    """An irregular loop of screen points around a region's label."""
    import numpy as np
    from PySide6.QtCore import QPointF

    cx, cy = canvas.camera.to_screen(np.array([[spot.x, spot.y]]))[0]
    radii = [120, 95, 135, 105, 150, 110, 90, 125, 140, 100]
    out = []
    for i in range(60):
        a = 2 * np.pi * i / 60
        r = np.interp(i / 6, np.arange(len(radii)), radii)
        out.append(QPointF(cx + r * np.cos(a) * 1.3, cy + r * np.sin(a)))
    return out


def _shoot(app, window, name: str) -> None:
    shoot_themes(app, window, ROOT / "screenshots", name)


def main() -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from reader.library import View
    from reader.ui.app import make_app
    from reader.ui.window.main_window import MainWindow

    (ROOT / "screenshots").mkdir(exist_ok=True)
    app = make_app()
    with tempfile.TemporaryDirectory(prefix="reader-map-shots-") as tmp:
        lib = _library(Path(tmp))
        window = MainWindow(lib, theme="light")
        window.resize(1280, 800)
        window.show()
        wait(app, lambda: window.index_ready and not window.runner.busy, timeout=120)
        ctl = window.map
        before = ctl.generation
        ctl.open()
        wait(app, lambda: ctl.generation > before, timeout=300)
        canvas = ctl.canvas
        # The labelled region nearest the middle of the map.
        mid = ctl.picture.xy.mean(axis=0)
        spots = sorted((s for s in ctl.picture.view.spots if s.level == 0 and s.label),
                       key=lambda s: (s.x - mid[0]) ** 2 + (s.y - mid[1]) ** 2)
        loop = _lasso_around(canvas, spots[0])
        ctrl = Qt.KeyboardModifier.ControlModifier
        QTest.mousePress(canvas, Qt.MouseButton.LeftButton, ctrl, loop[0].toPoint())
        for p in loop[1:]:
            QTest.mouseMove(canvas, p.toPoint())
        QTest.mouseRelease(canvas, Qt.MouseButton.LeftButton, ctrl, loop[-1].toPoint())
        wait(app, lambda: not window.runner.busy)
        canvas.lasso = loop[:48]  # a lasso being drawn, over the selection the last one made
        canvas.update()
        print(f"lasso selected {len(ctl.selected_ids())} papers")
        _shoot(app, window, "map-lasso")
        canvas.lasso = None
        ctl.select([])
        found = lib.listing("reinforcement learning", limit=300).ids
        lib.add_tags(list(found), ["rl"])
        window.set_view(View("tag", "rl"))
        wait(app, lambda: window.model.rowCount() == len(found) and not window.runner.busy, timeout=60)
        wait(app, lambda: ctl.base_key is not None and ctl.base_key[-1] == tuple(window.model.ids()), timeout=60)
        _shoot(app, window, "map-subset")
        before = ctl.generation
        ctl.page.buttons["refit"].click()
        wait(app, lambda: ctl.generation > before, timeout=60)
        print(f"refit {len(ctl.picture)} papers")
        _shoot(app, window, "map-refit")
        window.close()
        lib.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Start (issue 31): the window's first list needs SQLite and Qt only. Whoosh, numpy, the map,
triage's learner, the vault (YAML), the network sources (urllib3) and the importers' parsers
load when first used, never before the first list and paper are shown; the index then loads
on a worker, and the pages that were deferred still work.

No timing here: the window starts in a fresh interpreter, and the test asserts which modules
were loaded when its first list was shown (benchmarks/bench_gui.py prints the times)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from reader.library import Library

# Loaded by the window's start until 539eac7, none of them needed by the first screen.
DEFERRED = ("whoosh", "numpy", "reader.search.index", "reader.search.schema", "reader.search.typos",
            "reader.map", "reader.map.mapfile", "reader.triage.interests", "reader.triage.best",
            "reader.triage.source", "reader.vault.sync", "yaml", "reader.sources.http", "urllib3",
            "reader.importers", "bibtexparser", "reader.exporters.markdown", "pathvalidate")

# Opens the window as `reader` does, then reports what was loaded when the first list and its
# first paper were shown (before the event loop ran once), and again once the index caught up
# (on a worker) and the map and triage were opened.
PROBE = """
import json, sys, threading
from pathlib import Path

first_import = {}


class Watch:
    def find_spec(self, name, path=None, target=None):
        first_import.setdefault(name, threading.current_thread().name)
        return None


sys.meta_path.insert(0, Watch())
from reader.library import Library
from reader.ui.app import make_app
from reader.ui.window.main_window import MainWindow

root, report = Path(sys.argv[1]), sys.argv[2]
app = make_app()
window = MainWindow(Library.open(root, seed_if_empty=False), theme="light")
window.resize(1024, 640)
window.show()
shown = {"rows": window.model.rowCount(), "paper": window.pane.paper_id, "modules": sorted(sys.modules)}


def until(condition, what):
    import time
    end = time.monotonic() + 120
    while not condition():
        if time.monotonic() > end:
            raise SystemExit(f"timed out waiting for {what}")
        app.processEvents()
        time.sleep(0.005)


until(lambda: window.index_ready and not window.runner.busy, "the index")
until(lambda: window.index_sync.warmed, "the warm-up")
warm = sorted(sys.modules)
window.map.action.trigger()
until(lambda: window.map.picture is not None, "the map")
window.map.action.trigger()
window.triage.action.trigger()
until(lambda: window.triage.queue is not None and window.triage.view.isVisible(), "triage")
found = window.library.search("diffusion").ids
with open(report, "w", encoding="utf-8") as f:
    json.dump({"shown": shown, "first_import": first_import, "found": len(found), "warm": warm,
               "later": sorted(sys.modules)}, f)
window.close()
"""


def loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    present = set(modules)
    return [n for n in names if n in present]


def test_the_first_list_is_shown_before_whoosh_numpy_and_the_other_pages_load(tmp_path: Path,
                                                                              library: Library) -> None:
    root = library.paths.root
    library.close()
    report = tmp_path / "report.json"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "READER_NO_ERROR_DIALOG": "1"}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(root), str(report)], capture_output=True,
                          text=True, timeout=300, env=env, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(report.read_text(encoding="utf-8"))
    shown = out["shown"]
    assert shown["rows"] > 0 and shown["paper"]  # the first list and its paper were on screen
    assert loaded(shown["modules"], DEFERRED) == []
    assert "sqlite_utils" in shown["modules"] and "PySide6.QtWidgets" in shown["modules"]
    # Whoosh loads on the index's worker, never on the GUI thread; the deferred pages still work.
    assert out["first_import"]["whoosh"] != "MainThread"
    # What the first triage and map open need is imported once the index is warm, on its
    # worker: the first open does not import numpy and the learner on the GUI thread.
    pages = ("numpy", "reader.triage.source", "reader.triage.best", "reader.map.mapfile", "reader.map.layout")
    assert loaded(out["warm"], pages) == list(pages)  # before triage or the map was opened
    assert [m for m in pages if out["first_import"][m] == "MainThread"] == []
    assert loaded(out["later"], ("whoosh", "numpy", "reader.map.mapfile", "reader.triage.best")) == [
        "whoosh", "numpy", "reader.map.mapfile", "reader.triage.best"]
    assert out["found"] > 0

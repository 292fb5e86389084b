"""Time the GUI's vault pickup: one file edited by another program → the note editor shows it.

Usage: python scripts/vault_gui_bench.py [N]  (N papers from ../shared/corpora, all starred; default 3300)"""

from __future__ import annotations

import itertools
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"


def _wait(app, condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        app.processEvents()
        time.sleep(0.002)
    return True


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3300
    if not CORPUS.exists():
        print(f"no corpus at {CORPUS}")
        return 1
    from reader.cli import run as cli_run
    from reader.library import Library
    from reader.ui.app import make_app
    from reader.ui.window.main_window import MainWindow
    from reader.vault import sync

    app = make_app()
    with tempfile.TemporaryDirectory(prefix="reader-vault-bench-") as tmp:
        subset = Path(tmp) / "papers.jsonl"
        with CORPUS.open(encoding="utf-8") as src:
            subset.write_text("".join(itertools.islice(src, n)), encoding="utf-8")
        data, folder = Path(tmp) / "library", Path(tmp) / "vault"
        cli_run(["--data-dir", str(data), "import", str(subset)])
        library = Library.open(data)
        ids = library.paper_ids()
        library.set_starred(ids, True)
        t0 = time.perf_counter()
        report = sync(library, folder)
        print(f"{len(ids)} papers; first sync (core): {time.perf_counter() - t0:.2f} s, {len(report.written)} files")
        t0 = time.perf_counter()
        sync(library, folder)
        print(f"sync with nothing changed (core): {time.perf_counter() - t0:.2f} s")

        window = MainWindow(library, theme="light")
        window.show()
        _wait(app, lambda: window.index_ready and not window.runner.busy and window.pane.paper_id is not None)
        vs = window.vault_sync
        vs.configure(folder)
        _wait(app, lambda: vs.syncs > 0 and vs.watching() and not window.runner.busy)
        pid = window.pane.paper_id
        id_line = re.compile(rf"^id: ['\"]?{pid}", re.M)
        path = next(p for p in folder.rglob("*.md") if id_line.search(p.read_text(encoding="utf-8")))
        times = []
        for i in range(5):
            time.sleep(0.3)
            text = path.read_text(encoding="utf-8")
            note = f"edited in the vault, round {i}"
            new = re.sub(r"(<!-- reader:note -->\n).*?(\n<!-- /reader:note -->)",
                         lambda m, note=note: f"{m.group(1)}\n{note}\n{m.group(2)}", text, flags=re.S)
            t0 = time.perf_counter()
            path.write_text(new, encoding="utf-8")
            ok = _wait(app, lambda note=note: window.pane.noteEditor.toPlainText() == note, 10)
            times.append(time.perf_counter() - t0)
            print(f"round {i}: file -> note editor {times[-1]:.2f} s{'' if ok else ' (TIMED OUT)'}")
            _wait(app, lambda: not window.runner.busy, 10)
        print(f"pickup: median {sorted(times)[len(times) // 2]:.2f} s, max {max(times):.2f} s")
        window.close()
        library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

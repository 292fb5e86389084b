"""Save PNGs of fetching papers at 1024×640, light and dark, into screenshots/ (or the folder given):
Edit → Add by identifier… (ids typed, then the results), File → Add a conference… (a filtered
list, then a fetch in progress) and the sidebar's New view of a followed arXiv category. The
services are a local replay server of the corpora's recordings (tests/sources): no network."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from shots import ROOT, desktop_screen, prepare, wait  # scripts/ is on sys.path when run

OUT = prepare()  # before Qt is imported: offscreen
sys.path.insert(0, str(ROOT))


def _save(app: Any, widget: Any, out: Path, name: str) -> None:
    wait(app, lambda: False, timeout=0.5)
    path = out / f"{name}.png"
    widget.grab().save(str(path))
    print(path, f"{widget.width()}x{widget.height()}")


def main() -> int:
    from reader.library import Library, View
    from reader.models import ViewKind
    from reader.ui.app import make_app
    from reader.ui.window.main_window import MainWindow
    from tests.sources.replay import Fault, ReplayServer, load_arxiv_recordings
    from tests.sources.test_feed import PAGE100, _cat_path, _newest_first
    from tests.sources.venue_fixtures import corpus_papers, cvf_site

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="reader-shots-sources-") as tmp, ReplayServer() as server:
        os.environ["READER_CONFIG_DIR"] = str(Path(tmp) / "config")
        os.environ["READER_SOURCE_PACE_SCALE"] = "0"
        for name in ("ARXIV", "CROSSREF", "OPENREVIEW", "CVF"):
            os.environ[f"READER_SOURCE_{name}_URL"] = server.url
        load_arxiv_recordings(server)
        server.add(_cat_path("cs.LG", 0), _newest_first(PAGE100.read_bytes()))
        site = cvf_site(list(corpus_papers("wacv2024:", 6)), "WACV2024")
        for path, body in site.items():
            server.add(path, body)
        pages = [p for p in site if p.startswith("/content/")]
        desktop_screen()  # offscreen: the window at the size asked, not the 800 px screen's
        app = make_app()
        library = Library.open(Path(tmp) / "library")
        library.follow_feed("arxiv", "cs.LG")
        for theme in ("light", "dark"):
            window = MainWindow(library, theme=theme)
            window.resize(1024, 640)
            window.show()
            wait(app, lambda w=window: w.index_ready and not w.runner.busy and bool(w.sources.last_update), 120)
            window.sidebar.select_view(View(ViewKind.NEW))
            wait(app, lambda w=window: w.model.rowCount() == 100 and not w.runner.busy)
            _save(app, window, out, f"sources-new-view-{theme}")

            dialog = window.sources.ask_add()
            dialog.input.setPlainText("1707.08567\n10.1000/unknown.doi\narXiv:2401.00001")
            _save(app, dialog, out, f"sources-add-by-id-{theme}")
            dialog.input.setPlainText("1707.08567")
            dialog.addButton.click()
            wait(app, lambda d=dialog: not d.running and d.list.count() > 0, 60)
            _save(app, dialog, out, f"sources-add-by-id-done-{theme}")
            dialog.reject()

            venue = window.sources.ask_add_venue()
            venue.filterEdit.setText("wacv")
            _save(app, venue, out, f"sources-add-venue-filtered-{theme}")
            server.fault(pages[2], Fault.slow(30))
            venue.filterEdit.setText("wacv 2024")
            venue.addButton.click()
            wait(app, lambda: any(r.path == pages[2] for r in server.requests), 60)
            wait(app, lambda: False, timeout=1.0)
            _save(app, venue, out, f"sources-add-venue-progress-{theme}")
            venue.reject()
            window.close()
            wait(app, lambda: False, timeout=1.0)
        library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

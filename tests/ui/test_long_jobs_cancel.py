"""Long jobs stopped from the status bar's Cancel (issue 31): a map layout and an index rebuild
stop where the real code checks its cancel flag, and the derived files stay as they were: the
map's file unwritten (or the old one byte for byte), the index with its old stamp, documents and
answers, no stray files beside either; the next layout or rebuild then runs to its end."""

from __future__ import annotations

import threading
from pathlib import Path

from reader import index_upkeep
from reader.library import Library
from reader.map import mapfile
from reader.ui.window.main_window import MainWindow


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _held_until_cancelled(monkeypatch, module, name: str) -> threading.Event:
    """module.name (a step of the real job) waits, once started, until the job's cancel flag is
    set; then it returns what the real step returns, and the real code after it must stop."""
    real = getattr(module, name)
    started = threading.Event()

    def held(*args, **kwargs):
        started.set()
        cancelled = kwargs.get("cancelled")
        assert cancelled is not None, f"{name} was given no cancel flag"
        for _ in range(3000):
            if cancelled():
                break
            threading.Event().wait(0.01)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, held)
    return started


def _cancel_from_the_status_bar(qtbot, window: MainWindow, started: threading.Event) -> None:
    bar = window.status
    qtbot.waitUntil(started.is_set)
    qtbot.waitUntil(lambda: bar.cancelButton.isVisible())
    bar.cancelButton.click()
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert not bar.cancelButton.isVisible()


def test_cancel_stops_the_first_map_layout_and_writes_no_map(qtbot, window: MainWindow, library: Library,
                                                            monkeypatch) -> None:
    root = library.paths.root
    before = _files(root / "map") if (root / "map").is_dir() else {}
    assert not mapfile.path_for(root).exists()
    started = _held_until_cancelled(monkeypatch, mapfile, "features_of")
    controller = window.map
    controller.open()
    _cancel_from_the_status_bar(qtbot, window, started)
    qtbot.waitUntil(lambda: controller.layout_task is None)
    assert "cancelled" in controller.canvas.message.lower()
    assert not mapfile.path_for(root).exists()  # nothing half-written in its place
    assert (_files(root / "map") if (root / "map").is_dir() else {}) == before
    assert [p.name for p in root.iterdir() if ".tmp" in p.name or p.name.endswith(".partial")] == []
    monkeypatch.undo()
    before_gen = controller.generation
    controller.reload(full=True)  # tried again: laid out to the end
    qtbot.waitUntil(lambda: controller.generation > before_gen)
    stored = mapfile.load(mapfile.path_for(root), None)
    assert stored is not None and sorted(stored.ids) == sorted(library.paper_ids())


def test_cancel_stops_a_re_layout_and_keeps_the_old_map(qtbot, window: MainWindow, library: Library,
                                                       monkeypatch) -> None:
    root = library.paths.root
    controller = window.map
    gen = controller.generation
    controller.open()  # the first layout, to its end
    qtbot.waitUntil(lambda: controller.generation > gen and not window.runner.busy)
    path = mapfile.path_for(root)
    old = path.read_bytes()
    neighbours = sorted(p.name for p in path.parent.iterdir())
    started = _held_until_cancelled(monkeypatch, mapfile, "features_of")
    controller.reload(full=True)  # View → Re-layout
    _cancel_from_the_status_bar(qtbot, window, started)
    assert "cancelled" in controller.canvas.message.lower()
    assert path.read_bytes() == old  # the old map, whole
    assert sorted(p.name for p in path.parent.iterdir()) == neighbours
    assert controller.data is not None and sorted(controller.data.ids) == sorted(library.paper_ids())


def test_cancel_stops_an_index_rebuild_and_keeps_the_index(qtbot, window: MainWindow, library: Library,
                                                          monkeypatch) -> None:
    folder = library.paths.index_dir
    stamp = library.index.stamp
    docs = library.index.doc_count
    found = [r.id for r in library.search("learning", limit=20).hits]
    files = _files(folder)
    assert found and stamp >= 0

    real_docs = index_upkeep.iter_docs
    started = threading.Event()
    cancel_seen: list[bool] = []

    def slow_docs(conn):
        started.set()
        # The rebuild is under way (it asked for its first document): wait here for the Cancel. (At
        # the third document, a Cancel clicked before it stopped the rebuild first, unseen.) The
        # status bar's task is looked up as it waits: this worker may start before it is listed.
        for _ in range(3000):
            task = window.status.tasks[0] if window.status.tasks else None
            if task is not None and task.cancelled():
                cancel_seen.append(True)
                break
            threading.Event().wait(0.01)
        yield from real_docs(conn)

    monkeypatch.setattr(index_upkeep, "iter_docs", slow_docs)
    window.index_sync.reindex()
    _cancel_from_the_status_bar(qtbot, window, started)
    assert cancel_seen == [True]
    index = library.index
    assert index.stamp == stamp and index.doc_count == docs
    assert [r.id for r in library.search("learning", limit=20).hits] == found
    assert _files(folder) == files  # not a file added, removed or changed
    monkeypatch.undo()
    window.index_sync.reindex()  # again, to its end: the same answers
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert library.index.doc_count == docs
    assert [r.id for r in library.search("learning", limit=20).hits] == found


def test_cancel_stops_a_bibtex_export_and_leaves_no_file(qtbot, window: MainWindow, library: Library,
                                                        tmp_path: Path, monkeypatch) -> None:
    from reader.models import ExportKind
    from reader.ui.dialogs.common import ExportOptions

    out = tmp_path / "out"
    out.mkdir()
    target = out / "papers.bib"
    real = library._cited_papers
    started = threading.Event()

    def slow(ids):
        for n, paper in enumerate(real(ids)):
            if n == 3:  # under way: wait for the Cancel (the real loop checks before each paper)
                started.set()
                task = window.status.tasks[0] if window.status.tasks else None
                for _ in range(3000):
                    if task is not None and task.cancelled():
                        break
                    threading.Event().wait(0.01)
            yield paper

    monkeypatch.setattr(library, "_cited_papers", slow)
    errors: list[BaseException] = []
    monkeypatch.setattr(window, "handle_error", errors.append)
    window.transfer.export_to(target, ExportOptions(kind=ExportKind.BIBTEX, scope="view"))
    _cancel_from_the_status_bar(qtbot, window, started)
    assert list(out.iterdir()) == []  # neither the file nor a temporary one
    assert errors == [] and window.transfer.last_export is None
    qtbot.waitUntil(lambda: "cancelled" in window.status.currentMessage().lower())
    monkeypatch.undo()
    window.transfer.export_to(target, ExportOptions(kind=ExportKind.BIBTEX, scope="view"))
    qtbot.waitUntil(lambda: window.transfer.last_export is not None)
    assert window.transfer.last_export == len(library.paper_ids()) and target.read_text("utf-8").count("@") >= 56

"""The vault watcher: debounced callbacks for bursts of Markdown changes; hidden and temp files ignored.

A busy machine may split a burst (a timer thread late by more than the delay), so the tests ask for
at least one callback, none for ignored files, and one after the last save.
"""

from __future__ import annotations

import threading
import time

from reader.vault import sync
from reader.vault.watch import VaultWatcher, relevant


def _wait(event: threading.Event, seconds: float) -> bool:
    return event.wait(seconds)


def test_relevant_paths(tmp_path):
    root = tmp_path.resolve()
    assert relevant(root, str(root / "Paper.md"))
    assert relevant(root, str(root / "sub" / "Paper.MD"))
    assert not relevant(root, str(root / ".trash" / "Paper.md"))
    assert not relevant(root, str(root / ".obsidian" / "workspace.md"))
    assert not relevant(root, str(root / ".Paper.md.123.reader-tmp"))
    assert not relevant(root, str(root / "image.png"))
    assert not relevant(root, str(tmp_path.parent / "elsewhere.md"))


def test_a_burst_of_saves_calls_back_after_the_last_save(tmp_path):
    calls: list[float] = []
    fired = threading.Event()

    def on_change():
        calls.append(time.monotonic())
        fired.set()

    with VaultWatcher(tmp_path, on_change, delay=0.3):
        (tmp_path / ".obsidian").mkdir()
        (tmp_path / ".obsidian" / "x.md").write_text("ignored")
        assert not _wait(fired, 0.8)  # hidden folders never call back
        for i in range(5):
            (tmp_path / "note.md").write_text(f"save {i}")
            last_save = time.monotonic()
            time.sleep(0.05)
        deadline = time.monotonic() + 120  # a limit on a hang only
        while time.monotonic() < deadline and not (calls and calls[-1] >= last_save):
            time.sleep(0.05)
    assert 1 <= len(calls) <= 5 and calls[-1] >= last_save
    assert (tmp_path / "note.md").read_text() == "save 4"


def test_a_file_saved_by_another_editor_reaches_reader_through_the_watcher(lib, vault, ids):
    lib.set_note(ids[0], "before")
    sync(lib, vault)
    path = next(vault.glob("*.md"))
    done = threading.Event()
    reports = []

    def on_change():
        reports.append(sync(lib, vault))
        done.set()

    with VaultWatcher(vault, on_change, delay=0.2):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("\nbefore\n", "\nafter, from the editor\n"), encoding="utf-8")
        assert _wait(done, 120)  # a limit on a hang only: on a busy machine the turn comes late
    assert lib.paper(ids[0]).note == "after, from the editor"
    assert any(r.taken_from_vault for r in reports)


def test_the_callback_can_have_the_changed_paths(tmp_path):
    got: list[set[str]] = []
    fired = threading.Event()

    def on_paths(paths):
        got.append(paths)
        fired.set()

    root = tmp_path.resolve()
    with VaultWatcher(root, lambda: None, delay=0.3, on_paths=on_paths):
        (root / "a.md").write_text("a")
        (root / "b.txt").write_text("not markdown")
        (root / "c.md").write_text("c")
        deadline = time.monotonic() + 120  # a limit on a hang only
        while time.monotonic() < deadline and set().union(*got) != {str(root / "a.md"), str(root / "c.md")}:
            time.sleep(0.05)
    assert fired.is_set() and set().union(*got) == {str(root / "a.md"), str(root / "c.md")}

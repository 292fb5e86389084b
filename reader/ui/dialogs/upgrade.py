"""Opening a library that needs a one-time upgrade, behind a progress dialog.

A library made by an older Reader is rewritten on its first open (schema migrations, plain texts
rendered anew; a backup is taken first). At 100k papers that takes about a minute: the open runs
on a thread of its own while the dialog says what is happening, instead of a start that shows
nothing at all. A library that needs no upgrade opens directly, as before."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from reader.library import Library

# The dialog's text per kind of upgrade (Library.upgrade_kind; the CLI says the same in one line).
UPGRADE_TEXTS = {
    "schema": "Upgrading the library in {folder} to this version of Reader.\nThis happens once; a backup is taken first.",
    "texts": "Upgrading the library in {folder} to this version of Reader.\n"
             "Its abstracts' plain texts are rendered anew, once.",
    "restored": "Preparing the restored library in {folder}.\nIts abstracts' plain texts are rendered anew, once.",
}


class _Opened(QObject):
    done = Signal()


def open_library(data_dir: Path, *, seed_if_empty: bool = True, parent: QWidget | None = None) -> Library:
    """`Library.open(data_dir)`; when a one-time upgrade is due, on a worker thread behind a busy
    dialog (no Cancel: an upgrade stopped halfway is rolled back and would only start again).
    Raises what `Library.open` raises."""
    kind = Library.upgrade_kind(data_dir)
    if kind is None:
        return Library.open(data_dir, seed_if_empty=seed_if_empty)
    outcome: dict[str, object] = {}
    signal = _Opened()

    def work() -> None:
        try:
            outcome["library"] = Library.open(data_dir, seed_if_empty=seed_if_empty)
        except BaseException as exc:  # handed to the GUI thread, raised there
            outcome["error"] = exc
        finally:
            signal.done.emit()  # queued to the GUI thread's loop below

    text = UPGRADE_TEXTS[kind].format(folder=data_dir)
    dialog = QProgressDialog(text, "", 0, 0, parent)
    dialog.setCancelButton(None)  # no button
    dialog.setObjectName("upgradeProgress")
    dialog.setWindowTitle("Reader")
    dialog.setAccessibleName("Upgrading the library")
    dialog.setAccessibleDescription(text.replace("\n", " "))
    dialog.setWindowModality(Qt.WindowModality.ApplicationModal)
    dialog.setMinimumDuration(0)
    loop = QEventLoop()
    signal.done.connect(loop.quit, Qt.ConnectionType.QueuedConnection)
    thread = threading.Thread(target=work, name="reader-upgrade", daemon=True)
    dialog.show()
    thread.start()
    loop.exec()
    thread.join()
    dialog.close()
    dialog.deleteLater()
    error = outcome.get("error")
    if isinstance(error, BaseException):
        raise error
    library = outcome["library"]
    assert isinstance(library, Library)
    return library

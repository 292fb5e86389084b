"""Start the desktop app: QApplication, theme, icon, fonts, the library and the main window."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from reader.errors import ReaderError
from reader.ui import pyside_imports

if TYPE_CHECKING:
    from .window.main_window import MainWindow
from reader.ui.widgets.fonts import ensure_fonts, prepare_font_env


def app_icon() -> QIcon:
    """The bundled icon, or an empty one when the resource is missing."""
    try:
        from reader.bundled import resource

        res = resource("reader.svg")
        if res.is_file():
            from importlib.resources import as_file

            with as_file(res) as path:
                icon = QIcon(str(path))
                icon.pixmap(64, 64)  # load now: as_file may hand out a temporary path
                return icon
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        pass
    return QIcon()


NO_DISPLAY_MESSAGE = "reader: no display found (set DISPLAY, or QT_QPA_PLATFORM=offscreen for tests)"


def display_available(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """False on Linux with no X11/Wayland display and no Qt platform chosen: Qt would abort (exit 134)."""
    env = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return True
    return any(env.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        prepare_font_env()
        app = QApplication(argv if argv is not None else sys.argv[:1])
    # Workers run pure-Python Whoosh/SQLite code; a short GIL switch interval lets the GUI thread
    # (which needs the GIL for every model data() call) in quickly, so typing never stalls.
    sys.setswitchinterval(0.001)
    pyside_imports.install()  # the modules workers import later are checked from their bytes
    app.setApplicationName("Reader")
    app.setOrganizationName("Reader")
    app.setDesktopFileName("reader")
    app.setStyle("Fusion")
    app.setWindowIcon(app_icon())
    ensure_fonts(app)
    return app


def run(data_dir: Path, import_paths: Sequence[str | Path] | None = None) -> int:
    """`reader [PATH...]`: open the library in data_dir and run the window.

    import_paths (e.g. from the desktop's "Open with") are imported through the window's
    normal import path (background, progress, summary) once the window is up."""
    if not display_available():
        sys.stderr.write(NO_DISPLAY_MESSAGE + "\n")
        return 1
    app = make_app()
    window = open_window(Path(data_dir), import_paths)
    if window is None:
        return 1
    # What start-up built lives as long as the window: keep it out of the collector's
    # passes (shorter pauses while typing in a big library).
    gc.freeze()
    try:
        return app.exec()
    finally:
        window.library.close(finish_backup=False)


def open_window(data_dir: Path, import_paths: Sequence[str | Path] | None = None) -> MainWindow | None:
    """Open the library and show the main window (None after telling the user it can't open)."""
    from reader.paths import LibraryPaths

    from .crash import install_excepthook
    from .dialogs.upgrade import open_library
    from .widgets.plain import message_box
    from .window.main_window import MainWindow

    paths = LibraryPaths(data_dir)
    install_excepthook(paths.logs_dir)
    try:
        library = open_library(data_dir)  # an upgrade due: on a thread, behind a progress dialog
    except ReaderError as exc:
        message_box(QMessageBox.Icon.Critical, "Reader", f"The library in {data_dir} cannot be opened.\n\n{exc}").exec()
        return None
    window = MainWindow(library)  # the theme, like the geometry, comes from the global settings
    if window.property("restoredMaximized"):
        window.showMaximized()
    else:
        window.show()
    if import_paths:
        files = [str(Path(p).expanduser().resolve()) for p in import_paths]
        # After the first paint: the window shows at once, the import runs in the background.
        QTimer.singleShot(0, lambda: window.transfer.import_paths(files))
    return window

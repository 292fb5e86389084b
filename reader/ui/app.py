"""Start the desktop app: QApplication, theme, icon, fonts, the library and the main window."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from reader.errors import ReaderError
from reader.ui.fonts import ensure_fonts, prepare_font_env


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


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        prepare_font_env()
        app = QApplication(argv if argv is not None else sys.argv[:1])
    # Workers run pure-Python Whoosh/SQLite code; a short GIL switch interval lets the GUI thread
    # (which needs the GIL for every model data() call) in quickly, so typing never stalls.
    sys.setswitchinterval(0.001)
    app.setApplicationName("Reader")
    app.setOrganizationName("Reader")
    app.setDesktopFileName("reader")
    app.setStyle("Fusion")
    app.setWindowIcon(app_icon())
    ensure_fonts(app)
    return app


def run(data_dir: Path) -> int:
    """`reader` with no subcommand: open the library in data_dir and run the window."""
    from reader.paths import LibraryPaths
    from reader.services import Library

    from .crash import install_excepthook
    from .main_window import MainWindow

    app = make_app()
    paths = LibraryPaths(Path(data_dir))
    install_excepthook(paths.logs_dir)
    try:
        library = Library.open(data_dir)
    except ReaderError as exc:
        QMessageBox.critical(None, "Reader", f"The library in {data_dir} cannot be opened.\n\n{exc}")
        return 1
    theme = str(QSettings(str(paths.settings_file), QSettings.Format.IniFormat).value("theme", "system"))
    window = MainWindow(library, theme=theme)
    window.show()
    try:
        return app.exec()
    finally:
        library.close()

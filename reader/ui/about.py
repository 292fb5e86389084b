"""Help → About Reader: version, licence, where the library lives, and links."""

from __future__ import annotations

import html
import sys
from typing import TYPE_CHECKING

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout

from reader import __version__

if TYPE_CHECKING:
    from .main_window import MainWindow

LICENCE = "MIT"
LINKS = (("The MIT licence", "https://opensource.org/license/mit"),
         ("Qt for Python (PySide6, LGPL)", "https://doc.qt.io/qtforpython-6/"),
         ("Whoosh search", "https://pypi.org/project/Whoosh-Reloaded/"))


def about_html(w: MainWindow) -> str:
    root = w.library.paths.root
    folder = QUrl.fromLocalFile(str(root)).toString()
    links = "<br>".join(f"<a href='{html.escape(u, quote=True)}'>{html.escape(t)}</a>" for t, u in LINKS)
    py = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    return (f"<h3>Reader {html.escape(__version__)}</h3>"
            "<p>Read, triage and annotate research-paper abstracts.</p>"
            f"<p>Licence: {LICENCE}<br>Python {py} · PySide6 {html.escape(pyside_version)}</p>"
            f"<p>Library folder:<br><a href='{html.escape(folder, quote=True)}'>{html.escape(str(root))}</a></p>"
            f"<p>{links}</p>")


class AboutDialog(QDialog):
    def __init__(self, w: MainWindow) -> None:
        super().__init__(w)
        self.setObjectName("aboutDialog")
        self.setWindowTitle("About Reader")
        self.textLabel = QLabel(about_html(w), self)
        self.textLabel.setObjectName("aboutText")
        self.textLabel.setTextFormat(Qt.TextFormat.RichText)
        self.textLabel.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.textLabel.setOpenExternalLinks(False)
        self.textLabel.linkActivated.connect(lambda url: QDesktopServices.openUrl(QUrl(url)))
        self.textLabel.setAccessibleName(f"Reader {__version__}, licence {LICENCE}, library {w.library.paths.root}")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.textLabel)
        layout.addWidget(buttons)


def show_about(w: MainWindow) -> AboutDialog:
    dialog = AboutDialog(w)
    dialog.open()
    return dialog

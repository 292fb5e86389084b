"""Help → About Reader: version, licence, where the library lives, and links."""

from __future__ import annotations

import html
import sys
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from reader import __version__

LICENCE = "MIT"
LINKS = (("The MIT licence", "https://opensource.org/license/mit"),
         ("Qt for Python (PySide6, LGPL)", "https://doc.qt.io/qtforpython-6/"),
         ("Whoosh search", "https://pypi.org/project/Whoosh-Reloaded/"))


def about_html(root: Path) -> str:
    """The dialog's text; `root` is the library folder it links to."""
    folder = QUrl.fromLocalFile(str(root)).toString()
    links = "<br>".join(f"<a href='{html.escape(u, quote=True)}'>{html.escape(t)}</a>" for t, u in LINKS)
    py = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    return (f"<h3>Reader {html.escape(__version__)}</h3>"
            "<p>Read, triage and annotate research-paper abstracts.</p>"
            f"<p>Licence: {LICENCE}<br>Python {py} · PySide6 {html.escape(pyside_version)}</p>"
            f"<p>Library folder:<br><a href='{html.escape(folder, quote=True)}'>{html.escape(str(root))}</a></p>"
            f"<p>{links}</p>")


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget, root: Path) -> None:
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle("About Reader")
        self.textLabel = QLabel(about_html(root), self)
        self.textLabel.setObjectName("aboutText")
        self.textLabel.setTextFormat(Qt.TextFormat.RichText)
        self.textLabel.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.textLabel.setOpenExternalLinks(False)
        self.textLabel.linkActivated.connect(lambda url: QDesktopServices.openUrl(QUrl(url)))
        self.textLabel.setAccessibleName(f"Reader {__version__}, licence {LICENCE}, library {root}")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.textLabel)
        layout.addWidget(buttons)


def show_about(parent: QWidget, root: Path) -> AboutDialog:
    """Help → About Reader, on `parent`, naming the library folder `root`."""
    dialog = AboutDialog(parent, root)
    dialog.open()
    return dialog

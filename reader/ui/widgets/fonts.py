"""Bundled fallback font (DejaVu Sans) so text is drawn even on systems without any fonts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtGui import QFont, QFontDatabase, QRawFont
from PySide6.QtWidgets import QApplication

from reader.bundled import resource

FALLBACK_FAMILY = "DejaVu Sans"
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
# fontconfig always reports these aliases, even when it has no font files at all.
GENERIC_FAMILIES = frozenset(
    {"sans serif", "sans-serif", "sans", "serif", "monospace", "mono", "system-ui", "helvetica"}
)


def fonts_dir() -> Path | None:
    """The bundled fonts folder as a real directory (None when not shipped)."""
    try:
        path = Path(str(resource("fonts")))
    except (ModuleNotFoundError, TypeError):
        return None
    return path if path.is_dir() else None


def prepare_font_env() -> None:
    """Call before QApplication: point Qt's FreeType font database at the bundled fonts.

    Only the non-fontconfig font database (linuxfb/eglfs/minimal, or a Qt built without
    fontconfig) reads QT_QPA_FONTDIR; without it that database warns that it cannot find
    Qt's own (no longer shipped) font directory. The fontconfig database ignores it.
    """
    if sys.platform in ("win32", "darwin") or "QT_QPA_FONTDIR" in os.environ:
        return
    folder = fonts_dir()
    if folder is not None:
        os.environ["QT_QPA_FONTDIR"] = str(folder)


def has_usable_font() -> bool:
    """True when the font database holds a real family whose font has a glyph for 'A'."""
    real = [f for f in QFontDatabase.families() if f.lower() not in GENERIC_FAMILIES]
    if not real:
        return False
    # The default font may still be an alias resolving to nothing (boxes instead of glyphs).
    raw = QRawFont.fromFont(QFont())
    return raw.isValid() and raw.supportsCharacter("A")


def register_bundled_fonts() -> list[str]:
    """Add the bundled TTFs to the application font database; returns the families added."""
    folder = fonts_dir()
    if folder is None:
        return []
    families: list[str] = []
    for name in FONT_FILES:
        font_id = QFontDatabase.addApplicationFont(str(folder / name))
        if font_id >= 0:
            families.extend(QFontDatabase.applicationFontFamilies(font_id))
    return sorted(set(families))


def ensure_fonts(app: QApplication) -> None:
    """Make sure text renders: fall back to the bundled DejaVu Sans when no font is usable."""
    if has_usable_font():
        return
    families = register_bundled_fonts()
    if FALLBACK_FAMILY not in families:
        return
    # Generic names used anywhere in the UI (style sheets, QFont("Monospace")) must resolve too.
    for generic in GENERIC_FAMILIES:
        QFont.insertSubstitution(generic, FALLBACK_FAMILY)
    font = QFont(app.font())
    font.setFamilies([FALLBACK_FAMILY])
    app.setFont(font)

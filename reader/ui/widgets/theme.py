"""Light/dark palettes on the Fusion style, following the system unless the user forces one.

Fusion outlines what it draws (line edits, spin boxes, combo boxes, lists and text fields, tabs,
scroll bar handles, menus, check boxes) in the window colour darkened by 40 %: on the dark
palette a shade from the window itself, so in the dark every field read as bare text on the
window (frame contrast about 30 of 765 where the light theme has 150-200), and group boxes,
drawn from a fixed translucent picture, showed no frame at all. Two remedies, each for a whole
class of widgets, never one widget:
- a palette of their own (`QApplication.setPalette(palette, class)`) for the widgets Fusion
  outlines and paints nothing else of in the window colour: spin boxes, combo boxes, scroll
  bars and tabs (`outline_palette`: a window colour whose darker shade is the frame colour),
  check boxes and radio buttons (`indicator_palette`: their box's fill as well);
- the window's style sheet (`window_css`) for framed line edits, framed scroll areas (lists,
  tables, text fields: their corner square is filled with the window colour, so a lighter one
  would show), group boxes, menus and a combo box's list (drawn on the menus' palette: a
  lighter window colour there filled the list grey), each bordered in the same frame colour.
The light theme puts back the standard palette for those classes and has no style sheet.
The window's style sheet, not the application's: setting that one re-polishes every widget of
every window, and a window closed but not yet deleted then raised "Signal source has been deleted"."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QFileDialog

THEMES = ("system", "light", "dark")
FRAME = "#606168"  # the dark theme's frames (contrast 181 of 765 on the window colour)
FOCUS_FRAME = "#4f86cc"
# Framed line edits only: a spin box's or an editable combo box's own line edit has no frame.
# Border and padding add up to what Fusion's frame takes, so every field keeps its size; a scroll
# area's frame is 1 px in Fusion, as this border.
WINDOW_CSS = f"""
QLineEdit[frame="true"] {{ border: 1px solid {FRAME}; border-radius: 2px; padding: 2px 0;
                          background-color: palette(base); }}
QLineEdit[frame="true"]:focus {{ border-color: {FOCUS_FRAME}; }}
QLineEdit[frame="true"]:disabled {{ border-color: #45464c; }}
QAbstractScrollArea {{ border: 1px solid {FRAME}; }}
QPlainTextEdit:focus, QTextEdit:focus {{ border-color: {FOCUS_FRAME}; }}
QAbstractScrollArea[frameShape="NoFrame"] {{ border: none; }}
QGroupBox {{ border: 1px solid {FRAME}; border-radius: 3px; margin-top: 0.7em; padding-top: 0.5em; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 7px; padding: 0 3px; }}
QMenu, QComboBox QAbstractItemView[frameShape="NoFrame"] {{ border: 1px solid {FRAME}; }}
"""


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    return bool(scheme and scheme() == Qt.ColorScheme.Dark)


def dark_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor(37, 38, 41), QColor(28, 29, 31), QColor(226, 226, 228)
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor(42, 43, 47),
        QPalette.ColorRole.ToolTipBase: QColor(50, 51, 55),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: QColor(140, 140, 145),
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor(48, 49, 53),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor(255, 90, 90),
        QPalette.ColorRole.Link: QColor(110, 170, 255),
        QPalette.ColorRole.LinkVisited: QColor(170, 140, 255),
        QPalette.ColorRole.Highlight: QColor(52, 101, 164),
        QPalette.ColorRole.HighlightedText: QColor(255, 255, 255),
        QPalette.ColorRole.Light: QColor(70, 71, 75),
        QPalette.ColorRole.Midlight: QColor(58, 59, 63),
        QPalette.ColorRole.Mid: QColor(45, 46, 50),
        QPalette.ColorRole.Dark: QColor(22, 22, 24),
        QPalette.ColorRole.Shadow: QColor(0, 0, 0),
    }
    for role, colour in roles.items():
        p.setColor(role, colour)
    disabled = QColor(120, 120, 125)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return p


def apply_theme(app: QApplication, theme: str) -> bool:
    """Apply "system" | "light" | "dark"; returns True when the result is dark."""
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    dark = theme == "dark" or (theme == "system" and system_is_dark())
    app.setPalette(dark_palette() if dark else app.style().standardPalette())
    for cls in INDICATOR_CLASSES:
        # PySide6's stub says bytes; the binding takes only a str (bytes raise ValueError).
        QApplication.setPalette(indicator_palette() if dark else app.style().standardPalette(), cls)  # type: ignore[arg-type]
    for cls in OUTLINED_CLASSES:
        QApplication.setPalette(outline_palette() if dark else app.style().standardPalette(), cls)  # type: ignore[arg-type]
    return dark


INDICATOR_CLASSES = ("QCheckBox", "QRadioButton")
# Drawn by Fusion with an outline in the window colour darkened by 40 % and nothing else in that
# colour: their own palette's window colour makes the outline show.
OUTLINED_CLASSES = ("QAbstractSpinBox", "QComboBox", "QScrollBar", "QTabWidget", "QTabBar")


def outline_palette() -> QPalette:
    """The dark palette for widgets Fusion outlines in the window colour darkened by 40 %
    (spin boxes, combo boxes, scroll bars, tabs): a window colour whose darker shade is the
    frame colour of the dark theme's fields."""
    p = dark_palette()
    p.setColor(QPalette.ColorRole.Window, QColor(FRAME).lighter(140))
    return p


def indicator_palette() -> QPalette:
    """The dark palette for check boxes and radio buttons: Fusion outlines their box in the
    window colour darkened by 40 % and fills it with the base colour, both a shade from the
    window; from these it draws a mid-grey outline around a box lighter than the window. The
    widgets paint no background, so their window colour shows nowhere else."""
    p = dark_palette()
    p.setColor(QPalette.ColorRole.Window, QColor(150, 150, 155))
    p.setColor(QPalette.ColorRole.Base, QColor(40, 40, 44))
    return p


def file_dialog_options() -> QFileDialog.Option:
    """The options of every file dialog: in the dark theme Qt's own dialog, which follows the
    palette (the platform's native dialog stayed light in a dark window)."""
    app = QApplication.instance()
    dark = isinstance(app, QApplication) and app.palette().color(QPalette.ColorRole.Window).lightness() < 128
    return QFileDialog.Option.DontUseNativeDialog if dark else QFileDialog.Option(0)


def window_css(dark: bool) -> str:
    """The style sheet of a window in the dark theme (framed line edits, lists, text fields,
    group boxes, menus and combo boxes' lists) or the light one (none)."""
    return WINDOW_CSS if dark else ""

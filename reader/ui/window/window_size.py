"""The window's size and place: always on the screen, the last one per screen.

The first window opens at DEFAULT_SIZE, or smaller when the screen's available area is smaller
(a 1280 x 800 window on a 1024 x 640 screen hid the paper pane and the status bar). Closing
remembers the window's normal geometry (and whether it was maximized) under the screen it was on,
keyed by the screen's name and geometry; the next start restores what was saved for the screen
it opens on, clamped to that screen's available area (a size saved on a bigger monitor, or a
screen that shrank, never puts the window off screen). Qt's restoreGeometry alone is not used:
its bytes hold the frame of another screen and were applied or not depending on when the window
manager mapped the window."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSettings, QSize
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

DEFAULT_SIZE = QSize(1280, 800)
PREFIX = "windowPerScreen"


def screen_key(screen: QScreen | None) -> str:
    """The screen's name and geometry ("HDMI-1 1920x1080+0+0"): a monitor plugged in elsewhere,
    or another resolution of it, is another screen."""
    if screen is None:
        return "none"
    g = screen.geometry()
    name = screen.name() or "screen"
    return f"{name} {g.width()}x{g.height()}+{g.x()}+{g.y()}".replace("/", "_").replace("\\", "_")


def available(widget: QWidget | None = None) -> QRect:
    """The available area (without panels and docks) of the widget's screen, else the primary one."""
    screen = widget.screen() if widget is not None else None
    screen = screen or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, DEFAULT_SIZE.width(), DEFAULT_SIZE.height())


def clamp(rect: QRect, area: QRect, minimum: QSize | None = None) -> QRect:
    """`rect` made to fit in `area`: no bigger (nor smaller than `minimum` where the area allows)
    and moved inside it."""
    w, h = min(rect.width(), area.width()), min(rect.height(), area.height())
    if minimum is not None:
        w = max(w, min(minimum.width(), area.width()))
        h = max(h, min(minimum.height(), area.height()))
    x = min(max(rect.x(), area.x()), area.x() + area.width() - w)
    y = min(max(rect.y(), area.y()), area.y() + area.height() - h)
    return QRect(x, y, w, h)


def first_geometry(area: QRect) -> QRect:
    """The first window: DEFAULT_SIZE or the area, centred."""
    w, h = min(DEFAULT_SIZE.width(), area.width()), min(DEFAULT_SIZE.height(), area.height())
    return QRect(area.x() + (area.width() - w) // 2, area.y() + (area.height() - h) // 2, w, h)


def _rect(value: object) -> QRect | None:
    if isinstance(value, QRect):
        return value if value.isValid() else None
    parts = [value] if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else []
    text = ",".join(str(p) for p in parts)
    try:
        x, y, w, h = (int(float(p)) for p in text.split(","))
    except ValueError:
        return None
    return QRect(x, y, w, h) if w > 0 and h > 0 else None


def saved(settings: QSettings, key: str) -> tuple[QRect | None, bool]:
    """(normal geometry, maximized) saved for the screen `key`."""
    rect = _rect(settings.value(f"{PREFIX}/{key}/rect"))
    maximized = str(settings.value(f"{PREFIX}/{key}/maximized", "false")).lower() in ("true", "1")
    return rect, maximized


def restore(window: QWidget, settings: QSettings) -> QRect:
    """Place `window` (not yet shown) as it was last on its screen, else at the first size;
    always inside the screen's available area. Returns the geometry set."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    area = available(window)
    rect, maximized = saved(settings, screen_key(screen))
    legacy = settings.value("geometry")
    if rect is None and isinstance(legacy, QByteArray | bytes) and window.restoreGeometry(QByteArray(legacy)):
        rect = window.geometry()  # saved before sizes were kept per screen: clamped like one
    if rect is None:
        target = first_geometry(area)
    else:
        target = clamp(rect, area, window.minimumSizeHint())
    window.setGeometry(target)
    window.setProperty("restoredMaximized", maximized)
    return target


def save(window: QWidget, settings: QSettings) -> None:
    """Remember the window's normal geometry on its screen (and whether it is maximized)."""
    key = screen_key(window.screen())
    g = window.normalGeometry() if window.isMaximized() or window.isFullScreen() else window.geometry()
    if not g.isValid():
        g = window.geometry()
    settings.setValue(f"{PREFIX}/{key}/rect", f"{g.x()},{g.y()},{g.width()},{g.height()}")
    settings.setValue(f"{PREFIX}/{key}/maximized", window.isMaximized())


def keep_on_screen(window: QWidget) -> None:
    """After showing: if the window (or its frame) still reaches past its screen, pull it in."""
    area = available(window)
    frame = window.frameGeometry()
    if area.contains(frame):
        return
    extra = QSize(frame.width() - window.width(), frame.height() - window.height())
    inner = QRect(area.topLeft(), area.size() - extra) if area.width() > extra.width() else area
    fitted = clamp(window.geometry(), inner)
    window.setGeometry(fitted)

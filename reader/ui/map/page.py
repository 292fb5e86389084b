"""The map widgets: the canvas (`mapView`), the year histogram under it, and the page holding both.

The canvas draws a MapPicture (map_render.py) and says what the user did by signals: a paper
clicked, papers selected with a rubber band (Shift+drag), a lasso (Ctrl/Alt+drag, or any drag
while the Lasso button is on) or the keys (Ctrl+A every shown paper, L the lit ones,
Ctrl+Shift+A none). It holds no library: the controller (map_controller.py) gives it pictures
and reads back its selection."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QPolygonF,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QRubberBand,
    QSizePolicy,
    QSpinBox,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from reader.plural import count_noun

from . import render as mr
from .tools import MapToolbar

if TYPE_CHECKING:
    import numpy as np
else:
    from ..widgets.lazy import numpy as np

PAN_STEP = 60  # pixels per arrow key
ZOOM_STEP = 1.25
HOVER_PIXELS = 8  # how near the pointer a point must be to be hovered or clicked
LASSO_STEP = 3  # pixels the pointer moves before the lasso gets another corner
LASSO_MODIFIERS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
KEYS_HELP = ("Papers placed by similarity; +/- zoom, arrows pan, 0 fits; Shift+drag selects a rectangle, "
             "Ctrl+drag a lasso; Ctrl+A selects every shown paper, L the lit ones, Ctrl+Shift+A none; "
             "click opens a paper")


def inside_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Which of `points` (n x 2) lie inside `polygon` (m x 2, closed implicitly), by the even-odd
    rule: a ray to the right crosses its edges an odd number of times. The points are sorted by
    y once, so an edge tests only the points level with it (a long lasso over 50k points is
    about n crossings' work, not n x m)."""
    out = np.zeros(len(points), dtype=bool)
    if len(polygon) < 3 or len(points) == 0:
        return out
    lo, hi = polygon.min(axis=0), polygon.max(axis=0)
    near = np.flatnonzero((points[:, 0] >= lo[0]) & (points[:, 0] <= hi[0])
                          & (points[:, 1] >= lo[1]) & (points[:, 1] <= hi[1]))
    order = near[np.argsort(points[near, 1], kind="stable")]
    xs, ys = points[order, 0], points[order, 1]
    odd = np.zeros(len(order), dtype=bool)
    x0, y0 = polygon[:, 0], polygon[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    for ax, ay, bx, by in zip(x0.tolist(), y0.tolist(), x1.tolist(), y1.tolist(), strict=True):
        if ay == by:
            continue  # a horizontal edge: no crossing with a horizontal ray
        # The edge spans y in [min, max): the half-open rule counts a shared corner once.
        start, stop = np.searchsorted(ys, (min(ay, by), max(ay, by)), side="left")
        if start == stop:
            continue
        y = ys[start:stop]
        cross = ax + (y - ay) * (bx - ax) / (by - ay)
        odd[start:stop] ^= xs[start:stop] < cross
    out[order] = odd
    return out


class MapCanvas(QWidget):
    """Points, labels, zoom/pan with mouse and keys (+/-, arrows, 0 = fit), click, rubber band, lasso."""

    paperClicked = Signal(str)
    papersSelected = Signal(list)  # ids inside the rubber band or the lasso, or chosen by a key
    frameDrawn = Signal(float)  # milliseconds (the benchmark reads it)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mapView")
        self._hovered: int | None = None  # the point under the pointer (its title is said)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setMinimumSize(QSize(200, 150))  # the page never widens the list column (map_tools.py)
        self.picture: mr.MapPicture | None = None
        self.camera = mr.Camera()
        self.dark = False
        self.marks = mr.Marks()
        self.labels: list = []
        self._pixels = mr.Canvas()
        self.message = "Making the map…"
        self._fitted = False
        self._drag_from: QPoint | None = None
        self._drag_camera: tuple[float, float] | None = None
        self._band: QRubberBand | None = None
        self._band_from: QPoint | None = None
        self.lasso_mode = False  # the page's Lasso button: a plain drag draws a lasso
        self.lasso: list[QPointF] | None = None  # the lasso being drawn (screen points)
        self._hover_timer = QTimer(self)
        self._hover_timer.setSingleShot(True)
        self._hover_timer.setInterval(60)
        self._hover_timer.timeout.connect(self._show_hover)
        self._hover_at = QPoint()
        self.describe()

    # ------------------------------------------------------------------ content
    def set_picture(self, picture: mr.MapPicture | None, *, refit: bool = False) -> None:
        self.picture = picture
        n = len(picture) if picture is not None else 0
        self.marks = mr.Marks(visible=None, hits=None, selected=np.zeros(n, dtype=bool))
        self._hovered = None
        if refit or not self._fitted:
            self.fit()
        self.update()
        self.describe()

    def set_message(self, text: str) -> None:
        self.message = text
        self.update()
        self.describe()

    def set_hits(self, hits: np.ndarray | None) -> None:
        self.marks.hits = hits
        self.update()
        self.describe()

    def set_visible_points(self, visible: np.ndarray | None) -> None:
        self.marks.visible = visible
        self.update()
        self.describe()

    def set_selected(self, selected: np.ndarray) -> None:
        self.marks.selected = selected
        self.update()
        self.describe()

    def describe(self) -> None:
        """What a screen reader hears: the name says what the map shows (papers, regions, lit,
        the years' cut), the description what is selected, what is under the pointer, the
        regions' words and the keys (it exposed "Map of the papers" and nothing of them)."""
        pic = self.picture
        if pic is None or len(pic) == 0:
            self.setAccessibleName(f"Map: {self.message}")
            self.setAccessibleDescription(KEYS_HELP)
            return
        n = len(pic)
        coarse = [s.label for s in pic.view.spots if s.level == 0 and s.label]
        name = f"Map: {count_noun(n, 'paper')}, {count_noun(len(coarse), 'labelled region')}"
        if self.marks.visible is not None:
            name += f", {int(self.marks.visible.sum()):,} in the years kept"
        if self.marks.hits is not None:
            name += f", {int(self.marks.hits.sum()):,} lit"
        self.setAccessibleName(name)
        sel = self.marks.selected
        chosen = np.flatnonzero(sel) if sel is not None and len(sel) == n else np.zeros(0, dtype=np.int64)
        if len(chosen) == 0:
            said = "No paper selected."
        elif len(chosen) == 1:
            said = f"Selected: {pic.titles[int(chosen[0])] or pic.ids[int(chosen[0])]}."
        else:
            said = f"{len(chosen):,} papers selected."
        if self._hovered is not None and self._hovered < n:
            said += f" Under the pointer: {pic.titles[self._hovered] or pic.ids[self._hovered]}."
        if coarse:
            said += " Regions: " + "; ".join(coarse[:12]) + "."
        self.setAccessibleDescription(f"{said} {KEYS_HELP}")

    def fit(self) -> None:
        xy = self.picture.xy if self.picture is not None else np.zeros((0, 2))
        self.camera.fit(xy, max(self.width(), 64), max(self.height(), 64))
        self._fitted = self.picture is not None and self.width() > 64
        self.update()

    def zoom(self, factor: float, at: QPoint | None = None) -> None:
        c = at if at is not None else self.rect().center()
        self.camera.zoom_at(factor, c.x(), c.y())
        self.update()

    def pan(self, dx: float, dy: float) -> None:
        self.camera.ox += dx
        self.camera.oy += dy
        self.update()

    def point_at(self, pos: QPoint) -> int | None:
        """The shown point nearest `pos` within HOVER_PIXELS, or None."""
        pic = self.picture
        if pic is None or len(pic) == 0:
            return None
        sxy = self.camera.to_screen(pic.xy)
        d2 = (sxy[:, 0] - pos.x()) ** 2 + (sxy[:, 1] - pos.y()) ** 2
        if self.marks.visible is not None:
            d2 = np.where(self.marks.visible, d2, np.inf)
        i = int(d2.argmin())
        return i if d2[i] <= HOVER_PIXELS ** 2 else None

    def ids_in(self, rect: QRect) -> list[str]:
        pic = self.picture
        if pic is None:
            return []
        sxy = self.camera.to_screen(pic.xy)
        inside = ((sxy[:, 0] >= rect.left()) & (sxy[:, 0] <= rect.right())
                  & (sxy[:, 1] >= rect.top()) & (sxy[:, 1] <= rect.bottom()))
        if self.marks.visible is not None:
            inside &= self.marks.visible
        return [pic.ids[i] for i in np.flatnonzero(inside)]

    def ids_in_polygon(self, corners: list[QPointF]) -> list[str]:
        """The shown papers inside a lasso of screen points."""
        pic = self.picture
        if pic is None or len(corners) < 3:
            return []
        polygon = np.array([(p.x(), p.y()) for p in corners], dtype=np.float64)
        inside = inside_polygon(self.camera.to_screen(pic.xy), polygon)
        if self.marks.visible is not None:
            inside &= self.marks.visible
        return [pic.ids[i] for i in np.flatnonzero(inside)]

    def shown_ids(self, lit_only: bool = False) -> list[str]:
        """Every paper shown (the year filter's), or only the lit ones (search hits, like these)."""
        pic = self.picture
        if pic is None:
            return []
        keep = np.ones(len(pic), dtype=bool) if self.marks.visible is None else self.marks.visible.copy()
        if lit_only:
            keep &= self.marks.hits if self.marks.hits is not None else False
        return [pic.ids[i] for i in np.flatnonzero(keep)]

    def lasso_outline(self) -> QPainterPath | None:
        """The lasso being drawn as it is painted: cut to the canvas, 2 px inside its edge, so a
        drag past the edge runs along it (drawn as dragged, its outline left the canvas and the
        user lost sight of where it went). What it selects is the lasso as dragged
        (`ids_in_polygon`): the cut changes no shown point's side of it."""
        if self.lasso is None or len(self.lasso) < 2:
            return None
        path = QPainterPath()
        path.setFillRule(Qt.FillRule.OddEvenFill)  # inside_polygon's rule
        path.addPolygon(QPolygonF(self.lasso))
        path.closeSubpath()
        frame = QPainterPath()
        frame.addRect(QRectF(self.rect()).adjusted(2, 2, -2, -2))
        if frame.contains(path.boundingRect()):
            return path
        return path.intersected(frame)

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event: QPaintEvent) -> None:
        import time

        started = time.perf_counter()
        painter = QPainter(self)
        pal = mr.palette(self.dark)
        if self.picture is None or len(self.picture) == 0:
            painter.fillRect(self.rect(), QColor.fromRgba(pal.background))
            painter.setPen(pal.label)
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.message)
            painter.end()
            return
        self.labels = mr.paint(painter, self.picture, self.camera, self.width(), self.height(), pal,
                               self.marks, self.font(), self._pixels)
        outline_path = self.lasso_outline()
        if outline_path is not None:
            outline = QColor(pal.label)
            fill = QColor(pal.label)
            fill.setAlpha(28)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(outline, 1.5, Qt.PenStyle.DashLine))
            painter.setBrush(fill)
            painter.drawPath(outline_path)
        if self.hasFocus():
            painter.setPen(QColor(pal.label))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        painter.end()
        self.frameDrawn.emit((time.perf_counter() - started) * 1000)

    def resizeEvent(self, event: QResizeEvent) -> None:
        if self.picture is not None and (not self._fitted or self.camera.zoom == 1.0):
            self.fit()
        super().resizeEvent(event)

    # ------------------------------------------------------------------ mouse
    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        pos = event.position().toPoint()
        modifiers = event.modifiers()
        left = event.button() == Qt.MouseButton.LeftButton
        if left and (modifiers & LASSO_MODIFIERS or (self.lasso_mode and not modifiers & Qt.KeyboardModifier.ShiftModifier)):
            self.lasso = [event.position()]
        elif left and modifiers & Qt.KeyboardModifier.ShiftModifier:
            self._band_from = pos
            if self._band is None:
                self._band = QRubberBand(QRubberBand.Shape.Rectangle, self)
            self._band.setGeometry(QRect(pos, QSize()))
            self._band.show()
        elif event.button() == Qt.MouseButton.LeftButton:
            self._drag_from = pos
            self._drag_camera = (self.camera.ox, self.camera.oy)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        if self.lasso is not None:
            last = self.lasso[-1]
            if abs(last.x() - pos.x()) + abs(last.y() - pos.y()) >= LASSO_STEP:
                self.lasso.append(event.position())
                self.update()
        elif self._band_from is not None and self._band is not None:
            self._band.setGeometry(QRect(self._band_from, pos).normalized())
        elif self._drag_from is not None and self._drag_camera is not None:
            self.camera.ox = self._drag_camera[0] + pos.x() - self._drag_from.x()
            self.camera.oy = self._drag_camera[1] + pos.y() - self._drag_from.y()
            self.update()
        else:
            self._hover_at = pos
            self._hover_timer.start()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        if self.lasso is not None:
            corners, self.lasso = [*self.lasso, event.position()], None
            self.update()
            self.papersSelected.emit(self.ids_in_polygon(corners))
            return
        if self._band_from is not None and self._band is not None:
            rect = QRect(self._band_from, pos).normalized()
            self._band.hide()
            self._band_from = None
            self.papersSelected.emit(self.ids_in(rect))
            return
        start, self._drag_from = self._drag_from, None
        if start is not None and (pos - start).manhattanLength() <= 3:
            i = self.point_at(pos)
            if i is not None and self.picture is not None:
                self.paperClicked.emit(self.picture.ids[i])

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom(ZOOM_STEP ** steps, event.position().toPoint())

    def _show_hover(self) -> None:
        i = self.point_at(self._hover_at)
        if i != self._hovered:
            self._hovered = i
            self.describe()
        if i is None or self.picture is None:
            QToolTip.hideText()
            return
        QToolTip.showText(self.mapToGlobal(self._hover_at), self.picture.titles[i] or self.picture.ids[i], self)

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if key == Qt.Key.Key_A and ctrl:  # every shown paper; with Shift, none
            none = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.papersSelected.emit([] if none else self.shown_ids())
            return
        if key == Qt.Key.Key_L and not ctrl:
            self.papersSelected.emit(self.shown_ids(lit_only=True))
            return
        moves = {Qt.Key.Key_Left: (PAN_STEP, 0), Qt.Key.Key_Right: (-PAN_STEP, 0),
                 Qt.Key.Key_Up: (0, PAN_STEP), Qt.Key.Key_Down: (0, -PAN_STEP)}
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(ZOOM_STEP)
        elif key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
            self.zoom(1 / ZOOM_STEP)
        elif key == Qt.Key.Key_0:
            self.fit()
        elif key in moves:
            self.pan(*moves[Qt.Key(key)])
        else:
            super().keyPressEvent(event)


def year_ticks(count: int, bar_width: float, label_width: float) -> list[int]:
    """The bars (0..count-1) labelled with their year: every one when the bars are wide enough,
    else every k-th, the last always (only the two ends were labelled: hard to read a range)."""
    if count <= 0:
        return []
    step = max(1, math.ceil(label_width / max(bar_width, 1.0)))
    last = count - 1
    return [i for i in range(0, last, step) if last - i >= step] + [last]


def year_labels(years: list[int], bar_width: float, width: int, advance: Callable[[str], int],
                gap: int = 6) -> list[tuple[int, str]]:
    """(x, text) of the year labels under bars `bar_width` wide in a bar `width` px wide: the
    ticks of year_ticks, each centred under its bar but kept inside the bar's ends, and any that
    would touch the one before it left out (the last kept, its neighbour dropped instead):
    narrow bars clamped at the ends drew "18901897"."""
    out: list[tuple[int, str, int]] = []
    for i in year_ticks(len(years), bar_width, advance("2000") + 8):
        text = str(years[i])
        tw = advance(text)
        x = min(max(2, int(i * bar_width + (bar_width - tw) / 2)), width - tw - 2)
        while out and x < out[-1][2] + gap:
            if i != len(years) - 1:
                break
            out.pop()  # the last year stays: its neighbour gives way
        else:
            out.append((x, text, x + tw))
    return [(x, text) for x, text, _ in out]


class YearBar(QWidget):
    """A histogram of the shown papers' years; drag across it (or use the two boxes) to keep a range."""

    rangeChanged = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mapYears")
        self.setAccessibleName("Papers per year")
        self.setAccessibleDescription("No years")
        self.setMinimumHeight(56)  # bars of 42 px: 30 were hard to compare at 1024 x 640
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("2000") + 8)  # one year's label whole
        self.counts: dict[int, int] = {}
        self.low = self.high = 0
        self.years: list[int] = []
        self._drag: int | None = None

    def set_years(self, years: np.ndarray) -> None:
        known = years[years > 0]
        values, counts = np.unique(known, return_counts=True)
        self.counts = dict(zip(values.tolist(), counts.tolist(), strict=True))
        self.years = list(range(int(values.min()), int(values.max()) + 1)) if len(values) else []
        self.update()
        self.describe()

    def set_range(self, low: int, high: int) -> None:
        self.low, self.high = low, high
        self.update()
        self.describe()

    def describe(self) -> None:
        """The years a screen reader hears: the span, the range kept and the busiest year."""
        if not self.years:
            self.setAccessibleDescription("No years")
            return
        first, last = self.years[0], self.years[-1]
        busiest = max(self.counts, key=lambda y: (self.counts[y], -y))
        kept = "" if (self.low, self.high) in ((first, last), (0, 0)) else f"; kept {self.low}–{self.high}"
        self.setAccessibleDescription(f"{first}–{last}{kept}; most papers in {busiest} "
                                      f"({count_noun(self.counts[busiest], 'paper')})")

    def _year_at(self, x: float) -> int | None:
        if not self.years:
            return None
        i = int(x / max(self.width(), 1) * len(self.years))
        return self.years[max(0, min(i, len(self.years) - 1))]

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        pal = self.palette()
        painter.fillRect(self.rect(), pal.base())
        if not self.years:
            painter.setPen(pal.placeholderText().color())
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No years")
            painter.end()
            return
        top = max(self.counts.values())
        w = self.width() / len(self.years)
        h = self.height() - 14
        accent, muted = pal.highlight().color(), pal.mid().color()
        for i, year in enumerate(self.years):
            bar = h * self.counts.get(year, 0) / top
            inside = self.low <= year <= self.high
            painter.fillRect(int(i * w) + 1, int(h - bar) + 2, max(1, int(w) - 1), int(bar), accent if inside else muted)
        painter.setPen(pal.text().color())
        for x, text in year_labels(self.years, w, self.width(), self.fontMetrics().horizontalAdvance):
            painter.drawText(x, self.height() - 2, text)
        painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._drag = self._year_at(event.position().x())
        if self._drag is not None:
            self.rangeChanged.emit(self._drag, self._drag)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        year = self._year_at(event.position().x())
        if self._drag is not None and year is not None:
            self.rangeChanged.emit(min(self._drag, year), max(self._drag, year))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._drag = None


class MapPage(QWidget):
    """The canvas, the year filter and the selection's actions, in place of the paper list."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mapPage")
        self.canvas = MapCanvas(self)
        self.years = YearBar(self)
        self.fromYear = self._year_box("mapFromYear", "From year")
        self.toYear = self._year_box("mapToYear", "To year")
        self.summary = QLabel(self)
        self.summary.setObjectName("mapSummary")
        self.summary.setMinimumWidth(0)
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setContentsMargins(4, 0, 4, 0)
        self.summary.setWordWrap(True)  # a narrow map: on two lines rather than cut
        self.toolbar = MapToolbar(self)
        self.buttons = self.toolbar.buttons  # by key: the tools, and the selection's (shown or folded)
        self.tool_actions, self.selection_actions = self.toolbar.tool_actions, self.toolbar.selection_actions
        self.tool_actions["lasso"].toggled.connect(self._lasso_toggled)
        years = QHBoxLayout()
        years.setContentsMargins(4, 0, 4, 2)
        years.addWidget(self.years, 1)
        years.addWidget(QLabel("From", self))
        years.addWidget(self.fromYear)
        years.addWidget(QLabel("to", self))
        years.addWidget(self.toYear)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.summary)
        layout.addLayout(years)
        self.setFocusProxy(self.canvas)  # focusing the page (Esc from the search box) focuses the map
        self.set_selection_count(0)

    def _year_box(self, name: str, accessible: str) -> QSpinBox:
        box = QSpinBox(self)
        box.setObjectName(name)
        box.setAccessibleName(accessible)
        box.setRange(0, 2200)
        return box

    def _lasso_toggled(self, on: bool) -> None:
        self.canvas.lasso_mode = on
        self.canvas.setCursor(Qt.CursorShape.CrossCursor if on else Qt.CursorShape.ArrowCursor)

    def set_selection_count(self, n: int) -> None:
        self.toolbar.set_selection_count(n)

"""Painting the map: points rasterised with numpy into one image, labels placed without overlap.

Shared by the window's map (map_view.py) and `reader map --png` (installed by reader.__main__).
50k QPainter ellipses would take a second a frame; writing the markers' pixels into a numpy
buffer takes milliseconds, so panning and zooming stay smooth at 50k points."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QImage,
    QImageWriter,
    QPainter,
)

if TYPE_CHECKING:
    import numpy as np

    from reader.map.marks import MapMarks
    from reader.map.view import MapView
else:
    from ..widgets.lazy import numpy as np

STATE_NAMES = ("unread", "read", "starred", "tagged", "skipped")
FINE_ZOOM = 1.6  # the fine clusters' labels join in past this zoom (1 = the whole map fits)
MARGIN = 24
AVOID_POINTS = 300  # up to this many points, labels are moved off the points they would cover


@dataclass(frozen=True)
class Palette:
    background: int
    states: tuple[int, ...]  # by state number
    dim: int
    hit: int
    selected: int
    label: QColor
    label_back: QColor
    tags: tuple[int, ...]


def _argb(hex_: str, alpha: int = 255) -> int:
    return (alpha << 24) | int(hex_.lstrip("#"), 16)


def palette(dark: bool) -> Palette:
    """The map's colours. The points a search or a selection does not light (`dim`) stay seen:
    about 2:1 against the background (#eceef1 on white was 1.16:1, invisible on a screen), yet
    fainter than a read paper's, so the lit ones still stand out."""
    tags = ("#0d9488", "#7c3aed", "#db2777", "#16a34a", "#ea580c", "#0284c7", "#65a30d", "#c026d3")
    if dark:
        return Palette(_argb("#1c1d1f"), (_argb("#6ea8ff"), _argb("#5b6472"), _argb("#fbbf24"), 0, _argb("#3a3d42")),
                       _argb("#4a4f57"), _argb("#ff6b6b"), _argb("#ffffff"), QColor("#e8e8ea"),
                       QColor(28, 29, 31, 190), tuple(_argb(c) for c in tags))
    return Palette(_argb("#ffffff"), (_argb("#2563eb"), _argb("#9aa5b5"), _argb("#d97706"), 0, _argb("#dde1e6")),
                   _argb("#b3bbc6"), _argb("#dc2626"), _argb("#111111"), QColor("#1f2328"),
                   QColor(255, 255, 255, 200), tuple(_argb(c) for c in tags))


def tag_slot(tag: str) -> int:
    return zlib.crc32(tag.encode("utf-8")) % 8


class _Titles:
    """The shown papers' titles, looked up when one is asked for (a hover), not copied at open."""

    def __init__(self, titles: tuple[str, ...], rows: np.ndarray) -> None:
        self._titles, self._rows = titles, rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i: int) -> str:
        row = int(self._rows[i])
        return self._titles[row] if row >= 0 else ""


class MapPicture:
    """The shown papers' places and states as arrays (built off the GUI thread)."""

    def __init__(self, shown: MapView, marks: MapMarks) -> None:
        from reader.map.marks import TAGGED, UNREAD  # here: the map's modules load with the map

        self.view = shown
        self.ids = shown.ids
        self.xy = shown.xy.astype(np.float64)
        n = len(self.ids)
        row_of = marks.row_of()
        rows = np.fromiter(map(row_of.get, self.ids, repeat(-1)), dtype=np.int64, count=n)
        known = rows >= 0
        at = np.where(known, rows, 0)
        # Columns gathered with numpy: no Python step per paper but the two above.
        self.state = np.zeros(n, dtype=np.int8)
        self.tag = np.zeros(n, dtype=np.int8)
        self.year = np.zeros(n, dtype=np.int32)
        if len(marks.ids):
            self.state = np.where(known, np.array(marks.state, dtype=np.int8)[at], UNREAD).astype(np.int8)
            self.year = np.where(known, np.array(marks.year, dtype=np.int32)[at], 0).astype(np.int32)
            tagged = np.flatnonzero(self.state == TAGGED)
            self.tag[tagged] = [tag_slot(marks.tag[i]) for i in rows[tagged]]
        self.titles = _Titles(marks.title, rows)
        self.position = dict(zip(self.ids, range(n), strict=True))

    def __len__(self) -> int:
        return len(self.ids)


@dataclass
class Camera:
    """World (layout) coordinates to screen pixels: screen = world * scale + offset."""

    scale: float = 1.0
    ox: float = 0.0
    oy: float = 0.0
    fit_scale: float = 1.0

    def fit(self, xy: np.ndarray, width: int, height: int) -> None:
        if len(xy) == 0:
            lo, hi = np.zeros(2), np.ones(2) * 10
        else:
            lo, hi = xy.min(axis=0), xy.max(axis=0)
        span = np.maximum(hi - lo, 1e-6)
        self.scale = self.fit_scale = float(min((width - 2 * MARGIN) / span[0], (height - 2 * MARGIN) / span[1]))
        centre = (lo + hi) / 2
        self.ox = width / 2 - centre[0] * self.scale
        self.oy = height / 2 - centre[1] * self.scale

    @property
    def zoom(self) -> float:
        return self.scale / self.fit_scale if self.fit_scale else 1.0

    def zoom_at(self, factor: float, x: float, y: float) -> None:
        factor = max(0.5 / self.zoom, min(factor, 200.0 / self.zoom))  # between half the fit and 200x
        self.ox = x - (x - self.ox) * factor
        self.oy = y - (y - self.oy) * factor
        self.scale *= factor

    def to_screen(self, xy: np.ndarray) -> np.ndarray:
        return xy * self.scale + np.array([self.ox, self.oy])

    def to_world(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.ox) / self.scale, (y - self.oy) / self.scale


def _disc(radius: int) -> list[tuple[int, int]]:
    r2 = radius * radius + radius
    return [(dx, dy) for dx in range(-radius, radius + 1) for dy in range(-radius, radius + 1) if dx * dx + dy * dy <= r2]


def _ring(radius: int) -> list[tuple[int, int]]:
    inner = _disc(radius - 1)
    return [p for p in _disc(radius) if p not in inner]


_MARKS = {r: _disc(r) for r in range(0, 6)}
_RINGS = {r: _ring(r) for r in range(2, 9)}


PAD = 16  # the buffer's hidden border: a mark (offsets <= 8) of any point within 8 px lands in it


def _stamp(flat: np.ndarray, at: np.ndarray, stride: int, colour: int | np.ndarray,
           offsets: Sequence[tuple[int, int]]) -> None:
    """Write a mark at each flat pixel index `at` of the padded buffer: one add and one
    scatter per offset, no bounds masks (the border takes what falls off the picture)."""
    for dx, dy in offsets:
        flat[at + (dy * stride + dx)] = colour


@dataclass
class Marks:
    """What the current interaction adds to the picture (all optional, boolean per point)."""

    visible: np.ndarray | None = None  # the year filter: hidden points are not drawn
    hits: np.ndarray | None = None  # a search: hits highlighted, the rest dimmed
    selected: np.ndarray | None = None


def radius_for(zoom: float, n: int) -> int:
    base = 1 if n > 8000 else 2 if n > 800 else 3
    return int(min(5, base + (zoom >= 3) + (zoom >= 10)))


class Canvas:
    """The pixel buffer a frame is drawn into, kept between frames (allocating and copying
    4 MB a frame was most of a frame's time), with a PAD-pixel border so marks near an edge
    need no clipping."""

    def __init__(self) -> None:
        self.buf: np.ndarray | None = None  # none before the first frame (numpy loads with the map)

    def take(self, width: int, height: int, background: int) -> np.ndarray:
        shape = (height + 2 * PAD, width + 2 * PAD)
        if self.buf is None or self.buf.shape != shape:
            self.buf = np.empty(shape, dtype=np.uint32)
        self.buf.fill(background)
        return self.buf


def raster(pic: MapPicture, cam: Camera, width: int, height: int, pal: Palette, marks: Marks,
           canvas: Canvas | None = None) -> tuple[QImage, np.ndarray]:
    """The points as one image (over the returned buffer: keep it while the image is used),
    drawn back to front: the selection's rings, dimmed, skipped, read, unread, tagged, starred,
    then the hits' rings. Opaque RGB32: blitted as is, no alpha conversion."""
    from reader.map.marks import READ, SKIPPED, STARRED, TAGGED, UNREAD

    buf = (canvas or Canvas()).take(width, height, pal.background)
    stride = width + 2 * PAD
    flat = buf.reshape(-1)
    if len(pic):
        sxy = np.rint(cam.to_screen(pic.xy)).astype(np.int64)
        inside = (sxy[:, 0] >= -8) & (sxy[:, 0] < width + 8) & (sxy[:, 1] >= -8) & (sxy[:, 1] < height + 8)
        if marks.visible is not None:
            inside &= marks.visible
        at = (sxy[:, 1] + PAD) * stride + (sxy[:, 0] + PAD)  # flat index in the padded buffer
        r = radius_for(cam.zoom, len(pic))
        lit = marks.hits
        if marks.selected is not None and (inside & marks.selected).any():
            # Under the points, a ring wider than the hits' ring: drawn on top, the selection's
            # white rings of a dense region hid its points' star and read colours in the dark.
            _stamp(flat, at[inside & marks.selected], stride, pal.selected, _RINGS[r + 3])
        dimmed = inside & ~lit if lit is not None else np.zeros(len(pic), dtype=bool)
        if dimmed.any():
            _stamp(flat, at[dimmed], stride, pal.dim, _MARKS[max(0, r - 1)])
        live = inside & ~dimmed
        tag_colours = np.array(pal.tags, dtype=np.uint32)
        for state in (SKIPPED, READ, UNREAD, TAGGED, STARRED):
            sel = live & (pic.state == state)
            if not sel.any():
                continue
            colour: int | np.ndarray = tag_colours[pic.tag[sel]] if state == TAGGED else pal.states[state]
            size = r + 1 if state == STARRED else max(0, r - 1) if state == SKIPPED else r
            _stamp(flat, at[sel], stride, colour, _MARKS[size])
        if lit is not None and (inside & lit).any():
            _stamp(flat, at[inside & lit], stride, pal.hit, _RINGS[r + 2])
    # The image is the buffer's interior: its rows start PAD pixels in, `stride` pixels apart.
    interior = flat[PAD * stride + PAD:]
    return QImage(interior.data, width, height, stride * 4, QImage.Format.Format_RGB32), buf


_sizes: dict[tuple[bool, str, str], tuple[float, float]] = {}  # label boxes measured once


def place_labels(pic: MapPicture, cam: Camera, width: int, height: int, font: QFont,
                 visible: np.ndarray | None = None) -> list[tuple[QRectF, str, bool]]:
    """(box, text, coarse?) of the labels to draw: the coarse clusters' first, biggest first,
    then the fine ones' once zoomed in; a label overlapping one already placed is left out."""
    bold = QFont(font)
    bold.setBold(True)
    bold.setPointSizeF(font.pointSizeF() * 1.1)
    metrics = {True: QFontMetricsF(bold), False: QFontMetricsF(font)}
    spots = [s for s in pic.view.spots if s.label and s.size >= 3]
    spots.sort(key=lambda s: (s.level, -s.size))
    # A small picture's label goes where it covers the fewest points (at its region's centre,
    # the one label of 6 starred papers covered them); a big one's stays centred (cheap).
    sxy = cam.to_screen(pic.xy) if len(pic) <= AVOID_POINTS else None
    if sxy is not None and visible is not None:
        sxy = sxy[visible]
    placed: list[tuple[QRectF, str, bool]] = []
    shown_texts: set[str] = set()
    for s in spots:
        coarse = s.level == 0
        if not coarse and cam.zoom < FINE_ZOOM:
            continue
        text = s.label if coarse else " · ".join(s.label.split(" · ")[:2])
        if text in shown_texts:  # two regions of one name: the bigger one says it
            continue
        x, y = s.x * cam.scale + cam.ox, s.y * cam.scale + cam.oy
        if not (0 <= x <= width and 0 <= y <= height):
            continue
        # Near the edge a label says fewer of its words rather than sit far from its region.
        words = text.split(" · ")
        for n in range(len(words), 0, -1):
            text = " · ".join(words[:n])
            w, h = _label_size(metrics[coarse], coarse, font, text)
            if n == 1 or (x - w / 2 >= 2 - w / 4 and x + w / 2 <= width - 2 + w / 4):
                break
        box = QRectF(x - w / 2, y - h / 2, w, h)
        if sxy is not None and _covered(sxy, box):
            box = min((box.translated(0, dy) for dy in (0, -h, h, -2 * h, 2 * h)),
                      key=lambda b: (_covered(sxy, b), abs(b.center().y() - y)))
        # A region at the map's edge keeps its label, moved inside the canvas (centred on its
        # region, a wide label ran off the edge and was dropped: the biggest region of ICLR 2018).
        if w > width - 4 or h > height - 4:
            continue
        box.moveLeft(min(max(box.left(), 2.0), width - 2 - w))
        box.moveTop(min(max(box.top(), 2.0), height - 2 - h))
        grown = box.adjusted(-4, -2, 4, 2)
        if any(grown.intersects(b) for b, _, _ in placed):
            continue
        placed.append((box, text, coarse))
        shown_texts.add(text)
    return placed


def _label_size(fm: QFontMetricsF, coarse: bool, font: QFont, text: str) -> tuple[float, float]:
    size = _sizes.get((coarse, font.key(), text))
    if size is None:
        size = _sizes[(coarse, font.key(), text)] = (fm.horizontalAdvance(text) + 10, fm.height() + 4)
    return size


def _covered(sxy: np.ndarray, box: QRectF) -> int:
    """How many of the screen points lie under `box` (a point's mark reaches 4 px around it)."""
    inside = ((sxy[:, 0] >= box.left() - 4) & (sxy[:, 0] <= box.right() + 4)
              & (sxy[:, 1] >= box.top() - 4) & (sxy[:, 1] <= box.bottom() + 4))
    return int(inside.sum())


def paint(painter: QPainter, pic: MapPicture, cam: Camera, width: int, height: int, pal: Palette,
          marks: Marks, font: QFont, canvas: Canvas | None = None) -> list[tuple[QRectF, str, bool]]:
    image, _buf = raster(pic, cam, width, height, pal, marks, canvas)
    painter.drawImage(QPointF(0, 0), image)
    labels = place_labels(pic, cam, width, height, font, marks.visible)
    bold = QFont(font)
    bold.setBold(True)
    bold.setPointSizeF(font.pointSizeF() * 1.1)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    for box, text, coarse in labels:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(pal.label_back)
        painter.drawRoundedRect(box, 4, 4)
        painter.setFont(bold if coarse else font)
        painter.setPen(pal.label)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
    return labels


def render_png(shown: MapView, marks: MapMarks, path: Path, width: int, height: int,
               dark: bool = False) -> None:
    """`reader map --png`: the whole picture, fitted, written to `path`."""
    app = QGuiApplication.instance()
    if app is None:
        import os
        import sys

        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QGuiApplication(sys.argv[:1])
    pic = MapPicture(shown, marks)
    cam = Camera()
    cam.fit(pic.xy, width, height)
    image = QImage(width, height, QImage.Format.Format_RGB32)
    pal = palette(dark)
    image.fill(QColor.fromRgba(pal.background))
    painter = QPainter(image)
    font = QFont()
    font.setPointSizeF(10)
    paint(painter, pic, cam, width, height, pal, Marks(), font)
    painter.end()
    # Encoded in memory, then written like every export: atomically under a unique temporary
    # name, and never over a FIFO, a device or a folder (a symlink is written through).
    from reader.errors import ReaderError
    from reader.output_files import write_chunks

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QImageWriter(buffer, QByteArray(b"png"))  # PNG whatever the file is called
    ok = writer.write(image)
    buffer.close()
    if not ok:
        raise ReaderError(f"could not write {path}: {writer.errorString()}")
    write_chunks(path, [bytes(data.data())])

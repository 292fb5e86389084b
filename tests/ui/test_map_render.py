"""The map's rasteriser: marks near and past the picture's edges are cut at the edge, exactly
as a pixel-by-pixel reference draws them (the buffer's hidden border takes the rest)."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage

from reader.map.view import MapView
from reader.store.map_rows import READ, UNREAD, MapMarks
from reader.ui.map import render as mr

W, H = 64, 48


def _image(img: QImage) -> np.ndarray:
    img = img.convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(img.constBits(), dtype=np.uint32).reshape(H, img.bytesPerLine() // 4)
    return rows[:, :W] & 0xFFFFFF


def _reference(sxy: np.ndarray, colour: int, offsets, background: int) -> np.ndarray:
    out = np.full((H, W), background, dtype=np.uint32)
    for x, y in sxy.tolist():
        for dx, dy in offsets:
            if 0 <= x + dx < W and 0 <= y + dy < H:
                out[y + dy, x + dx] = colour
    return out & 0xFFFFFF


def _expected(sxy: np.ndarray, selected: np.ndarray, r: int, pal: mr.Palette) -> np.ndarray:
    # Points more than 8 px outside draw nothing; the others' marks are cut at the edge.
    inside = (sxy[:, 0] >= -8) & (sxy[:, 0] < W + 8) & (sxy[:, 1] >= -8) & (sxy[:, 1] < H + 8)
    back = pal.background & 0xFFFFFF
    want = np.full((H, W), back, dtype=np.uint32)
    for colour, offsets, who in ((pal.selected, mr._RINGS[r + 3], inside & selected),  # under the points
                                 (pal.states[UNREAD], mr._MARKS[r], inside)):
        layer = _reference(sxy[who], colour, offsets, pal.background)
        want = np.where(layer != back, layer, want)
    return want


def test_marks_at_and_past_the_edges_are_clipped_like_the_reference(qapp):
    # Points on the edges, in the corners, just outside (their marks reach in) and far outside.
    spots = [(0, 0), (W - 1, H - 1), (-3, 10), (W + 2, 20), (30, -2), (30, H + 3), (W + 7, H + 7),
             (-8, -8), (20, 20), (21, 20), (-40, 5), (W + 9, 3)]
    sxy = np.array(spots, dtype=np.int64)
    n = len(spots)
    view = MapView([f"p{i}" for i in range(n)], sxy.astype(np.float32), np.zeros(n, np.int32),
                   np.zeros(n, np.int32), [], 0)
    pic = mr.MapPicture(view, MapMarks((), (), (), (), ()))
    pal = mr.palette(False)
    selected = np.zeros(n, dtype=bool)
    selected[[0, 3, 6, 7]] = True  # rings of radius r + 2: the widest marks drawn
    canvas = mr.Canvas()
    for shift in (0, 5, -6):  # frames into one kept canvas: each starts clean, border too
        cam = mr.Camera(scale=1.0, ox=float(shift), oy=0.0, fit_scale=1 / 3)  # zoom 3
        img, _buf = mr.raster(pic, cam, W, H, pal, mr.Marks(selected=selected), canvas)
        moved = sxy + np.array([shift, 0])
        assert np.array_equal(_image(img), _expected(moved, selected, mr.radius_for(cam.zoom, n), pal))


def contrast(a: int, b: int) -> float:
    """The WCAG contrast ratio of two 0xRRGGBB colours (1 = the same, 21 = black on white)."""

    def lum(c: int) -> float:
        parts = [((c >> s) & 0xFF) / 255 for s in (16, 8, 0)]
        lin = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(a & 0xFFFFFF), lum(b & 0xFFFFFF)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_unlit_points_are_seen_in_both_themes_but_stay_under_the_lit_ones():
    """Light mode drew the points a search did not light #eceef1 on white (1.16:1): on a screen
    the map looked empty but for the hits. Dimmed, they stay fainter than a read paper's."""
    for dark in (False, True):
        pal = mr.palette(dark)
        dim = contrast(pal.dim, pal.background)
        assert dim >= 1.8, (dark, round(dim, 2))
        assert dim < contrast(pal.states[READ], pal.background) < contrast(pal.states[UNREAD], pal.background)

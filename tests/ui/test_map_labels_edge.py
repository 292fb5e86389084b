"""A region at the map's edge keeps its label on screen (issue 30: the biggest region of the ICLR
2018 map, "reinforcement · agent · policy", sat at the left edge and its label was dropped)."""

from __future__ import annotations

import numpy as np


def test_a_label_of_a_region_at_the_edge_is_moved_inside_not_dropped(qapp) -> None:
    from PySide6.QtGui import QFont

    from reader.map.view import ClusterSpot, MapView
    from reader.store.map_rows import MapMarks
    from reader.ui.map import render as mr

    # Two regions far apart: their centres sit at the left and right edges of the fitted map.
    rng = np.random.default_rng(1)
    left = rng.normal([0.0, 5.0], 0.2, (400, 2))
    right = rng.normal([10.0, 5.0], 0.2, (400, 2))
    xy = np.vstack([left, right]).astype(np.float32)
    numbers = np.array([0] * 400 + [1] * 400, dtype=np.int32)
    spots = [ClusterSpot(0, 0, "reinforcement · agent · policy", 400, 0.0, 5.0),
             ClusterSpot(1, 0, "attacks · perturbations · vulnerable", 400, 10.0, 5.0)]
    view = MapView([f"p{i}" for i in range(800)], xy, numbers, numbers, spots, 0)
    pic = mr.MapPicture(view, MapMarks((), (), (), (), ()))
    cam = mr.Camera()
    cam.fit(pic.xy, 600, 400)
    labels = mr.place_labels(pic, cam, 600, 400, QFont())
    said = {text.split(" · ")[0]: text for _, text, _ in labels}
    assert set(said) == {"reinforcement", "attacks"}, labels  # each region keeps (the start of) its label
    for box, _, _ in labels:
        assert box.left() >= 2 and box.right() <= 598 and box.top() >= 2 and box.bottom() <= 398, box
    # and stays by its region: the box reaches into the region's quarter of the canvas.
    boxes = {text.split(" · ")[0]: box for box, text, _ in labels}
    assert boxes["reinforcement"].left() < 150 and boxes["attacks"].right() > 450, boxes

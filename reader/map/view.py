"""What one list of papers (the library, a collection, a tag, a search) shows of the library's map.

A subset keeps the library's places (a tag's papers sit where they sit on the whole map) and
the library's clusters; a cluster's size and centre are those of its papers in the subset, so
a label sits over what is shown of its region. Papers the map does not hold yet (added since
it was made) are left out until it is brought up to date."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, repeat

import numpy as np

from .clusters import Cluster
from .mapfile import MapData


@dataclass(frozen=True)
class ClusterSpot:
    """A labelled region as shown: where its label goes and how many papers it holds."""

    id: int
    level: int
    label: str
    size: int
    x: float
    y: float


@dataclass
class MapView:
    """The shown papers (in list order) with their places and clusters."""

    ids: list[str]
    xy: np.ndarray  # n x 2 float32, the library's coordinates
    coarse: np.ndarray
    fine: np.ndarray
    spots: list[ClusterSpot]  # both levels; an unlabelled cluster has label ""
    missing: int  # listed papers the map does not hold yet

    def to_json(self) -> dict:
        """`reader map --json`: papers with their coarse cluster, and the coarse clusters."""
        return {
            "papers": [{"id": pid, "x": round(float(x), 4), "y": round(float(y), 4), "cluster": int(c)}
                       for pid, (x, y), c in zip(self.ids, self.xy.tolist(), self.coarse.tolist(), strict=True)],
            "clusters": [{"id": s.id, "label": s.label, "size": s.size, "x": round(s.x, 4), "y": round(s.y, 4)}
                         for s in self.spots if s.level == 0],
        }


def _spots(level: int, numbers: np.ndarray, xy: np.ndarray, clusters: Sequence[Cluster]) -> list[ClusterSpot]:
    labelled = {c.id: c for c in clusters if c.level == level}  # (labelled or not)
    if len(numbers) == 0 or not labelled:
        return []
    k = int(max(labelled) + 1)
    sizes = np.bincount(numbers, minlength=k)
    sx = np.bincount(numbers, weights=xy[:, 0], minlength=k)
    sy = np.bincount(numbers, weights=xy[:, 1], minlength=k)
    out = []
    for cid in sorted(labelled):
        n = int(sizes[cid]) if cid < len(sizes) else 0
        if n == 0:
            continue
        c = labelled[cid]
        out.append(ClusterSpot(cid, level, c.label, n, float(sx[cid] / n), float(sy[cid] / n)))
    return out


def subset(data: MapData, ids: Sequence[str] | None = None) -> MapView:
    """The map of `ids` (None: the whole library), in the given order."""
    if ids is None:
        rows = np.arange(len(data.ids))
        shown = list(data.ids)
        missing = 0
    else:
        # Whole columns at C speed (map over dict.get, numpy for the repeats): a list comprehension
        # per paper took 300 ms of a 50k map's open on a busy machine.
        ids = list(ids)
        found = np.fromiter(map(data.position().get, ids, repeat(-1)), dtype=np.int64, count=len(ids))
        keep = found >= 0
        _, first = np.unique(found, return_index=True)
        once = np.zeros(len(ids), dtype=bool)
        once[first] = True
        keep &= once  # a paper listed twice is drawn once
        shown = ids if keep.all() else list(compress(ids, keep.tolist()))
        rows = found[keep]
        missing = len({pid for pid, at in zip(ids, found.tolist(), strict=True) if at < 0}) if (found < 0).any() else 0
    xy = data.xy[rows] if len(rows) else np.zeros((0, 2), np.float32)
    coarse = data.coarse[rows] if len(rows) else np.zeros(0, np.int32)
    fine = data.fine[rows] if len(rows) else np.zeros(0, np.int32)
    spots = _spots(0, coarse, xy, data.clusters) + _spots(1, fine, xy, data.clusters)
    return MapView(shown, xy, coarse, fine, spots, missing)

"""A subset's own map ("Refit"): only the shown papers laid out, starting from their library places.

The map of a tag, a search or a collection keeps the library's places by default (view.py). A
refit lays out the subset alone with the library's layout steps (its kNN graph among the
subset, then the same optimisation), starting from the papers' library places so the picture
stays recognisable, and recomputes its regions and their words within the subset (a label
then tells a region apart from the rest of the subset, not from the whole library). The
library's map is never touched: a refit is derived from it and kept only in memory (RefitCache),
keyed by what it depends on (the papers, their library places, vectors and words), so the
same subset is laid out once and a star or a read mark does not lay it out again.
Deterministic: the same subset of the same map gives the same places."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from reader.store import map_rows

from . import clusters as cl
from . import layout as lay
from .features import CancelCheck, Progress, check, matrix, tokens, unit_rows
from .mapfile import MapData
from .neighbours import knn
from .view import MapView, subset

MIN_PAPERS = 4  # fewer: nothing to lay out, the library's places are shown
CACHE_SIZE = 8  # refit subsets kept (a 3,300-paper one holds ~100 KB of places)


def _rows(data: MapData, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
    pos = data.position()
    shown = [pid for pid in dict.fromkeys(ids) if pid in pos]
    return shown, np.array([pos[pid] for pid in shown], dtype=np.int64)


def key_for(data: MapData, ids: Sequence[str]) -> str:
    """What a refit depends on: the shown papers (in order) and their library places, vectors and
    words' hashes. Marks (stars, reads, tags) are not in it: they move nobody."""
    shown, rows = _rows(data, ids)
    h = hashlib.blake2b(digest_size=16)
    h.update("\n".join(shown).encode("utf-8"))
    for part in (data.xy[rows], data.vectors[rows], data.hashes[rows]):
        h.update(np.ascontiguousarray(part).tobytes())
    return h.hexdigest()


def refit(data: MapData, conn: sqlite3.Connection, ids: Sequence[str], *, progress: Progress = None,
          cancelled: CancelCheck = None) -> MapView:
    """The map of `ids` laid out on its own (see the module docstring), in the given order.

    Papers the library map does not hold yet are counted as missing, as view.subset does."""
    shown, rows = _rows(data, ids)
    n = len(shown)
    if n < MIN_PAPERS or n == len(data.ids):
        return subset(data, ids)  # a handful of papers, or the whole library: its own layout
    vectors = unit_rows(data.vectors[rows].astype(np.float32))
    # The layout's own steps (layout.layout, but from the library places instead of the
    # principal axes): a subset refit starts where its papers sit on the whole map.
    idx, sim = knn(vectors, min(lay.K, n - 1, max(5, n // 8)), cancelled=cancelled)  # layout.layout's k
    heads, tails, weights = lay.fuzzy_graph(idx, sim)
    start = lay.fit_box(data.xy[rows].astype(np.float32))

    def step(done: int, total: int, message: str) -> None:
        if progress:
            progress(done * 3 // max(total, 1), 4, message)

    xy = lay.optimise(start, heads, tails, weights, epochs=lay.epochs_for(n), progress=step,
                      cancelled=cancelled)
    xy = lay.fit_box(xy)
    check(cancelled)
    if progress:
        progress(3, 4, "Naming the regions")
    found = dict(map_rows.texts(conn, shown))
    words = matrix(tokens([found.get(pid, "") for pid in shown]), data.vocab)
    label = dict(map_rows.label_texts(conn, shown))  # labels: abstracts alone (clusters.py)
    held = cl.presence((None if (t := label.get(pid)) is None else next(tokens([t])) for pid in shown),
                       data.vocab.words, words)
    coarse, fine, regions = cl.cluster(xy, words, data.vocab.words, held)
    own = MapData(shown, xy, coarse.astype(np.int32), fine.astype(np.int32), regions, data.vectors[rows],
                  data.hashes[rows], data.vocab, data.components, data.stamp, n, origin=data.origin)
    out = subset(own, None)
    out.missing = len(set(ids)) - n
    return out


class RefitCache:
    """The last few refit subsets, by key_for (least recently used dropped first)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._views: OrderedDict[str, MapView] = OrderedDict()
        self._lock = threading.Lock()  # a cancelled layout job may still be finishing beside a new one
        self.computed = 0  # refits laid out (not found here): the tests read it

    def get(self, data: MapData, conn: sqlite3.Connection, ids: Sequence[str], *,
            progress: Progress = None, cancelled: CancelCheck = None) -> MapView:
        """The refit map of `ids`, laid out only when not kept (from any thread)."""
        key = key_for(data, ids)
        with self._lock:
            found = self._views.get(key)
            if found is not None:
                self._views.move_to_end(key)
                return _copy(found, len(set(ids)))
        made = refit(data, conn, ids, progress=progress, cancelled=cancelled)
        with self._lock:
            self.computed += 1
            self._views[key] = made
            while len(self._views) > self.size:
                self._views.popitem(last=False)
        return _copy(made, len(set(ids)))


def _copy(shown: MapView, asked: int) -> MapView:
    """A kept view for another caller: its own `missing` (the arrays are never written)."""
    return MapView(list(shown.ids), shown.xy, shown.coarse, shown.fine, list(shown.spots), asked - len(shown.ids))

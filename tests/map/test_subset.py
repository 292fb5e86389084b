"""Subset refit: only the subset laid out (from its library places), deterministic, its own regions,
the library's map untouched, kept by what it depends on."""

from __future__ import annotations

import numpy as np
import pytest

from reader.library import Library
from reader.map import mapfile, subset, view


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    lib = Library.open(tmp_path_factory.mktemp("subset") / "lib")  # the 56 seed papers, laid out once
    mapfile.current(lib, lib.paths.root)
    yield lib
    lib.close()


def _mapped(lib: Library) -> mapfile.MapData:
    return mapfile.current(lib, lib.paths.root)


def test_a_refit_lays_out_only_the_subset_and_leaves_the_library_alone(library: Library):
    data = _mapped(library)
    saved = mapfile.path_for(library.paths.root).read_bytes()
    places = data.xy.copy()
    ids = data.ids[::2][:24]
    library_view = view.subset(data, ids)
    refit = subset.refit(data, library.read_connection(), ids)
    assert refit.ids == ids and refit.missing == 0
    assert refit.xy.shape == (24, 2) and refit.xy.dtype == np.float32
    assert not np.allclose(refit.xy, library_view.xy)  # laid out anew…
    assert np.array_equal(data.xy, places)  # …the library's places and file unchanged
    assert mapfile.path_for(library.paths.root).read_bytes() == saved
    again = subset.refit(data, library.read_connection(), ids)
    assert np.array_equal(again.xy, refit.xy) and again.spots == refit.spots  # deterministic
    # Its regions are the subset's own: every paper in one, the sizes add up to the subset.
    coarse = [s for s in refit.spots if s.level == 0]
    assert sum(s.size for s in coarse) == 24
    assert set(refit.coarse.tolist()) == {s.id for s in coarse}
    assert refit.xy.min() >= 0 and refit.xy.max() <= 10.0 + 1e-4  # fitted into the layout's box


def test_the_refit_starts_from_the_library_places(library: Library, monkeypatch):
    data = _mapped(library)
    ids = data.ids[:20]
    seen = []
    real = subset.lay.optimise

    def spy(xy, *args, **kwargs):
        seen.append(xy.copy())
        return real(xy, *args, **kwargs)

    monkeypatch.setattr(subset.lay, "optimise", spy)
    subset.refit(data, library.read_connection(), ids)
    rows = [data.position()[p] for p in ids]
    assert len(seen) == 1 and np.allclose(seen[0], subset.lay.fit_box(data.xy[rows]))


def test_small_subsets_the_whole_library_and_unknown_papers(library: Library):
    data = _mapped(library)
    conn = library.read_connection()
    few = subset.refit(data, conn, data.ids[:3])
    assert np.array_equal(few.xy, view.subset(data, data.ids[:3]).xy)  # nothing to lay out
    whole = subset.refit(data, conn, list(data.ids))
    assert np.array_equal(whole.xy, data.xy)  # the library's own layout
    part = subset.refit(data, conn, [*data.ids[:10], "nope-1", "nope-2"])
    assert part.ids == data.ids[:10] and part.missing == 2


def test_the_cache_lays_a_subset_out_once_and_again_when_its_words_change(library: Library):
    data = _mapped(library)
    ids = data.ids[5:30]
    cache = subset.RefitCache(size=2)
    first = cache.get(data, library.read_connection(), ids)
    library.set_starred(ids[:3], True)  # marks move nobody: still kept
    data = _mapped(library)
    assert np.array_equal(cache.get(data, library.read_connection(), ids).xy, first.xy)
    assert cache.computed == 1
    key = subset.key_for(data, ids)
    data.hashes[data.position()[ids[0]]] += 1  # as if its abstract were edited
    assert subset.key_for(data, ids) != key
    cache.get(data, library.read_connection(), ids)
    assert cache.computed == 2
    for other in (data.ids[:12], data.ids[12:24]):  # older ones are dropped past the size
        cache.get(data, library.read_connection(), other)
    assert cache.computed == 4 and len(cache._views) == 2

"""Derived numpy files: atomic writes, nothing left behind by a failed one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reader.derived_files import READ_ERRORS, save_npz


class Broken:
    def __array__(self, *_a, **_k):
        raise ValueError("cannot be written")


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "map.npz"
    save_npz(path, ".map-", {"meta": np.array([1, 2])})
    with pytest.raises(ValueError):
        save_npz(path, ".map-", {"meta": np.array([3]), "bad": Broken()})
    assert [p.name for p in tmp_path.iterdir()] == ["map.npz"]
    with np.load(path) as z:
        assert z["meta"].tolist() == [1, 2]
    path.write_bytes(b"PK\x03\x04 cut short")
    with pytest.raises(READ_ERRORS):
        np.load(path)["meta"]


def test_a_map_cut_short_after_its_zip_magic_is_rebuilt(tmp_path: Path) -> None:
    """np.load raised BadZipFile on it, which the readers did not catch: an internal error."""
    from reader.map import mapfile, marks
    from reader.triage import feature_store

    for load in (mapfile.load, marks.load, feature_store.load):
        path = tmp_path / "cut.npz"
        path.write_bytes(b"PK\x03\x04 cut short")
        assert load(path) is None

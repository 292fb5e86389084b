"""Map files from before the upgrade (no `origin`, a five-number meta) are adopted when they are
exactly the library's map, and laid out anew otherwise (issue 30: each library laid out its map
once after the upgrade; a restore changes the origin on purpose, so then the file is never adopted)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from reader.cli import run
from reader.derived_files import open_npz, origin_of
from reader.library import Library
from reader.map import mapfile
from reader.store import changes
from reader.store.backups import write_backup


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "lib"  # the 56 seed papers


def _write_legacy(path: Path, data: mapfile.MapData, **change: object) -> None:
    """The map as Reader wrote it before files named their origin (meta: version, stamp, full
    count, changed, token), with `change` replacing arrays."""
    arrays: dict[str, object] = {
        "meta": np.array([mapfile.VERSION, data.stamp, data.full_count, data.changed, 12345], dtype=np.int64),
        "ids": np.array(data.ids, dtype=np.str_), "xy": data.xy, "coarse": data.coarse, "fine": data.fine,
        "clusters": np.array(["\t".join((str(c.level), str(c.id), *c.words)) for c in data.clusters], dtype=np.str_),
        "vectors": data.vectors, "hashes": data.hashes, "words": np.array(data.vocab.words, dtype=np.str_),
        "idf": data.vocab.idf, "components": data.components}
    arrays.update(change)
    tmp = path.with_name("legacy-writing.npz")
    with tmp.open("wb") as f:
        np.savez(f, **arrays)  # type: ignore[arg-type]
    os.replace(tmp, path)


@pytest.fixture
def layouts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the full layouts mapfile.current runs."""
    made: list[int] = []
    real = mapfile.build

    def counted(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(mapfile, "build", counted)
    return made


def _laid_out(root: Path) -> mapfile.MapData:
    with Library.open(root) as lib:
        return mapfile.current(lib, root)


def test_a_legacy_map_of_the_same_papers_is_adopted_not_laid_out_again(root: Path, layouts: list[int]) -> None:
    data = _laid_out(root)
    path = mapfile.path_for(root)
    _write_legacy(path, data)
    with Library.open(root) as lib:
        lib.set_starred(lib.paper_ids()[:3], True)  # the change sequence moved on: nobody's words changed
        origin = changes.origin(lib.read_connection())
        layouts.clear()
        adopted = mapfile.current(lib, root)
        assert layouts == []  # no layout anew
        assert adopted.ids == data.ids and np.array_equal(adopted.xy, data.xy)
        assert [c.words for c in adopted.clusters] == [c.words for c in data.clusters]
        assert adopted.origin == origin and adopted.stamp == changes.current_seq(lib.read_connection())
    with open_npz(path) as z:  # stamped: the next open takes it as any current file
        assert origin_of(z) == origin
    loaded = mapfile.load(path, origin)
    assert loaded is not None and loaded.ids == data.ids
    with Library.open(root) as lib:
        again = mapfile.current(lib, root)
        assert layouts == [] and np.array_equal(again.xy, data.xy)
        assert again.features().vectors.shape == data.vectors.shape  # its vectors read from the stamped file


def _nan(data: mapfile.MapData) -> dict[str, object]:
    xy = data.xy.copy()
    xy[2] = np.nan
    return {"xy": xy}


@pytest.mark.parametrize("why", ["a paper deleted", "a title edited", "nan places", "short vectors",
                                 "stamp ahead"])
def test_a_legacy_map_unlike_the_library_is_laid_out_again(root: Path, layouts: list[int], why: str) -> None:
    data = _laid_out(root)
    change: dict[str, object] = {}
    if why == "nan places":
        change = _nan(data)
    elif why == "short vectors":
        change = {"vectors": data.vectors[:-1]}
    elif why == "stamp ahead":
        change = {"meta": np.array([mapfile.VERSION, data.stamp + 5, data.full_count, 0, 1], dtype=np.int64)}
    _write_legacy(mapfile.path_for(root), data, **change)
    with Library.open(root) as lib:
        if why == "a paper deleted":
            lib.delete_papers(lib.paper_ids()[:1])
        elif why == "a title edited":
            lib.set_title(data.ids[4], "A title of other words entirely")
        layouts.clear()
        again = mapfile.current(lib, root)
        assert layouts == [1], why
        assert sorted(again.ids) == sorted(lib.paper_ids()) and np.isfinite(again.xy).all()
        assert again.origin == changes.origin(lib.read_connection())


def test_after_a_restore_a_legacy_map_is_never_adopted(root: Path, tmp_path: Path, layouts: list[int],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    backup = tmp_path / "before.sqlite3.gz"
    data = _laid_out(root)
    with Library.open(root) as lib:
        write_backup(lib.read_connection(), backup)
    assert run(["--data-dir", str(root), "doctor", "--restore", str(backup)]) == 0
    capsys.readouterr()
    # The same papers and words as the restored library: consistent, but from before the restore.
    _write_legacy(mapfile.path_for(root), data)
    with Library.open(root) as lib:
        assert changes.restored(lib.read_connection())
        layouts.clear()
        again = mapfile.current(lib, root)
        assert layouts == [1]
        assert again.origin == changes.origin(lib.read_connection()) != data.origin

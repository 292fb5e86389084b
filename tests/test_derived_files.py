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


# --- checked before use (issue 30): regular files only, this library's origin, consistent ---------

import dataclasses  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from reader.cli import run  # noqa: E402
from reader.library import Library  # noqa: E402
from reader.map import mapfile as store  # noqa: E402
from reader.map import marks as map_marks  # noqa: E402
from reader.store import changes  # noqa: E402
from reader.store.backups import write_backup  # noqa: E402
from reader.triage import feature_store  # noqa: E402

DERIVED = {"map": store.FILE_NAME, "marks": map_marks.FILE_NAME, "triage": feature_store.FILE_NAME}


def _cli(root: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "READER_DATA_DIR": str(root), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    with Library.open(folder):  # the 56 seed papers
        pass
    return folder


@pytest.mark.parametrize("which", sorted(DERIVED))
def test_a_fifo_in_place_of_a_derived_file_never_hangs(root: Path, which: str) -> None:
    """Reading it blocked for ever (open() of a FIFO waits for a writer): map and triage hung."""
    import threading

    fifo = root / DERIVED[which]
    os.mkfifo(fifo)
    if which == "map":  # the old code hung here until the timeout
        try:
            proc = _cli(root, "map", "--json", "-", timeout=300)  # a limit on a hang only (the old code hung)
        except subprocess.TimeoutExpired:
            pytest.fail("reader map hung on a FIFO map.npz")
        assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert str(fifo) in proc.stderr and "not a regular file" in proc.stderr
    else:  # the marks and triage's counts are only a cache: made without it, the FIFO left alone
        result: list[object] = []

        def work() -> None:
            with Library.open(root) as lib:
                if which == "marks":
                    result.append(map_marks.current(lib.read_connection(), root))
                else:
                    result.append(feature_store.current(lib, root))

        t = threading.Thread(target=work, daemon=True)
        t.start()
        t.join(60)
        assert not t.is_alive() and len(result) == 1
    assert stat_is_fifo(fifo)  # never replaced


def stat_is_fifo(path: Path) -> bool:
    import stat

    return stat.S_ISFIFO(os.lstat(path).st_mode)


def test_a_folder_in_place_of_the_map_is_named_not_a_temporary_file(root: Path, capsys) -> None:
    (root / store.FILE_NAME).mkdir()
    assert run(["--data-dir", str(root), "map", "--json", "-"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("not a regular file; move it away and Reader builds it again"), err
    assert f"{root / store.FILE_NAME} is a folder" in err and ".map-" not in err
    assert not list(root.glob(".map-*"))


def _places(root: Path) -> dict[str, tuple[float, float]]:
    with Library.open(root) as lib:
        data = store.current(lib, root)
        return {pid: (float(x), float(y)) for pid, (x, y) in zip(data.ids, data.xy, strict=True)}


def test_another_librarys_map_with_an_equal_stamp_is_rebuilt(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    with Library.open(a) as lib_a:
        ids = lib_a.paper_ids()
        lib_a.delete_papers(ids[:10])
        data_a = store.current(lib_a, a)
    with Library.open(b) as lib_b:  # all 56 papers
        seq_b = changes.current_seq(lib_b.read_connection())
        # A's map copied in, stamped as if it reflected B's change sequence.
        store.save(store.path_for(b), dataclasses.replace(data_a, stamp=seq_b))
        data_b = store.current(lib_b, b)
        assert sorted(data_b.ids) == sorted(lib_b.paper_ids())  # not A's 46
        assert data_b.origin == changes.origin(lib_b.read_connection()) != data_a.origin


def test_marks_and_triage_counts_of_another_library_are_not_used(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    with Library.open(a) as lib_a, Library.open(b) as lib_b:
        lib_a.set_starred(lib_a.paper_ids()[:3], True)
        conn_a, conn_b = lib_a.read_connection(), lib_b.read_connection()
        seq_b = changes.current_seq(conn_b)
        marks_a = map_marks.current(conn_a, a)
        map_marks.save(map_marks.path_for(b), marks_a, seq_b, changes.origin(conn_a))
        assert map_marks.load(map_marks.path_for(b), changes.origin(conn_b)) is None
        assert map_marks.current(conn_b, b).state == map_marks.current(conn_b, tmp_path / "fresh").state
        counts_a = feature_store.load(feature_store.path_for(a))
        if counts_a is None:
            from reader.triage.features import count
            counts_a = (count(lib_a.paper_texts()[:5]), 0)
        feature_store.save(feature_store.path_for(b), counts_a[0], seq_b, changes.origin(conn_a))
        assert feature_store.load(feature_store.path_for(b), changes.origin(conn_b)) is None
        assert len(feature_store.current(lib_b, b).ids) == 56


@pytest.mark.parametrize("damage", ["short ids", "nan places", "repeated ids"])
def test_an_inconsistent_map_is_rebuilt(root: Path, damage: str) -> None:
    with Library.open(root) as lib:
        data = store.current(lib, root)
        origin = changes.origin(lib.read_connection())
    path = store.path_for(root)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    if damage == "short ids":
        arrays["ids"] = arrays["ids"][:-5]
    elif damage == "nan places":
        arrays["xy"] = arrays["xy"].copy()
        arrays["xy"][3] = np.nan
    else:
        arrays["ids"] = arrays["ids"].copy()
        arrays["ids"][1] = arrays["ids"][0]
    save_npz(path, ".map-", arrays)
    assert store.load(path, origin) is None
    with Library.open(root) as lib:
        again = store.current(lib, root)
    assert sorted(again.ids) == sorted(data.ids) and np.isfinite(again.xy).all()


def test_after_a_restore_the_map_holds_the_restored_papers(root: Path, tmp_path: Path, capsys) -> None:
    backup = tmp_path / "before.sqlite3.gz"
    with Library.open(root) as lib:
        everyone = sorted(lib.paper_ids())
        write_backup(lib.read_connection(), backup)
        lib.delete_papers(everyone[:20])
        for pid in everyone[20:30]:  # the change sequence moves on past the backup's
            lib.set_starred([pid], True)
        assert len(store.current(lib, root).ids) == 36
    assert run(["--data-dir", str(root), "doctor", "--restore", str(backup)]) == 0
    with Library.open(root) as lib:
        lib.set_starred(everyone[:2], True)  # later writes: the old code still left the 20 out
        lib.set_read(everyone[2:4], True)
        assert sorted(store.current(lib, root).ids) == everyone
        conn = lib.read_connection()
        assert map_marks.current(conn, root).ids and sorted(map_marks.current(conn, root).ids) == everyone
        assert sorted(feature_store.current(lib, root).ids) == everyone
    capsys.readouterr()

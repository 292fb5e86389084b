"""IndexUpkeep: the index folder's stamp, as any process leaves it, is read back."""

from __future__ import annotations

from reader.index_upkeep import disk_stamp
from reader.library import Library


def test_disk_stamp_reads_what_the_search_index_writes(tmp_path):
    lib = Library.open(tmp_path / "lib")
    try:
        lib.sync_index()
        assert disk_stamp(lib.index.index_dir) == lib.index.stamp > 0
        lib.set_starred([lib.paper_ids()[0]], True)
        assert disk_stamp(lib.index.index_dir) == lib.index.stamp
    finally:
        lib.close()


def test_disk_stamp_of_a_missing_or_bad_file_is_none(tmp_path):
    assert disk_stamp(tmp_path) is None
    (tmp_path / "reader-stamp.json").write_text("{not json")
    assert disk_stamp(tmp_path) is None

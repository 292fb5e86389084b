"""Another process writing while the map is laid out: nothing lost, nobody else moved."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from reader.library import Library
from reader.map import layout, mapfile
from reader.map import marks as mk
from reader.store import changes, map_rows


def test_papers_written_during_a_layout_are_placed_after_it(tmp_path: Path, monkeypatch):
    library = Library.open(tmp_path / "lib")  # the 56 seed papers
    other = Library.open(tmp_path / "lib")  # another process's connection
    root, conn = library.paths.root, library.read_connection()
    starred = map_rows.all_ids(conn)[0]
    src = tmp_path / "new.jsonl"
    src.write_text(json.dumps({"title": "Written meanwhile", "abstract": "Graph networks for molecules."}) + "\n",
                   "utf-8")
    real = layout.layout

    def with_a_write(vectors, **kwargs):  # after the words were read, before the places exist
        other.import_files([src], index=False)
        other.set_starred([starred], True)
        return real(vectors, **kwargs)

    monkeypatch.setattr(layout, "layout", with_a_write)
    built = mapfile.current(library, root, full=True)
    monkeypatch.undo()
    # The layout is of what it read (its stamp says so), not half of each.
    assert len(built.ids) == 56 and built.stamp < changes.current_seq(conn)
    later = mapfile.current(library, root, known=built)
    assert len(later.ids) == 57 and later.stamp == changes.current_seq(conn)
    pos = later.position()
    assert all(np.array_equal(later.xy[pos[p]], built.xy[i]) for i, p in enumerate(built.ids))
    marks = mk.current(conn, root)
    row = marks.row_of()
    assert "Written meanwhile" in marks.title and marks.state[row[starred]] == map_rows.STARRED
    other.close()
    library.close()

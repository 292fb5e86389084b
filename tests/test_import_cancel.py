"""A cancelled import leaves nothing behind: no papers, no index documents, no segment files."""

from __future__ import annotations

import json
from pathlib import Path

from reader.library import Library


def _write_papers(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"title": f"Paper {i}", "abstract": f"Abstract number {i} about cancelled imports "
                                f"and word{i} tokens, long enough to be kept."}) + "\n")
    return path


def test_cancel_after_the_last_batch_keeps_nothing(tmp_path: Path) -> None:
    """Cancel pressed once every row is written (the index workers still finishing) used to
    commit the file and index it anyway."""
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    try:
        lib.sync_index()
        before = set((tmp_path / "lib" / "index").iterdir())
        src = _write_papers(tmp_path / "many.jsonl", 1200)
        state = {"cancel": False}

        def progress(done: int, total: int, message: str) -> None:
            if message.startswith("Importing") and total and done >= total:
                state["cancel"] = True  # the user clicks Cancel as the last batch is stored

        summaries = lib.import_files([src], progress=progress, cancelled=lambda: state["cancel"], index=False)
        assert state["cancel"], "the import never reported its last batch"
        assert summaries[0].error and "cancelled" in summaries[0].error
        assert lib.counts().total == 0
        assert not lib.index_needs_sync() and lib.index.doc_count == 0
        assert set((tmp_path / "lib" / "index").iterdir()) == before  # no half-built segments
        assert lib.imports_log() == []
    finally:
        lib.close()

"""A segment's lexicon is read by one thread: a second asking meanwhile waits for it (at start,
the first related list and the index's warm-up used to read the same one side by side)."""

from __future__ import annotations

import threading
import time

import pytest

from reader.search import SearchIndex
from reader.search.segments import internals

from .helpers import doc


def test_two_threads_asking_for_one_lexicon_read_it_once(tmp_path, monkeypatch) -> None:
    ix = SearchIndex.open(tmp_path / "ix")
    ix.rebuild([doc(i, f"Graph paper {i}", "Message passing on graphs of molecules.") for i in range(20)], stamp=1)
    try:
        [(leaf, _)] = list(ix._s().reader().leaf_readers())
        internals._lexicons.pop((leaf.segment().segment_id(), "words"), None)
        reads: list[str] = []
        real = internals.lexicon

        def slow(leaf_, fieldname):
            reads.append(threading.current_thread().name)
            time.sleep(0.2)  # long enough for the other thread to ask meanwhile
            return real(leaf_, fieldname)

        monkeypatch.setattr(internals, "lexicon", slow)
        got: dict[str, object] = {}

        def ask(name: str) -> None:
            got[name] = internals.segment_lexicon(leaf, "words")

        threads = [threading.Thread(target=ask, args=(f"t{i}",), name=f"t{i}") for i in range(3)]
        for t in threads:
            t.start()
            time.sleep(0.02)
        for t in threads:
            t.join()
        assert len(reads) == 1
        tables = list(got.values())
        assert len(tables) == 3 and all(t is tables[0] for t in tables) and "graph" in tables[0]
        assert internals._reading == {}
    finally:
        ix.close()


def test_a_failed_read_leaves_the_next_asker_to_read_it(tmp_path, monkeypatch) -> None:
    ix = SearchIndex.open(tmp_path / "ix")
    ix.rebuild([doc(1, "Graph paper", "Message passing.")], stamp=1)
    try:
        [(leaf, _)] = list(ix._s().reader().leaf_readers())
        internals._lexicons.pop((leaf.segment().segment_id(), "words"), None)
        real = internals.lexicon
        monkeypatch.setattr(internals, "lexicon", lambda *_: (_ for _ in ()).throw(OSError("gone")))
        with pytest.raises(OSError):
            internals.segment_lexicon(leaf, "words")
        assert internals._reading == {}
        monkeypatch.setattr(internals, "lexicon", real)
        assert "graph" in internals.segment_lexicon(leaf, "words")
    finally:
        ix.close()

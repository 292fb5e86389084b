"""The map's core: deterministic layouts, incremental upkeep that moves nobody, subsets, labels, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from reader.library import Library
from reader.map import clusters, features, layout, mapfile, view
from reader.store import map_rows


@pytest.fixture
def library(tmp_path: Path):
    lib = Library.open(tmp_path / "lib")  # the 56 seed papers
    yield lib
    lib.close()


def _import(lib: Library, folder: Path, abstracts: list[str]) -> None:
    src = folder / "more.jsonl"
    src.write_text("".join(json.dumps({"title": a.split(".")[0], "abstract": a}) + "\n" for a in abstracts), "utf-8")
    lib.import_files([src], index=False)


NEW = [
    "Graph neural networks pass messages between the nodes of a graph to learn node embeddings.",
    "Diffusion models generate images by learning to reverse a gradual noising process.",
    "We study reinforcement learning agents that learn a policy from sparse rewards in games.",
]


def test_tfidf_rows_match_the_per_paper_projection():
    docs = list(features.tokens(["graph neural network graph", "neural image model", "graph image model image", ""]))
    vocab, x = features.tfidf(docs)
    again = features.matrix(docs, vocab)
    assert vocab.words == sorted(vocab.words)
    assert np.array_equal(x.indptr, again.indptr) and np.array_equal(x.indices, again.indices)
    assert np.allclose(x.data, again.data)
    dense = np.random.default_rng(0).standard_normal((x.cols, 3)).astype(np.float32)
    full = np.zeros((x.rows, x.cols), np.float32)
    full[np.repeat(np.arange(x.rows), np.diff(x.indptr)), x.indices] = x.data
    assert np.allclose(x.dot(dense), full @ dense, atol=1e-5)
    assert np.allclose(x.transpose().dot(np.ones((x.rows, 2), np.float32)), full.T @ np.ones((x.rows, 2)), atol=1e-5)


def test_the_layout_is_deterministic(library: Library):
    a = mapfile.build(library.read_connection())
    b = mapfile.build(library.read_connection())
    assert a.ids == b.ids and len(a.ids) == 56
    assert np.array_equal(a.xy, b.xy)
    assert np.array_equal(a.coarse, b.coarse) and a.clusters == b.clusters


def test_new_papers_are_placed_without_moving_the_others(library: Library, tmp_path: Path):
    root = library.paths.root
    first = mapfile.current(library, root)
    assert mapfile.path_for(root).exists()
    _import(library, tmp_path, NEW)
    second = mapfile.current(library, root)
    assert len(second.ids) == len(first.ids) + 3
    pos = second.position()
    moved = max(float(np.abs(second.xy[pos[p]] - first.xy[i]).max()) for i, p in enumerate(first.ids))
    assert moved == 0.0
    new = [p for p in second.ids if p not in set(first.ids)]
    assert len(new) == 3
    lo, hi = first.xy.min(axis=0), first.xy.max(axis=0)
    for p in new:  # placed among their neighbours, inside the map
        assert np.all(second.xy[pos[p]] >= lo - 0.5) and np.all(second.xy[pos[p]] <= hi + 0.5)
    # Stored: a fresh load (a restart) has the same places.
    loaded = mapfile.load(mapfile.path_for(root))
    assert loaded is not None and loaded.ids == second.ids and np.array_equal(loaded.xy, second.xy)


def test_deleted_papers_leave_and_a_star_moves_nobody(library: Library):
    root = library.paths.root
    first = mapfile.current(library, root)
    gone = first.ids[:2]
    library.delete_papers(gone)
    library.set_starred([first.ids[5]], True)
    second = mapfile.current(library, root)
    assert set(second.ids) == set(first.ids) - set(gone)
    pos = first.position()
    for i, p in enumerate(second.ids):
        assert np.array_equal(second.xy[i], first.xy[pos[p]])


def test_a_star_keeps_the_arrays_and_a_traceless_delete_is_still_noticed(library: Library):
    root = library.paths.root
    first = mapfile.current(library, root)
    library.set_starred([first.ids[3]], True)
    starred = mapfile.current(library, root, known=first)
    assert starred.xy is first.xy and starred.stamp > first.stamp  # nothing recomputed
    # A paper removed behind the library's back leaves no tombstone: the count disagrees with
    # the change log, and every id is compared.
    with library.write_transaction() as (conn, _seq):
        conn.execute("DELETE FROM papers WHERE id = ?", [first.ids[4]])
    later = mapfile.current(library, root, known=starred)
    assert first.ids[4] not in later.ids and len(later.ids) == len(first.ids) - 1


def test_a_map_read_before_another_save_goes_on_from_the_newer_file(library: Library, tmp_path: Path):
    root = library.paths.root
    mapfile.current(library, root)
    early = mapfile.load(mapfile.path_for(root))
    assert early is not None and early._vectors is None  # opened without the vectors
    _import(library, tmp_path, NEW[:1])
    newer = mapfile.current(library, root)  # another process brings the file up to date
    _import(library, tmp_path, NEW[1:])
    later = mapfile.current(library, root, known=early)  # early's vectors are no longer in the file
    assert len(later.ids) == len(newer.ids) + 2 == len(early.ids) + 3
    pos = later.position()
    assert all(np.array_equal(later.xy[pos[p]], newer.xy[i]) for i, p in enumerate(newer.ids))


def test_much_changed_means_a_full_layout(library: Library, tmp_path: Path):
    root = library.paths.root
    first = mapfile.current(library, root)
    library.delete_papers(first.ids[: int(len(first.ids) * 0.3)])
    second = mapfile.current(library, root)
    assert second.full_count == len(second.ids) and second.changed == 0


def test_a_damaged_map_file_is_rebuilt(library: Library):
    root = library.paths.root
    mapfile.path_for(root).write_bytes(b"not a map")
    assert mapfile.load(mapfile.path_for(root)) is None
    assert len(mapfile.current(library, root).ids) == 56


def test_a_subset_keeps_the_library_places_and_the_json_shape(library: Library):
    data = mapfile.current(library, library.paths.root)
    some = data.ids[10:20]
    shown = view.subset(data, list(reversed(some)) + ["not-a-paper"])
    assert shown.ids == list(reversed(some)) and shown.missing == 1
    pos = data.position()
    for pid, xy in zip(shown.ids, shown.xy, strict=True):
        assert np.array_equal(xy, data.xy[pos[pid]])
    out = shown.to_json()
    assert set(out) == {"papers", "clusters"}
    assert all(set(p) == {"id", "x", "y", "cluster"} for p in out["papers"])
    assert all(set(c) == {"id", "label", "size", "x", "y"} for c in out["clusters"])
    assert sum(c["size"] for c in out["clusters"]) == len(shown.ids)
    assert {p["cluster"] for p in out["papers"]} == {c["id"] for c in out["clusters"]}


def test_label_words_tell_their_cluster_apart():
    # Two groups of papers with their own words, and a word both share.
    texts = [f"graph node message passing model {i}" for i in range(20)]
    texts += [f"image pixel diffusion noise model {i}" for i in range(20)]
    docs = features.tokens(texts)
    vocab, x = features.tfidf(docs)
    labels = np.array([0] * 20 + [1] * 20)
    words = clusters.label_words(x, vocab.words, labels, 2)
    assert set(words[0]) <= {"graph", "node", "message", "passing"} and words[0]
    assert set(words[1]) <= {"image", "pixel", "diffusion", "noise"} and words[1]
    assert "model" not in words[0] + words[1]


def test_a_label_names_a_word_form_once():
    # "attacks" and "attack" both pass the label test in the first group: the label says one.
    texts = [f"adversarial attacks attack robustness certified {i}" for i in range(20)]
    texts += [f"image pixel diffusion noise model {i}" for i in range(20)]
    docs = features.tokens(texts)
    vocab, x = features.tfidf(docs)
    words = clusters.label_words(x, vocab.words, np.array([0] * 20 + [1] * 20), 2)
    assert "adversarial" in words[0] and not {"attack", "attacks"} <= set(words[0]), words
    forms = [clusters.word_form(w) for w in words[0]]
    assert len(forms) == len(set(forms)), words[0]
    assert clusters.word_form("gans") == clusters.word_form("gan") and clusters.word_form("studies") == "study"
    assert clusters.word_form("loss") == "loss" and clusters.word_form("analysis") == "analysis"


def test_two_regions_of_a_level_never_share_a_label_word():
    # Two regions about language (one more so) and a big rest: "language" passes in both.
    texts = [f"language models translation {i}" for i in range(10)]
    texts += [f"language speech {i}" for i in range(6)] + [f"speech {i}" for i in range(4)]
    texts += [f"image pixel diffusion noise {i}" for i in range(60)]
    docs = features.tokens(texts)
    vocab, x = features.tfidf(docs)
    labels = np.array([0] * 10 + [1] * 10 + [2] * 60)
    words = clusters.label_words(x, vocab.words, labels, 3)
    assert "language" in words[0] and "language" not in words[1], words
    assert words[1] == ("speech",), words  # it keeps its own word


def test_placing_uses_the_nearest_papers():
    vectors = features.unit_rows(np.array([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]], np.float32))
    xy = np.array([[0, 0], [0.2, 0], [10, 10], [10, 9.8]], np.float32)
    spot = layout.place(features.unit_rows(np.array([[0.05, 1.0]], np.float32)), vectors, xy, k=2)
    assert np.linalg.norm(spot[0] - np.array([10, 9.9])) < 0.5


def test_marks_read_the_states(library: Library):
    pid = map_rows.all_ids(library.read_connection())[0]
    library.set_starred([pid], True)
    library.add_tags([pid], ["gnn"])
    other = map_rows.all_ids(library.read_connection())[1]
    library.add_tags([other], ["zeta", "alpha"])
    library.set_read([other], True)
    marks = map_rows.map_marks(library.read_connection())
    row = marks.row_of()
    assert marks.state[row[pid]] == map_rows.STARRED and marks.tag[row[pid]] == "gnn" and marks.title[row[pid]]
    # Tagged over read, and the first tag by name.
    assert marks.state[row[other]] == map_rows.TAGGED and marks.tag[row[other]] == "alpha"


def test_a_cancelled_layout_stops_and_writes_nothing(library: Library):
    steps: list[tuple[int, int, str]] = []
    calls = iter(range(10**6))

    def cancel_soon() -> bool:
        return next(calls) > 3

    with pytest.raises(features.LayoutCancelled):
        mapfile.current(library, library.paths.root, progress=lambda *a: steps.append(a), cancelled=cancel_soon)
    assert steps and not mapfile.path_for(library.paths.root).exists()


def test_numpy_gets_one_blas_thread_whatever_reader_module_comes_first():
    """A matrix product's rounding depends on how many BLAS threads split it: every process
    (window, CLI, benchmark) must pin one thread before numpy loads, or their maps differ."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for first in ("reader.derived_files", "reader.search", "reader.triage", "reader.cli.main"):
        out = subprocess.run([sys.executable, "-c", f"import {first}, os, sys; "
                              "print('numpy' in sys.modules, os.environ.get('OPENBLAS_NUM_THREADS'))"],
                             env=env, capture_output=True, text=True, check=True).stdout.split()
        assert out[1] == "1", (first, out)


def test_a_map_from_a_diverged_copy_of_the_library_leaves_no_paper_out(tmp_path: Path):
    # A copy of the library folder (same origin) that then lost ten papers left its map.npz here:
    # the change log did not account for the count, the ids were compared, but only the papers
    # changed since the map's stamp were placed: the ten stayed off the map, silently.
    import shutil

    here = tmp_path / "lib"
    with Library.open(here):  # the 56 seed papers
        pass
    copy = tmp_path / "copy"
    shutil.copytree(here, copy)
    with Library.open(copy) as other:
        gone = other.paper_ids()[:10]
        other.delete_papers(gone)
        assert len(mapfile.current(other, copy).ids) == 46
    with Library.open(here) as lib:
        lib.set_starred(gone[:1], True)  # one of them written here since: that one was placed
        shutil.copyfile(copy / "map.npz", here / "map.npz")
        data = mapfile.current(lib, here)
        assert sorted(data.ids) == sorted(lib.paper_ids()) and len(data.ids) == 56

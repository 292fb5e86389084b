"""The library's map, kept as a derived file beside the index (`map.npz` in the library folder).

Like the index it is never the source of truth: missing, damaged, of another format version
or stale (its stamp, the change sequence it reflects, behind the store's) it is rebuilt or
brought up to date. Up to date means: papers added since are placed from their nearest laid-out
neighbours, deleted ones dropped, papers whose words changed placed again; nobody else moves.
A full layout runs only when asked, when there is no map yet, or when more than REDO_SHARE of
the papers changed since the last full one (their places would rest on an outdated layout)."""

from __future__ import annotations

import os
import sqlite3
import threading
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from reader.derived_files import READ_ERRORS, open_npz, origin_of, save_npz
from reader.search.schema import similarity_words
from reader.store import changes, map_rows, papers
from reader.store.sql import read_snapshot

from . import clusters as cl
from . import layout as lay
from .features import CancelCheck, MapFeatures, Progress, Vocabulary, check, features_of, project
from .memory import give_back, map_big_blocks

FILE_NAME = "map.npz"
VERSION = 1
REDO_SHARE = 0.2
TOUCH_LIMIT = 20_000  # papers the change log is asked for before comparing every id


class MapSource(Protocol):
    """What the map needs of a library (reader.library.Library has it)."""

    def read_connection(self) -> sqlite3.Connection: ...


class StaleMap(Exception):
    """The map file changed under a map read from it before its vectors were needed."""


class _Deferred:
    """The members only placing new papers needs (vectors, vocabulary, components: 60% of the
    file), read from the file when first asked for: a map opens without them. The file must
    still be the one the map was read from (its meta row and token), else StaleMap."""

    def __init__(self, path: Path, meta: tuple[int, ...]) -> None:
        self.path, self.meta = path, meta
        self._lock = threading.Lock()
        self._value: tuple[np.ndarray, Vocabulary, np.ndarray] | None = None

    def get(self) -> tuple[np.ndarray, Vocabulary, np.ndarray]:
        with self._lock:
            if self._value is None:
                try:
                    with open_npz(self.path) as z:
                        if tuple(int(v) for v in z["meta"]) != self.meta:
                            raise StaleMap(str(self.path))
                        vectors, idf, components = z["vectors"], z["idf"], z["components"]
                        words = z["words"].tolist()
                        n = int(self.meta[-1]) if len(self.meta) > 5 else len(vectors)
                        if (vectors.ndim != 2 or len(vectors) != n or components.ndim != 2
                                or components.shape != (vectors.shape[1], len(words)) or len(idf) != len(words)
                                or not (np.isfinite(vectors).all() and np.isfinite(components).all())):
                            raise StaleMap(str(self.path))  # inconsistent: laid out again
                        self._value = (vectors, Vocabulary(words, idf), components)
                except READ_ERRORS as exc:
                    raise StaleMap(str(self.path)) from exc
            return self._value


@dataclass
class MapData:
    """A laid-out library: per paper (in id order, papers placed since at the end) its place,
    clusters, vector and text hash."""

    ids: list[str]
    xy: np.ndarray  # n x 2 float32
    coarse: np.ndarray  # n int32
    fine: np.ndarray  # n int32
    clusters: list[cl.Cluster]
    _vectors: np.ndarray | None  # n x d float16 (places new papers); None: still in the file
    hashes: np.ndarray  # n int64: crc32 of the words, to notice an edited abstract
    _vocab: Vocabulary | None
    _components: np.ndarray | None  # d x words float16
    stamp: int  # the change sequence it reflects
    full_count: int  # papers at the last full layout
    changed: int = 0  # papers placed or dropped since
    origin: str = ""  # the library's origin it was made from (store.changes.origin)
    _pos: dict[str, int] = field(default_factory=dict, repr=False)
    _deferred: _Deferred | None = field(default=None, repr=False)

    def _words(self) -> tuple[np.ndarray, Vocabulary, np.ndarray]:
        if self._vectors is None or self._vocab is None or self._components is None:
            assert self._deferred is not None, "a map without its vectors"
            self._vectors, self._vocab, self._components = self._deferred.get()
        return self._vectors, self._vocab, self._components

    @property
    def vectors(self) -> np.ndarray:
        return self._words()[0]

    @property
    def vocab(self) -> Vocabulary:
        return self._words()[1]

    @property
    def components(self) -> np.ndarray:
        return self._words()[2]

    def position(self) -> dict[str, int]:
        if len(self._pos) != len(self.ids):
            self._pos = dict(zip(self.ids, range(len(self.ids)), strict=True))
        return self._pos

    def features(self) -> MapFeatures:
        return MapFeatures(self.vectors.astype(np.float32), self.vocab, self.components.astype(np.float32))


def path_for(root: Path) -> Path:
    return Path(root) / FILE_NAME


def _hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "replace"))


def save(path: Path, data: MapData) -> None:
    """Atomically: a reader never sees half a file."""
    labels = np.array(["\t".join((str(c.level), str(c.id), *c.words)) for c in data.clusters], dtype=np.str_)
    # The token tells this file from another save of the same stamp and counts (_Deferred).
    token = int.from_bytes(os.urandom(7), "little")
    meta = np.array([VERSION, data.stamp, data.full_count, data.changed, token, len(data.ids)], dtype=np.int64)
    save_npz(path, ".map-", origin=data.origin, arrays={
        "meta": meta, "ids": np.array(data.ids, dtype=np.str_), "xy": data.xy, "coarse": data.coarse,
        "fine": data.fine, "clusters": labels, "vectors": data.vectors, "hashes": data.hashes,
        "words": np.array(data.vocab.words, dtype=np.str_), "idf": data.vocab.idf, "components": data.components})


def load(path: Path, origin: str | None = None) -> MapData | None:
    """The stored map, or None when missing, not a regular file, unreadable, of another version,
    of another origin than `origin` (another library's, or this one's before a restore) or
    inconsistent (arrays of other lengths, places not finite, repeated ids): rebuilt then.
    What only placing new papers needs is read later, when it is (see _Deferred)."""
    try:
        with open_npz(path) as z:
            meta = z["meta"]
            if len(meta) != 6 or int(meta[0]) != VERSION:
                return None
            if origin is not None and origin_of(z) != origin:
                return None
            found = []
            for row in z["clusters"].tolist():
                level, cid, *words = row.split("\t")
                found.append(cl.Cluster(int(cid), int(level), tuple(words)))
            ids, xy, coarse, fine, hashes = z["ids"].tolist(), z["xy"], z["coarse"], z["fine"], z["hashes"]
            n = int(meta[5])
            if (len(ids) != n or xy.shape != (n, 2) or coarse.shape != (n,) or fine.shape != (n,)
                    or hashes.shape != (n,) or not np.isfinite(xy).all() or len(set(ids)) != n
                    or int(meta[2]) < 0 or int(meta[3]) < 0):
                return None
            return MapData(ids, xy, coarse, fine, found, None, hashes, None, None,
                           int(meta[1]), int(meta[2]), int(meta[3]), origin=origin_of(z) or "",
                           _deferred=_Deferred(path, tuple(int(v) for v in meta)))
    except READ_ERRORS:
        return None


def adopt_legacy(path: Path, conn: sqlite3.Connection) -> MapData | None:
    """A map file written before map files named their library's origin (by a Reader before the
    upgrade), taken as this library's and saved with its origin, instead of a layout anew, when
    it is exactly what this library lays out: the same papers (ids, count), every paper's words
    unchanged (its text hash), arrays of matching shapes, places and vectors finite, its stamp
    not ahead of the store's. Never in a library a backup was restored into (the restore made a
    new origin on purpose: files from before it are not this library's) nor one without an
    origin. None otherwise (the caller lays the library out, as for any other file)."""
    try:
        with open_npz(path) as z:
            if origin_of(z) is not None:
                return None  # not a legacy file: load() decides on it
            meta = [int(v) for v in z["meta"]]
            if len(meta) not in (5, 6) or meta[0] != VERSION:
                return None
            ids, xy, coarse, fine, hashes = z["ids"].tolist(), z["xy"], z["coarse"], z["fine"], z["hashes"]
            vectors, idf, components, words = z["vectors"], z["idf"], z["components"], z["words"].tolist()
            rows = [row.split("\t") for row in z["clusters"].tolist()]
            found = [cl.Cluster(int(row[1]), int(row[0]), tuple(row[2:])) for row in rows]
    except READ_ERRORS:
        return None
    n = len(ids)
    if (len(meta) == 6 and meta[5] != n) or len(set(ids)) != n or xy.shape != (n, 2) or coarse.shape != (n,) \
            or fine.shape != (n,) or hashes.shape != (n,) or vectors.ndim != 2 or len(vectors) != n \
            or components.shape != (vectors.shape[1], len(words)) or idf.shape != (len(words),) \
            or min(meta[2], meta[3]) < 0 or not all(np.isfinite(a).all() for a in (xy, vectors, components, idf)):
        return None
    with read_snapshot(conn):
        origin = changes.origin(conn)
        stamp = changes.current_seq(conn)
        if not origin or changes.restored(conn) or meta[1] > stamp or papers.count(conn) != n:
            return None
        texts = _texts(conn, ids)
        if len(texts) != n or any(_hash(texts[pid]) != int(h) for pid, h in zip(ids, hashes.tolist(), strict=True)):
            return None
    data = MapData(ids, xy, coarse.astype(np.int32), fine.astype(np.int32), found, vectors, hashes,
                   Vocabulary(words, idf), components, stamp, meta[2], meta[3], origin=origin)
    save(path, data)
    return data


def _texts(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, str]:
    return dict(map_rows.texts(conn, ids))


def build(conn: sqlite3.Connection, *, progress: Progress = None, cancelled: CancelCheck = None) -> MapData:
    """A full layout of every paper of the library (one read snapshot: the stamp, the ids and
    the words agree even while another process writes)."""
    map_big_blocks()
    ids: list[str] = []
    hashes: list[int] = []

    lacking: list[str] = []  # each paper's title words its abstract lacks ("": none, or no abstract)

    def docs() -> Iterator[list[str]]:  # streamed: ids and hashes kept, the words only counted
        for pid, head, abstract in map_rows.all_parts(conn):
            ids.append(pid)
            hashes.append(_hash(f"{head}\n{abstract}"))  # map_rows.texts' words of the paper
            # Title and abstract apart (their words, read once, are the text's words in order):
            # a region's label words must be in its abstracts (clusters.py), a paper without an
            # abstract counts its title.
            title_words = similarity_words(head) if head else []
            abstract_words = similarity_words(abstract) if abstract else []
            lacking.append(" ".join(set(title_words).difference(abstract_words)) if abstract_words else "")
            yield title_words + abstract_words

    with read_snapshot(conn):
        stamp = changes.current_seq(conn)
        origin = changes.origin(conn)
        feats = features_of(docs(), cancelled=cancelled, progress=progress)
    assert feats.matrix is not None
    own = cl.without(feats.matrix, feats.vocab.words, lacking)
    lacking.clear()
    check(cancelled)

    def step(done: int, total: int, message: str) -> None:
        if progress:
            progress(1 + done * 2 // max(total, 1), 4, message)

    xy = lay.layout(feats.vectors, progress=step, cancelled=cancelled)
    give_back()
    if progress:
        progress(3, 4, "Naming the regions")
    coarse, fine, found_clusters = cl.cluster(xy, feats.matrix, feats.vocab.words, own)
    return MapData(ids, xy, coarse.astype(np.int32), fine.astype(np.int32), found_clusters,
                   feats.vectors.astype(np.float16), np.array(hashes, dtype=np.int64), feats.vocab,
                   feats.components.astype(np.float16), stamp, len(ids), origin=origin)


def _nearest_clusters(data: MapData, new_vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A new paper joins the clusters of its nearest laid-out paper."""
    if len(data.ids) == 0:
        return np.zeros(len(new_vectors), np.int32), np.zeros(len(new_vectors), np.int32)
    sims = new_vectors @ data.vectors.astype(np.float32).T
    near = sims.argmax(axis=1)
    return data.coarse[near], data.fine[near]


def _touched(data: MapData, conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """(papers of the map deleted since its stamp, papers written since): from the change log
    (the `seq` index, the tombstones) when it accounts for the library's count, else by
    comparing every id (the log says "too many", or something left no trace)."""
    pos = data.position()
    touched = changes.touched_since(conn, data.stamp, TOUCH_LIMIT)
    if touched is not None:
        exist = papers.existing_ids(conn, list(touched))
        gone = [pid for pid in touched if pid in pos and pid not in exist]
        written = [pid for pid in touched if pid in exist]
        if len(pos) - len(gone) + sum(pid not in pos for pid in written) == papers.count(conn):
            return gone, written
    # Every id both ways: a paper the map lacks counts as written even if the log has no trace
    # of it (a same-origin copy of the library, diverged, left its map here: it was left out).
    now = map_rows.all_ids(conn)
    now_set = set(now)
    changed = set(changes.changed_ids(conn, data.stamp))
    return ([pid for pid in data.ids if pid not in now_set],
            [pid for pid in now if pid in changed or pid not in pos])


def refresh(data: MapData, conn: sqlite3.Connection) -> MapData | None:
    """Bring `data` up to the store's change sequence without moving anyone else; None when
    too much changed (a full layout is due)."""
    stamp = changes.current_seq(conn)
    if data.origin != changes.origin(conn) or data.stamp > stamp:
        return None  # another library's, or from before a restore: laid out anew
    if stamp == data.stamp and len(data.ids) == papers.count(conn):  # the count: a diverged copy's file
        return data
    pos = data.position()
    gone, written = _touched(data, conn)
    texts = _texts(conn, written)
    fresh = [pid for pid in written if pid in texts and (pid not in pos or data.hashes[pos[pid]] != _hash(texts[pid]))]
    moved = len(gone) + len(fresh)
    if moved == 0:  # stars, tags, reads: nobody moves, the arrays stay as they are
        return replace(data, stamp=stamp, _pos=data._pos)
    if data.changed + moved > REDO_SHARE * max(data.full_count, 1):
        return None
    drop = set(gone) | set(fresh)
    keep = np.array([pid not in drop for pid in data.ids], dtype=bool)
    old_vectors = data.vectors[keep].astype(np.float32)
    old_xy = data.xy[keep]
    new_vectors = project([texts[p] for p in fresh], data.features())
    # Placed beside the papers that stay (an edited paper is not its own neighbour).
    kept = MapData([p for p, k in zip(data.ids, keep, strict=True) if k], old_xy, data.coarse[keep],
                   data.fine[keep], data.clusters, data.vectors[keep], data.hashes[keep], data.vocab,
                   data.components, stamp, data.full_count, data.changed + moved, origin=data.origin)
    new_xy = lay.place(new_vectors, old_vectors, old_xy, seeds=[_hash(p) for p in fresh])
    coarse, fine = _nearest_clusters(kept, new_vectors)
    ids = kept.ids + fresh  # new papers at the end (sorting 50k ids took longer than placing)
    hashes = np.array([_hash(texts[p]) for p in fresh], dtype=np.int64)

    def join(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.concatenate([a, b.astype(a.dtype)])

    return MapData(ids, join(kept.xy, new_xy), join(kept.coarse, coarse),
                   join(kept.fine, fine), data.clusters, join(kept.vectors, new_vectors),
                   join(kept.hashes, hashes), data.vocab, data.components, stamp, data.full_count,
                   kept.changed, origin=data.origin)


def current(source: MapSource, root: Path, *, full: bool = False, known: MapData | None = None,
            progress: Progress = None, cancelled: CancelCheck = None) -> MapData:
    """The library's map, up to date: `known` (the caller's last copy) or the stored one,
    refreshed, or laid out anew; saved when places changed (a star moves nobody: the file's
    older stamp only means the next look re-checks those papers)."""
    path = path_for(root)
    conn = source.read_connection()
    origin = changes.origin(conn)
    data = None if full else (known if known is not None else load(path, origin))
    if data is None and not full and known is None:
        data = adopt_legacy(path, conn)  # a map file from before the upgrade: not laid out again
    for _attempt in range(2):
        if data is None:
            break
        try:
            with read_snapshot(conn):  # the stamp and what changed agree, whoever writes meanwhile
                updated = refresh(data, conn)
        except StaleMap:  # saved anew (another process) since `data` was read: start from that
            data = load(path, origin)
            continue
        if updated is not None:
            if updated.changed != data.changed:
                save(path, updated)
            return updated
        break
    built = build(conn, progress=progress, cancelled=cancelled)
    save(path, built)
    return built

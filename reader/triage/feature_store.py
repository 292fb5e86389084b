"""Triage's word counts kept as a derived file beside the index (`triage_features.npz` in the
library folder), so a session's best first starts from them instead of every abstract's words.

Never the source of truth: missing, damaged, of another format version or stale (its stamp, the
change sequence it reflects, behind the store's) it is brought up to date from the store's
texts: papers whose text is unchanged (same crc32) keep their counts, new or edited ones are
counted, deleted ones dropped; then it is saved again (atomically). The features themselves
(vocabulary, idf, unit rows) are weighed from the counts each time: they depend on every paper.
A folder that cannot be written only costs the next session the counting again."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from reader.derived_files import READ_ERRORS, save_npz
from reader.store import changes
from reader.triage.features import Counts, Features, count, paper_text, text_hash, weigh

FILE_NAME = "triage_features.npz"
VERSION = 1
TF_MAX = np.iinfo(np.uint16).max  # a word's count in one paper, as stored (more: a pasted blob)

log = logging.getLogger(__name__)


class FeatureSource(Protocol):
    """What the store of counts reads (reader.library.Library has it)."""

    def read_connection(self) -> sqlite3.Connection: ...

    def paper_texts(self) -> list[tuple[str, str, str, bool]]: ...


def path_for(root: Path) -> Path:
    return Path(root) / FILE_NAME


def _pack(strings: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as one UTF-8 buffer and their end offsets (a fixed-width string array of 50k
    titles would be tens of MB)."""
    encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
    ends = np.cumsum([len(b) for b in encoded], dtype=np.int64) if encoded else np.zeros(0, np.int64)
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), ends


def _unpack(buffer: np.ndarray, ends: np.ndarray) -> list[str]:
    raw = buffer.tobytes()
    starts = [0, *ends[:-1].tolist()]
    return [raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip(starts, ends.tolist(), strict=True)]


def save(path: Path, counts: Counts, stamp: int) -> None:
    """Atomically: a reader never sees half a file."""
    arrays: dict[str, np.ndarray] = {"meta": np.array([VERSION, stamp], dtype=np.int64)}
    for name in ("ids", "titles", "terms"):
        arrays[f"{name}_buf"], arrays[f"{name}_ends"] = _pack(getattr(counts, name))
    arrays.update(indptr=counts.indptr, cols=counts.cols, tfs=np.minimum(counts.tfs, TF_MAX).astype(np.uint16),
                  hashes=counts.hashes)
    save_npz(path, ".triage-", arrays)


def load(path: Path) -> tuple[Counts, int] | None:
    """(the stored counts, their stamp), or None when missing, unreadable or of another version."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = z["meta"]
            if int(meta[0]) != VERSION:
                return None
            ids, titles, terms = (_unpack(z[f"{n}_buf"], z[f"{n}_ends"]) for n in ("ids", "titles", "terms"))
            counts = Counts(ids, titles, terms, z["indptr"].astype(np.int64), z["cols"].astype(np.int32),
                            z["tfs"].astype(np.int32), z["hashes"].astype(np.int64))
    except READ_ERRORS:
        return None
    n = len(counts.ids)
    if (len(counts.titles) != n or len(counts.indptr) != n + 1 or len(counts.hashes) != n
            or int(counts.indptr[-1]) != len(counts.cols) or len(counts.tfs) != len(counts.cols)
            or (len(counts.cols) and int(counts.cols.max()) >= len(counts.terms))):
        return None  # damaged: counted again
    return counts, int(meta[1])


def _rows(c: Counts, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lengths, cols, tfs) of the given rows of `c`, in that order."""
    starts, lengths = c.indptr[rows], np.diff(c.indptr)[rows]
    if not lengths.sum():
        return lengths, np.zeros(0, np.int32), np.zeros(0, np.int32)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    at = np.arange(int(lengths.sum())) + offsets
    return lengths, c.cols[at], c.tfs[at]


def update(old: Counts, texts: Sequence[tuple[str, str, str, bool]]) -> Counts:
    """The counts of `texts` (every paper, in the store's order), reusing `old`'s for the papers
    whose text has not changed."""
    hashes = np.fromiter((text_hash(paper_text(t, a, own)) for _pid, t, a, own in texts), dtype=np.int64,
                         count=len(texts))
    where = {pid: n for n, pid in enumerate(old.ids)}
    at = np.fromiter((where.get(t[0], -1) for t in texts), dtype=np.int64, count=len(texts))
    same = at >= 0
    same[same] = old.hashes[at[same]] == hashes[same]
    fresh_rows = np.flatnonzero(~same)
    fresh = count([texts[i] for i in fresh_rows.tolist()])
    terms = list(old.terms)
    number = {t: n for n, t in enumerate(terms)}
    remap = np.array([number.setdefault(t, len(number)) for t in fresh.terms], dtype=np.int32)
    terms.extend(t for t in list(number)[len(terms):])
    kept_len, kept_cols, kept_tfs = _rows(old, at[same])
    fresh_len = np.diff(fresh.indptr)
    lengths = np.zeros(len(texts), np.int64)
    lengths[same], lengths[~same] = kept_len, fresh_len
    # Assemble row by row in the texts' order: kept rows first in the joined arrays, then fresh.
    cols = np.concatenate([kept_cols, remap[fresh.cols] if len(fresh.cols) else fresh.cols]).astype(np.int32)
    tfs = np.concatenate([kept_tfs, fresh.tfs]).astype(np.int32)
    src_start = np.zeros(len(texts), np.int64)
    src_start[same] = np.concatenate(([0], np.cumsum(kept_len)[:-1])) if len(kept_len) else kept_len
    src_start[~same] = len(kept_cols) + fresh.indptr[:-1]
    offsets = np.repeat(src_start - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    gather = np.arange(int(lengths.sum())) + offsets
    indptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    return Counts([t[0] for t in texts], [t[1] for t in texts], terms, indptr, cols[gather], tfs[gather], hashes)


def current(source: FeatureSource, root: Path | None) -> Features:
    """The library's triage features from its stored counts, brought up to date (and saved when
    they were not); without `root`, counted from the texts."""
    path = path_for(root) if root is not None else None
    stamp = changes.current_seq(source.read_connection())  # read before the texts: never newer than them
    stored = load(path) if path is not None and path.exists() else None
    if stored is not None and stored[1] == stamp:
        return weigh(stored[0])
    texts = source.paper_texts()
    counts = count(texts) if stored is None else update(stored[0], texts)
    if path is not None:
        try:
            save(path, counts, stamp)
        except OSError as exc:  # a read-only folder: counted again next time
            log.warning("could not save the triage features to %s: %s", path, exc)
    return weigh(counts)

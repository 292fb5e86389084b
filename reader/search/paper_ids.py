"""Paper ids by document number, read once per segment (segments never change): hits are
named from a plain list instead of the id column, which reads each id from the file (~15 µs,
200 per keystroke); a rebuild's big segment is read once per process (~0.15 s per 50k, in
the window's warm-up), not at every write."""

from __future__ import annotations

from collections.abc import Iterable

from whoosh.columns import VarBytesColumn
from whoosh.fields import FieldType

# segment id -> its paper ids by document number
_seg_ids: dict[str, list[str]] = {}


def segment_ids(leaf) -> list[str]:
    """One segment's paper ids by document number, memoised."""
    key = leaf.segment().segment_id()
    ids = _seg_ids.get(key)
    if ids is None:
        ids = _read_id_column(leaf)
        if len(_seg_ids) > 256:
            _seg_ids.clear()
        _seg_ids[key] = ids
    return ids


def _read_id_column(leaf) -> list[str]:
    """The id column's values at once: one read of its bytes, cut by its offsets (~20 ms per
    50k ids, against ~0.15 s through Whoosh's reader, one file read per id)."""
    raw = leaf.column_reader("id", translate=False)
    if type(raw) is VarBytesColumn.Reader and len(raw._offsets) == leaf.doc_count_all() \
            and type(leaf.schema["id"]).from_bytes is FieldType.from_bytes:
        offsets, lengths = raw._offsets, raw._lengths
        end = offsets[-1] + lengths[-1] if len(offsets) else 0
        blob = bytes(raw._dbfile.get(raw._basepos, end)) if end else b""
        return [blob[o:o + n].decode("utf-8") for o, n in zip(offsets, lengths, strict=True)]
    return list(leaf.column_reader("id"))  # (another column type: Whoosh's reader)


def read_ids(s) -> list[str] | None:
    """Every paper id of the searcher by document number, if each segment's is read already."""
    leaves = s.reader().leaf_readers()
    if not all(leaf.segment().segment_id() in _seg_ids for leaf, _ in leaves):
        return None
    flat: list[str] = []
    for leaf, _ in leaves:
        flat.extend(_seg_ids[leaf.segment().segment_id()])
    return flat


def warm_ids(s) -> None:
    """A step of the warm-up: the paper ids of the first segment not read yet."""
    for leaf, _ in s.reader().leaf_readers():
        seg = leaf.segment()  # None: an empty index's reader
        if seg is not None and seg.segment_id() not in _seg_ids:
            segment_ids(leaf)
            return


# segment id -> {paper id: its document number in the segment}
_seg_numbers: dict[str, dict[str, int]] = {}


def _numbers(leaf) -> dict[str, int]:
    key = leaf.segment().segment_id()
    numbers = _seg_numbers.get(key)
    if numbers is None:
        ids = segment_ids(leaf)
        numbers = dict(zip(ids, range(len(ids)), strict=True))
        if len(_seg_numbers) > 256:
            _seg_numbers.clear()
        _seg_numbers[key] = numbers
    return numbers


# segment id -> whether it has `id` terms (Whoosh's own segments and older bulk-built ones)
_has_id_terms: dict[str, bool] = {}
FEW_IDS = 64  # up to this many ids are looked up by term where a segment has id terms


def _by_terms(leaf, wanted: set[str]) -> list[tuple[str, int]] | None:
    """The wanted ids' document numbers in a segment whose id list is not read yet, by its id
    terms (a few postings each) instead of reading the whole list (~0.15 s per 50k, in the
    middle of J/K's related papers); None when the segment has no id terms."""
    key = leaf.segment().segment_id()
    has = _has_id_terms.get(key)
    if has is None:
        has = next(iter(leaf.lexicon("id")), None) is not None
        if len(_has_id_terms) > 256:
            _has_id_terms.clear()
        _has_id_terms[key] = has
    if not has:
        return None
    found: list[tuple[str, int]] = []
    for pid in wanted:
        if leaf.doc_frequency("id", pid):
            found.extend((pid, n) for n in leaf.postings("id", pid).all_ids())
    return found


def document_numbers(reader, ids: Iterable[str]) -> dict[str, int]:
    """Each paper id's live document number in `reader` (a searcher's or an index writer's);
    ids not in the index are left out. Found through the id column, not `id` terms: a bulk
    build writes none (writer.UNINDEXED), and Whoosh's document_number(id=) needs them (a few
    ids in a segment whose list is not read yet: by its terms, when it has them)."""
    wanted = set(ids)
    out: dict[str, int] = {}
    if not wanted:
        return out
    for leaf, offset in reader.leaf_readers():
        if getattr(leaf, "segment", None) is None or leaf.segment() is None:
            continue  # an empty index's reader
        if len(wanted) <= FEW_IDS and leaf.segment().segment_id() not in _seg_numbers:
            by_terms = _by_terms(leaf, wanted)
            if by_terms is not None:
                deletions = leaf.has_deletions()
                for pid, n in by_terms:
                    if not (deletions and leaf.is_deleted(n)):
                        out.setdefault(pid, offset + n)
                continue
        numbers = _numbers(leaf)
        if len(numbers) < len(wanted):
            found = [(pid, n) for pid, n in numbers.items() if pid in wanted]
        else:
            found = [(pid, numbers[pid]) for pid in wanted if pid in numbers]
        deletions = leaf.has_deletions()
        for pid, n in found:
            if deletions and leaf.is_deleted(n):
                continue
            out.setdefault(pid, offset + n)
    return out

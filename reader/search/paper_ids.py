"""Paper ids by document number, read once per segment (segments never change): hits are
named from a plain list instead of the id column, which reads each id from the file (~15 µs,
200 per keystroke); a rebuild's big segment is read once per process (~0.15 s per 50k, in
the window's warm-up), not at every write."""

from __future__ import annotations

# segment id -> its paper ids by document number
_seg_ids: dict[str, list[str]] = {}


def segment_ids(leaf) -> list[str]:
    """One segment's paper ids by document number, memoised."""
    key = leaf.segment().segment_id()
    ids = _seg_ids.get(key)
    if ids is None:
        ids = list(leaf.column_reader("id"))
        if len(_seg_ids) > 256:
            _seg_ids.clear()
        _seg_ids[key] = ids
    return ids


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

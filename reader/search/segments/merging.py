"""Merge policies for the index's segments: small segments (from interactive updates) are
folded together; big ones (from rebuilds) are never rewritten."""

from __future__ import annotations

from collections.abc import Sequence

from whoosh.util import fib
from whoosh.writing import MERGE_SMALL


def merge_small_segments(at_least: int, small_segment: int):
    """Merge policy: fold the segments under small_segment documents into the new one when
    there are `at_least` of them; big segments (from rebuilds) are never rewritten."""

    def policy(writer, segments: list) -> list:
        small = [s for s in segments if s.doc_count_all() < small_segment]
        if len(small) < at_least:
            return segments
        from whoosh.reading import SegmentReader

        keep = []
        for seg in segments:
            if seg.doc_count_all() < small_segment:
                reader = SegmentReader(writer.storage, writer.schema, seg)
                writer.add_reader(reader)
                reader.close()
            else:
                keep.append(seg)
        return keep

    return policy


def whoosh_merges(doc_counts: Sequence[int]) -> bool:
    """Whether Whoosh's MERGE_SMALL merges segments of these sizes: it does once some of the
    smallest (five or more) hold fewer documents together than a Fibonacci bound of their
    number (fewer than 55 for five); this mirrors its test so no writer is opened for nothing."""
    total = 0
    for i, count in enumerate(sorted(doc_counts)):
        total += max(count, 0)
        if i > 3 and total < fib(i + 5):
            return True
    return False


def merge_small_by_whoosh(small_segment: int):
    """Merge policy: Whoosh's own MERGE_SMALL over the segments under small_segment documents
    (each merge takes the smallest ones only, so a document is rewritten a few times at most
    and the segment count grows like the log of the documents added); big segments (from
    rebuilds) are never rewritten, whatever MERGE_SMALL would do with them."""

    def policy(writer, segments: list) -> list:
        small = [s for s in segments if s.doc_count_all() < small_segment]
        kept = {id(s) for s in MERGE_SMALL(writer, small)}
        merged = {id(s) for s in small} - kept
        return [s for s in segments if id(s) not in merged]

    return policy

"""Whoosh's private segment format, behind one door: this module is the only one the rest of
reader.search imports (tests/test_architecture.py checks; nothing outside reader.search reaches it).

What it offers, by use:
- reading a segment's lexicon and postings without Whoosh's readers (rank, terms, typos,
  similar): `segment_lexicon`, `cached_lexicon`, `sorted_terms`, `postings`, `postings_at`,
  `doc_frequency`, `length_bytes`, `byte_length`;
- writing segments in bulk and merging the small ones (index, rebuild): `BulkWriter`,
  `bulk_codec`, `merge_small_segments`, `merge_small_by_whoosh`, `whoosh_merges`;
- building them on worker processes (rebuild, a big import): `Prepare`, `SegmentBuilder`,
  `ProcessSegmentBuilder`, `parallel_rebuild`, `Cancelled`;
- whether the fast path is on (checked against the installed Whoosh): `fast_path_enabled`.

Inside: raw reads (rawread, internals), the bulk writer (writer), merge policies (merging), the
worker-process builder (parallel), the guard (fastpath) and segment names (ids, imported first: every segment Whoosh
makes from here on gets an OS-random name)."""

from reader.search.segments import ids  # noqa: F401  (first: see ids.py)
from reader.search.segments.fastpath import enabled as fast_path_enabled
from reader.search.segments.internals import (
    byte_length,
    cached_lexicon,
    doc_frequency,
    length_bytes,
    postings,
    postings_at,
    segment_lexicon,
    sorted_terms,
)
from reader.search.segments.merging import (
    merge_small_by_whoosh,
    merge_small_segments,
    whoosh_merges,
)
from reader.search.segments.parallel import (
    Cancelled,
    Prepare,
    ProcessSegmentBuilder,
    SegmentBuilder,
    Standby,
    parallel_rebuild,
)
from reader.search.segments.writer import BulkWriter, bulk_codec

__all__ = [
    "BulkWriter", "Cancelled", "Prepare", "ProcessSegmentBuilder", "Standby", "SegmentBuilder", "bulk_codec", "byte_length",
    "cached_lexicon", "doc_frequency", "fast_path_enabled", "length_bytes", "merge_small_by_whoosh",
    "merge_small_segments", "parallel_rebuild", "postings", "postings_at", "segment_lexicon", "sorted_terms",
    "whoosh_merges",
]

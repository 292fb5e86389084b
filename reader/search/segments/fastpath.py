"""Whether the Whoosh fast path may run: the bulk writer (writer.py, parallel.py) and the raw
segment reads (rawread.py) use whoosh-reloaded 2.7.5's private structures; on another Whoosh,
or when a tiny build-and-read-back check disagrees with Whoosh's public API, the index is
built and read through the public API instead (slower, the same results), with one log line.

`READER_FAST_PATH=0` in the environment forces the public API (read here only, once per
process; the CI runs the search tests both ways, tests/search/test_fastpath.py).
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from typing import Any

import whoosh
from whoosh.codec.whoosh3 import W3LeafMatcher, W3PerDocReader, W3PerDocWriter
from whoosh.fields import NUMERIC
from whoosh.filedb.filestore import FileStorage, RamStorage
from whoosh.filedb.filetables import OrderedHashWriter
from whoosh.index import FileIndex
from whoosh.reading import SegmentReader
from whoosh.util.numeric import length_to_byte
from whoosh.writing import CLEAR, SegmentWriter

from reader.search.documents import doc_fields
from reader.search.schema import BIGRAM_SUFFIX, build_schema
from reader.search.segments import rawread
from reader.search.segments.writer import UNINDEXED, BulkWriter, bulk_codec

logger = logging.getLogger(__name__)

ENV = "READER_FAST_PATH"
WHOOSH_VERSION = "2.7.5"  # the version the fast path was written against
# The private methods the fast path calls (attributes set in __init__ are checked by the
# round trip, which would fail without them).
PRIVATE = (
    (SegmentWriter, ("_check_state", "_finalize_segment", "_close_segment", "_commit_toc",
                     "_finish")),
    (W3PerDocWriter, ("_get_column", "_create_column", "_has_column")),
    (W3PerDocReader, ("_cached_reader",)),
    (W3LeafMatcher, ("_read_ids", "_read_weights", "_next_block")),
    (FileIndex, ("_read_toc",)),
    (OrderedHashWriter, ("add",)),
)
_OFF = {"0", "off", "no", "false"}

_state: bool | None = None
_lock = threading.Lock()


def enabled() -> bool:
    """True if the fast path runs in this process (decided, and logged if not, once)."""
    global _state
    if _state is None:
        with _lock:
            if _state is None:
                _state = _decide()
    return _state


def reset() -> None:
    """Forget the decision (tests switch the environment variable)."""
    global _state
    with _lock:
        _state = None


def _decide() -> bool:
    if os.environ.get(ENV, "1").strip().lower() in _OFF:
        logger.info("Whoosh fast path off (%s=0): the index is built and read through "
                    "Whoosh's public API", ENV)
        return False
    problem = probe()
    if problem is not None:
        logger.warning("Whoosh fast path off: %s; the index is built and read through Whoosh's "
                       "public API (slower, the same results)", problem)
        return False
    return True


def probe() -> str | None:
    """None if the fast path fits the Whoosh installed, else why not (one line)."""
    version = ".".join(map(str, whoosh.__version__[:3]))
    if version != WHOOSH_VERSION:
        return f"whoosh {version} is installed, the fast path was written for {WHOOSH_VERSION}"
    missing = [f"{cls.__name__}.{name}" for cls, names in PRIVATE for name in names
               if not hasattr(cls, name)]
    if missing:
        return f"whoosh lacks {', '.join(missing)}"
    try:
        return round_trip()
    except Exception as e:  # any failure of the private structures means: not this format
        return f"the fast path's self-check failed ({type(e).__name__}: {e})"


_SAMPLE: list[dict[str, Any]] = [
    {"id": "probe1", "title": "Sparse attention for sparse models",
     "abstract": "Attention maps are sparse; sparse attention is fast. Zürich models attention.",
     "venue": "ICML", "year": 2024, "authors": "Ann Lee; José Müller", "tags": ["deep learning"]},
    {"id": "probe2", "title": "Graph connectivity", "abstract": "Mode connectivity of graph minima.",
     "venue": "NeurIPS", "year": 2019, "starred": True},
    {"id": "probe3", "title": "", "abstract": "Sparse graph attention " * 40, "note": "to read"},
]


class _RamStorage(RamStorage):
    """RamStorage whose writers spill into a folder of this check's own: Whoosh names its
    spill folder after the index ("MAIN.tmp") in the system temp folder, so two processes
    checking at once shared it and the first to finish deleted it under the other (whose fast
    path then went off); and it never removes the folder, so each start left one behind."""

    def __init__(self, spill: str) -> None:
        super().__init__()
        self._spill = spill

    def temp_storage(self, name=None):
        path = tempfile.mkdtemp(suffix=".tmp", dir=self._spill)
        return FileStorage(path).create()


def round_trip() -> str | None:
    """Build a three-paper segment with BulkWriter and one with Whoosh's writer, and read
    both raw and through the public API: the same terms, frequencies, postings and length
    bytes, or the reason they differ."""
    # In memory: files cost ~2 ms each to create on a busy disk, and a commit makes dozens.
    with tempfile.TemporaryDirectory(prefix="reader-selfcheck-") as spill:
        bulk = _RamStorage(spill).create_index(build_schema())
        w = BulkWriter(bulk, codec=bulk_codec())
        for d in _SAMPLE:
            w.add_document(**doc_fields(d))
        w.commit(mergetype=CLEAR)
        public = _RamStorage(spill).create_index(build_schema())
        with public.writer() as pw:  # Whoosh's own writer, compressed blocks (like updates)
            for d in _SAMPLE:
                pw.add_document(**doc_fields(d))
        with bulk.reader() as rb, public.reader() as rp:
            return _compare(_leaf(rb), _leaf(rp))


def _leaf(reader) -> SegmentReader:
    leaves = [leaf for leaf, _ in reader.leaf_readers()]
    if len(leaves) != 1 or not isinstance(leaves[0], SegmentReader):
        raise rawread.RawReadError("expected one segment")
    return leaves[0]


def _compare(bulk: SegmentReader, public: SegmentReader) -> str | None:
    for fieldname in bulk.schema.names():
        field = bulk.schema[fieldname]
        if not field.indexed or isinstance(field, NUMERIC) or fieldname.endswith(BIGRAM_SUFFIX) \
                or fieldname in UNINDEXED:
            continue  # raw reads are for words; word pairs are chosen apart by design, ids found by column (writer.py)
        seen = _public_view(bulk, fieldname)
        if seen != _public_view(public, fieldname):
            return f"the bulk writer's {fieldname!r} postings differ from Whoosh's"
        for leaf in (bulk, public):
            if _raw_view(leaf, fieldname) != seen:
                return f"raw reads of {fieldname!r} differ from Whoosh's public API"
    return None


def _public_view(leaf, fieldname: str) -> tuple:
    """A field as Whoosh's public API reads it: terms, postings, length bytes."""
    terms = []
    for btext, info in leaf.iter_field(fieldname):
        m = leaf.postings(fieldname, btext)
        posts = []
        while m.is_active():
            posts.append((m.id(), m.weight()))
            m.next()
        terms.append((btext.decode("utf-8"), info.doc_frequency(), tuple(posts)))
    lengths = bytes(length_to_byte(leaf.doc_field_length(i, fieldname, 0) or 0)
                    for i in range(leaf.doc_count_all()))
    return tuple(terms), lengths if leaf.schema[fieldname].scorable else b""


def _raw_view(leaf, fieldname: str) -> tuple:
    terms = []
    for term, (df, offset, length) in rawread.lexicon(leaf, fieldname).items():
        if offset < 0:  # inlined in the terms table
            posts = list(zip(*rawread.inlined_at(leaf, offset, length), strict=True))
        else:
            posts = list(zip(*rawread.postings_at(leaf, offset, length), strict=True))
        terms.append((term, df, tuple(posts)))
    lengths = rawread.length_bytes(leaf, fieldname) if leaf.schema[fieldname].scorable else b""
    return tuple(terms), lengths

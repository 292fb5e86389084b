"""A Whoosh SegmentWriter tuned for one-shot bulk builds of the Reader schema."""

from __future__ import annotations

import struct
import zlib
from array import array
from collections import Counter, _count_elements, defaultdict, deque  # type: ignore[attr-defined]
from collections.abc import Iterable, Sequence
from functools import partial
from io import BytesIO
from itertools import chain, islice, repeat
from operator import and_, itemgetter, lt, or_, rshift, sub
from pickle import Pickler
from zlib import crc32

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, WHOOSH3_HEADER_MAGIC, W3Codec, _lenfield
from whoosh.system import pack_int, pack_long, pack_ushort
from whoosh.util.numeric import length_to_byte
from whoosh.writing import SegmentWriter

from reader.search.schema import (
    PAIR_BUCKETS,
    PAIR_SAMPLE_DOCS,
    PAIR_SAMPLE_MIN_DF,
    FastText,
    FastWords,
    analyze,
    bigrams,
    bucket_term,
    similarity_words,
)

# Compression, chosen for disk: the index must stay smaller than the database it derives
# from. Stored fields (the abstract, mostly) at deflate level 1 (6 since small_compress) and posting blocks at level 3
# took a 5k-paper index from 39.8 MB to 25.5 MB (stored 6.3 -> 3.4, postings 25.1 -> 13.7),
# for ~10 µs per document at build time; reads decompress a block or a document at a time.
STORED_LEVEL = 6
POSTINGS_LEVEL = 3
# Posting blocks below this many pickled bytes are written uncompressed (each block says
# whether it is, so Whoosh and rawread read both): deflate gains nothing on them (a term in
# one document pickles to ~20 bytes, ~28 deflated) and costs ~2 µs a call, at 100k papers
# millions of calls; a block is kept compressed only when that is smaller.
COMPRESS_MIN = 128


# zlib's window and hash table sized for what is compressed here, a posting block or one
# document's stored fields (a few kB): zlib.compress sets up ~256 kB of state per call, which
# cost ~60 µs a block, several times the compression itself. Same format (zlib.decompress,
# Whoosh's and rawread's reader, reads it) and, under 8 kB, the same size. Stored fields went
# from level 1 to 6 with it: 2.6% smaller (12.7k abstracts: 0.540 -> 0.526 of their pickles),
# at less than half the old level 1's cost per document (45 against 101 µs, load ~15).
_WBITS, _MEMLEVEL = 13, 4


def small_compress(data: bytes, level: int) -> bytes:
    """zlib.compress(data, level) for a few kB: the same kind of stream, set up cheaply."""
    c = zlib.compressobj(level, zlib.DEFLATED, _WBITS, _MEMLEVEL)
    return c.compress(data) + c.flush()


def _deflated(data: bytes, level: int) -> tuple[bytes, int]:
    """A posting block's data and the compression level its header records (0: none)."""
    if level and len(data) >= COMPRESS_MIN:
        packed = small_compress(data, level)
        if len(packed) < len(data):
            return packed, level
    return data, 0


def bulk_codec() -> W3Codec:
    """The codec rebuilds and bulk imports write with (updates use Whoosh's default, level 3)."""
    return W3Codec(compression=POSTINGS_LEVEL)
# Field length -> Whoosh's length byte for the usual lengths (length_to_byte bisects per call).
_LENGTHS_CACHED = 4096
_LENGTH_BYTE = bytes(map(length_to_byte, range(_LENGTHS_CACHED)))
_TERMINFO = struct.Struct("!BfIBBfII")  # W3TermInfo's header
_FMAX = repeat(255)  # frequencies are kept in 8 bits (a word 255+ times in one field: capped)
_EIGHT = repeat(8)
_LOW = repeat(255)
_LENGTHS = struct.Struct("!II")  # HashWriter's key/value lengths
# Postings are pickled with protocol 3, which Whoosh's readers (pickle.loads) read like its
# own protocol 2: protocol 2 writes bytes (the frequencies) as a call to codecs.encode, ~40
# bytes more per block or inlined posting. The 12.7k CSV's index: 50.3 MB; with one-document
# terms inlined (write_inline) 48.6 MB; and protocol 3, 41.6 MB.
_PICKLE = 3
_UINT = struct.Struct("!I")  # a frequency as Whoosh's formats encode it (pack_uint)
# Terms in up to this many documents keep their postings in the terms table (write_inline):
# a block in the postings file costs ~50 bytes more (its header, its own info pickle and a
# 12-byte pointer) and a second pickle to write. One-document terms were inlined first;
# with two to four, a 100k index is ~N MB smaller (most rare words, names and pairs).
INLINE_MAX = 4
_ONES = [struct.pack(f"!{k}I", *([1] * k)) for k in range(129)]  # k frequencies of 1


class _Pickles:
    """pickle.dumps(obj, protocol) without the memo: the same objects come back from
    pickle.loads (Whoosh's readers and rawread), without a 2-byte PUT after every tuple and
    bytes value, which nothing refers back to (a posting block's or an inlined term's tuples
    are distinct objects). The 12.7k CSV's inlined postings: 3.29 -> 2.49 MB of a 32 MB
    segment. One per writer (a Pickler is not shared between threads)."""

    def __init__(self, protocol: int) -> None:
        self._buf = BytesIO()
        self._pickler = Pickler(self._buf, protocol)
        self._pickler.fast = True  # no memo: no PUT opcodes
        self.count = 0  # objects pickled (counted for tests)

    def __call__(self, obj: object) -> bytes:
        buf = self._buf
        buf.seek(0)
        buf.truncate()
        self._pickler.dump(obj)
        self.count += 1
        return buf.getvalue()


def _ones(k: int) -> bytes:
    return _ONES[k] if k < len(_ONES) else struct.pack(f"!{k}I", *([1] * k))


# A term's postings: docnum << 8 | freq (pair fields: docnum) as C ints, 4 bytes each; a
# list of int objects took ~9x the memory and its appends were ~25% slower.
_postings = partial(array, "I")
_append = array.append


# Fields a bulk build stores and keeps as a column but writes no terms for: a paper's id,
# one term per document (~108 bytes each in the terms table, ~4% of a segment), only ever
# looked up to find a paper's document, which the id column does (paper_ids.document_numbers).
# Whoosh's own writer (updates) still writes them; nothing reads them.
UNINDEXED = frozenset({"id"})

_ANALYSED_HELD = 10_000  # distinct venue and year values remembered by a BulkWriter


def _consume(it) -> None:
    deque(it, maxlen=0)


class BulkWriter(SegmentWriter):
    """SegmentWriter with an in-memory term pool, a lean add_document and a block-at-a-time
    postings writer (Whoosh's writes and re-reads every posting one by one).

    Only for new segments built from scratch (rebuild); the Reader schema has no term
    vectors and no spelling fields, which this writer relies on. The files it writes are
    byte-compatible with Whoosh's W3 codec (tests compare searches with Whoosh's writer).
    """

    def __init__(self, ix, **kwargs) -> None:
        super().__init__(ix, **kwargs)
        self.pool.cleanup()  # the default pool's temp files: unused
        # fieldname -> term (str for Fast* fields, else bytes) -> postings (array of docnum << 8 | freq)
        self._terms: dict[str, defaultdict] = {}
        # Encoded posting values of fields whose format has no fixed size (positions).
        self._values: dict[str, dict[bytes, list[bytes]]] = {}
        self._lengths: dict[str, array] = {}  # field length byte per document
        self._totals: dict[str, int] = {}  # total field length
        # Pair fields: the first documents' pairs until the frequent ones are known.
        self._sample: dict[str, list[tuple[int, list[str]]]] = {}
        self._frequent: dict[str, set[str]] = {}
        self._plan: dict[str, tuple] = {}  # fieldname -> (field, indexed, scorable, stored, column)
        self._stored: list[dict] = []  # stored fields per document
        self._colvalues: dict[str, tuple] = {}  # fieldname -> (column, [(docnum, value)])
        # (fieldname, value) -> its postings from Whoosh's own analysis (fields without `terms`)
        self._analysed: dict[tuple[str, object], list] = {}
        self._doc: dict = {}  # the document being added

    def add_document(self, **fields) -> None:
        self._check_state()
        docnum = self.docnum
        plan = self._plan
        self._doc = fields
        stored: dict = {}
        columns: list = []
        for fieldname in sorted(fields):
            value = fields[fieldname]
            if value is None:
                continue
            how = plan.get(fieldname)
            if how is None:
                how = plan[fieldname] = self._plan_for(fieldname)
            field, indexed, scorable, keep, column = how
            if indexed:
                length = self._index_field(fieldname, field, value, docnum)
                if length and scorable:
                    # Length bytes are kept here and written as columns at flush
                    # (Whoosh writes each through its column writer, per document).
                    col = self._lengths.get(fieldname)
                    if col is None:
                        col = self._lengths[fieldname] = array("B")
                        self._totals[fieldname] = 0
                    i = docnum - self.docbase
                    if len(col) < i:
                        col.extend(bytes(i - len(col)))
                    col.append(_LENGTH_BYTE[length] if length < _LENGTHS_CACHED
                               else length_to_byte(length))
                    self._totals[fieldname] += length
            if keep:
                stored[fieldname] = value
            if column:
                columns.append((fieldname, column, field.to_column_value(value)))
        # Stored fields and column values are written at flush, like the lengths (Whoosh's
        # per-document writer costs several Python calls per value).
        self._stored.append(stored)
        for fieldname, column, cvalue in columns:
            vals = self._colvalues.get(fieldname)
            if vals is None:
                vals = self._colvalues[fieldname] = (column, [])
            vals[1].append((docnum, cvalue))
        self._added = True
        self.docnum += 1

    def _plan_for(self, fieldname: str) -> tuple:
        field = self.schema[fieldname]
        indexed = field.indexed and fieldname not in UNINDEXED
        return field, indexed, field.scorable, field.stored, field.column_type

    def _index_field(self, fieldname: str, field, value, docnum: int) -> int:
        terms = self._terms.get(fieldname)
        if terms is None:
            terms = self._terms[fieldname] = defaultdict(_postings)
        if hasattr(field, "terms") and isinstance(value, str):
            if field.pairs:
                return self._index_pairs(fieldname, field, value, docnum)
            counts: dict[str, int]
            if isinstance(field, FastText):  # FastText.terms without Counter's Python layer
                words = self._similarity_words(value) if type(field) is FastWords else field.analysis(value)
                counts = {}
                _count_elements(counts, words)
                length = len(words)
            else:
                counts = field.terms(value)
                length = sum(counts.values())
            # Postings are docnum<<8|freq; appended by C-level map calls (no Python loop
            # per posting, which was most of the indexing time).
            freqs: Iterable[int] = counts.values()
            if length > 255 and max(freqs) > 255:
                freqs = map(min, freqs, _FMAX)
            _consume(map(_append, map(terms.__getitem__, counts),
                         map(or_, repeat(docnum << 8), freqs)))
            return length
        fixed = field.format.fixed_value_size()
        values = None
        if fixed is None or fixed < 0:
            values = self._values.setdefault(fieldname, {})
        length = 0
        # Whoosh's analysis (venue, year) costs ~20 µs a value; papers share few of them.
        key = (fieldname, value)
        try:
            postings = self._analysed.get(key)
            held = True
        except TypeError:  # a value that is not hashable
            postings, held = None, False
        if postings is None:
            postings = list(field.index(value))
            if held:
                if len(self._analysed) >= _ANALYSED_HELD:
                    self._analysed.clear()
                self._analysed[key] = postings
        for tbytes, freq, _weight, vbytes in postings:
            terms[tbytes].append(docnum << 8 | min(freq, 255))
            if values is not None:
                values.setdefault(tbytes, []).append(vbytes)
            length += freq
        return length

    def _similarity_words(self, value: str) -> list[str]:
        """similarity_words(value) for the `words` field. It is the title and the abstract
        (documents.doc_fields), whose words were just split for their own fields: the
        words of "title abstract" are the title's then the abstract's (a space ends a
        word), so the abstract is not lowercased and split a third time."""
        doc = self._doc
        title, abstract = doc.get("title"), doc.get("abstract") or ""
        if type(title) is str and type(abstract) is str and len(value) == len(title) + 1 + len(abstract) \
                and value == f"{title} {abstract}":
            return similarity_words(title) + similarity_words(abstract)
        return similarity_words(value)

    def _index_pairs(self, fieldname: str, field, value: str, docnum: int) -> int:
        pairs = bigrams(analyze(value, field.stemmed))
        frequent = self._frequent.get(fieldname)
        if frequent is None:
            sample = self._sample.setdefault(fieldname, [])
            sample.append((docnum, pairs))
            if len(sample) >= PAIR_SAMPLE_DOCS:
                self._decide_pairs(fieldname)
            return len(pairs)
        self._add_pairs(self._terms[fieldname], frequent, docnum, pairs)
        return len(pairs)

    def _decide_pairs(self, fieldname: str) -> None:
        """Choose the sampled pairs that get their own term, then index the sample."""
        sample = self._sample.pop(fieldname, [])
        df = Counter(chain.from_iterable(set(p) for _, p in sample))
        frequent = self._frequent[fieldname] = {p for p, n in df.items()
                                                if n >= PAIR_SAMPLE_MIN_DF}
        terms = self._terms[fieldname]
        for docnum, pairs in sample:
            self._add_pairs(terms, frequent, docnum, pairs)

    @staticmethod
    def _add_pairs(terms: defaultdict, frequent: set[str], docnum: int, pairs: list[str]) -> None:
        # Pairs are indexed with frequency 1 (presence): cheaper, and phrase ranking
        # hardly needs more, so their postings are bare document numbers. Bucket numbers
        # are computed at C level (crc32 of UTF-8).
        rare = set(pairs)  # set operations: no Python-level call per pair
        exact = rare & frequent
        rare -= frequent
        hashed = set(map(and_, map(crc32, map(str.encode, rare)), repeat(PAIR_BUCKETS - 1)))
        one = repeat(docnum)
        _consume(map(_append, map(terms.__getitem__, exact), one))
        _consume(map(_append, map(terms.__getitem__, hashed), one))

    def _write_perdoc(self) -> None:
        """What W3PerDocWriter would have written document by document: stored fields,
        column values and the length columns and totals (a length column's bytes end at
        its last non-zero one: zero is the default)."""
        pdw = self.perdocwriter
        pdw._doccount = self.docnum - self.docbase
        stored = pdw._get_column("_stored")  # pickles, then deflates (CompressedBytesColumn)
        stored._child._level = STORED_LEVEL
        stored._child._compress = small_compress
        add = stored.add
        for docnum, stored in enumerate(self._stored, self.docbase):
            if stored:
                add(docnum, stored)
        self._stored = []
        for fieldname, (column, values) in self._colvalues.items():
            if not pdw._has_column(fieldname):
                pdw._create_column(fieldname, column)
            add = pdw._get_column(fieldname).add
            for docnum, value in values:
                add(docnum, value)
        self._colvalues = {}
        for fieldname, col in self._lengths.items():
            name = _lenfield(fieldname)
            pdw._create_column(name, LENGTHS_COLUMN)
            writer = pdw._get_column(name)
            data = col.tobytes().rstrip(b"\0")
            writer._dbfile.write(data)
            writer._count = len(data)
            pdw._fieldlengths[fieldname] += self._totals[fieldname]

    def _flush_segment(self) -> None:
        for fieldname in list(self._sample):
            self._decide_pairs(fieldname)
        self._write_perdoc()
        self.perdocwriter.close()
        fw = self.fieldwriter
        codec = self.codec
        blocklimit = codec._blocklimit
        comp = codec._compression
        fieldmap = fw._fieldmap
        for fieldname in sorted(self._terms):
            terms = self._terms.pop(fieldname)  # free memory as we go
            field = self.schema[fieldname]
            fieldmap[fieldname] = fid = len(fieldmap)
            prefix = pack_ushort(fid)
            lengths = None
            if field.scorable and fieldname in self._lengths:  # length bytes per document
                lengths = self._lengths[fieldname]
            values = self._values.get(fieldname, {})
            if getattr(field, "pairs", False):  # bucket numbers -> their terms
                for n in [t for t in terms if type(t) is int]:
                    terms[bucket_term(n)] = terms.pop(n)
            writer = _PostingsWriter(fw._postfile, field, lengths, blocklimit, comp)
            write, inline, block = writer.write, writer.write_inline, writer.write_block
            order = sorted(terms)
            postings = list(map(terms.__getitem__, order))
            del terms
            btexts = [t.encode("utf-8") if type(t) is str else t for t in order]
            keys = list(map(prefix.__add__, btexts))
            infos: list[bytes]
            if values:  # postings with values of their own (venue's positions)
                infos = [write(list(map(rshift, p, _EIGHT)), list(map(and_, p, _LOW)),
                               values.get(b)) for p, b in zip(postings, btexts, strict=True)]
            elif getattr(field, "pairs", False):  # postings: docnums (frequency 1)
                infos = [inline([d << 8 | 1 for d in p]) if len(p) <= INLINE_MAX else
                         block(p, None) if len(p) <= blocklimit else write(p, None, None)
                         for p in postings]
            else:  # most terms are in a few documents; most others fit one block
                infos = [inline(p) if len(p) <= INLINE_MAX else
                         block(list(map(rshift, p, _EIGHT)), list(map(and_, p, _LOW)))
                         if len(p) <= blocklimit else
                         write(list(map(rshift, p, _EIGHT)), list(map(and_, p, _LOW)), None)
                         for p in postings]
            del postings
            writer.flush()
            _add_ordered(fw._tindex, keys, infos)
        fw.close()


def _block_weights(freqs: Sequence[int], boost: float) -> tuple[float, float | tuple[float, ...] | None]:
    """A block's top weight and its weights as Whoosh stores them: None when all are 1, one
    number when all are equal, else one per posting."""
    top, low = max(freqs), min(freqs)
    bmaxw = top * boost
    if low == top:
        return bmaxw, None if bmaxw == 1.0 else bmaxw
    return bmaxw, tuple([f * boost for f in freqs])


class _PostingsWriter:
    """Writes one field's posting lists in W3 format, a block (up to 128 postings) at a time.

    Postings are buffered and written by flush() in one call; offsets are counted here."""

    def __init__(self, postfile, field, lengths: array | None, blocklimit: int,
                 compression: int) -> None:
        self.postfile = postfile
        self.boost = float(field.format.field_boost)
        self.fixed = field.format.fixed_value_size()
        self.lengths = lengths
        self.blocklimit = blocklimit
        self.comp = compression
        self.pos = postfile.tell()
        self.parts: list[bytes] = []
        self.dumps = _Pickles(_PICKLE)  # postings: inlined and in blocks
        self.dumps_info = _Pickles(2)  # a block's info, as Whoosh's writer pickles it

    def flush(self) -> None:
        self.postfile.write(b"".join(self.parts))
        self.parts = []

    def _emit(self, buf: bytes) -> int:
        offset = self.pos
        self.parts.append(buf)
        self.pos += len(buf)
        return offset

    def write_inline(self, packed: Sequence[int]) -> bytes:
        """The term info of a term in a few documents (docnum << 8 | freq each, at most
        INLINE_MAX), its postings inlined (most terms: ids, rare words and pairs).

        W3's term info can carry its postings itself, as (ids, weights, values) pickled:
        Whoosh reads them back (W3Codec.postings_reader) but never writes them (its writer
        inlines below `inlinelimit`=1 postings, i.e. never). A block in the postings file
        cost ~50 bytes more with its 12-byte pointer."""
        if len(packed) == 1:  # the commonest case (a third of all terms)
            d, f = packed[0] >> 8, packed[0] & 255
            w = f * self.boost
            lengths = self.lengths
            # Callers exclude formats of other sizes. An empty value is kept (Whoosh's writer
            # would drop it): a merge copies each posting's value and asserts it is bytes.
            vals: tuple[bytes, ...] = (b"",) if self.fixed == 0 else (_UINT.pack(f),)
            lb = lengths[d] if lengths is not None and d < len(lengths) else 0
            return _TERMINFO.pack(1, w, 1, lb, lb, max(0.0, w), d, d) + self.dumps(((d,), (float(w),), vals))
        ids = tuple(map(rshift, packed, _EIGHT))
        freqs = list(map(and_, packed, _LOW))
        boost = self.boost
        weights = tuple([f * boost for f in freqs])  # floats, as Whoosh's writer keeps them
        vals = (b"",) * len(ids) if self.fixed == 0 else tuple(map(_UINT.pack, freqs))
        bmin = bmax = 0
        if self.lengths is not None:
            nz = _nonzero(_block_lengths(self.lengths, ids))
            if nz:
                bmin, bmax = min(nz), max(nz)
        return (_TERMINFO.pack(1, sum(freqs) * boost, len(ids), bmin, bmax, max(0.0, max(weights)), ids[0], ids[-1])
                + self.dumps((ids, weights, vals)))

    def write(self, docs: Sequence[int], freqs: Sequence[int] | None,
              values: list[bytes] | None) -> bytes:
        """Write a term's postings; returns its encoded W3TermInfo. `freqs` None: all 1.

        Lengths are handled as Whoosh's length bytes throughout: byte_to_length is
        increasing and length_to_byte inverts it, so the minimum and maximum bytes are
        the bytes of the minimum and maximum lengths."""
        n = len(docs)
        if n <= self.blocklimit and not self.comp and self.fixed in (0, 4):
            return self.write_block(docs, freqs)  # the common case
        boost, fixed, lengths, comp = self.boost, self.fixed, self.lengths, self.comp
        parts = [WHOOSH3_HEADER_MAGIC]
        minlen: int | None = None
        maxlen = 0
        maxw = 0.0
        for start in range(0, n, self.blocklimit):
            end = min(n, start + self.blocklimit)
            ids = docs[start:end]
            k = end - start
            dids = (ids[0], *map(sub, ids[1:], ids))
            vals: bytes | tuple[bytes, ...] | None
            weights: float | tuple[float, ...] | None
            if freqs is None:
                bmaxw = boost
                weights = None if bmaxw == 1.0 else bmaxw
                vals = None if fixed == 0 else _ones(k) if fixed == 4 else ()
            else:
                fr = freqs[start:end]
                bmaxw, weights = _block_weights(fr, boost)
                if fixed == 0:
                    vals = None
                elif fixed == 4:
                    vals = struct.pack(f"!{k}I", *fr)
                else:
                    vals = tuple(values[start:end]) if values else ()
            data, bcomp = _deflated(self.dumps((dids, weights, vals)), comp)
            bmin = bmax = 0
            if lengths is not None:
                nz = _nonzero(_block_lengths(lengths, ids))
                if nz:
                    bmin, bmax = min(nz), max(nz)
                    minlen = bmin if minlen is None else min(minlen, bmin)
                    maxlen = max(maxlen, bmax)
            maxw = max(maxw, bmaxw)
            info = self.dumps_info((k, ids[-1], bmaxw, bcomp, bmin, bmax))
            size = len(info) + len(data)
            parts.append(pack_int(-size if end == n else size))
            parts.append(info)
            parts.append(data)
        buf = b"".join(parts)
        head = _TERMINFO.pack(0, (n if freqs is None else sum(freqs)) * boost, n,
                              minlen or 0, maxlen, maxw, docs[0], docs[-1])
        return head + pack_long(self._emit(buf)) + pack_int(len(buf))

    def write_block(self, ids: Sequence[int], freqs: Sequence[int] | None) -> bytes:
        """write() for postings that fit one uncompressed block (most terms): the same bytes.
        Other fields and compressed blocks go through write()."""
        if self.comp or self.fixed not in (0, 4):
            return self.write(ids, freqs, None)
        boost, fixed, lengths = self.boost, self.fixed, self.lengths
        k = len(ids)
        dids = (ids[0], *map(sub, ids[1:], ids))
        vals: bytes | None
        weights: float | tuple[float, ...] | None
        if freqs is None:
            bmaxw = boost
            weights = None if bmaxw == 1.0 else bmaxw
            vals = None if fixed == 0 else _ones(k)
            total = k * boost
        else:
            bmaxw, weights = _block_weights(freqs, boost)
            vals = None if fixed == 0 else struct.pack(f"!{k}I", *freqs)
            total = sum(freqs) * boost
        data = self.dumps((dids, weights, vals))
        bmin = bmax = 0
        if lengths is not None:
            nz = _nonzero(_block_lengths(lengths, ids))
            if nz:
                bmin, bmax = min(nz), max(nz)
        info = self.dumps_info((k, ids[-1], bmaxw, 0, bmin, bmax))
        size = len(info) + len(data)
        buf = b"".join((WHOOSH3_HEADER_MAGIC, pack_int(-size), info, data))
        head = _TERMINFO.pack(0, total, k, bmin, bmax, max(0.0, bmaxw), ids[0], ids[-1])
        return head + pack_long(self._emit(buf)) + pack_int(len(buf))


def _block_lengths(lengths: array, ids: Sequence[int]) -> tuple[int, ...]:
    """The length bytes of documents `ids` (0 past the end of the column)."""
    if ids[-1] < len(lengths):
        return itemgetter(*ids)(lengths) if len(ids) > 1 else (lengths[ids[0]],)
    return tuple(lengths[d] if d < len(lengths) else 0 for d in ids)


def _nonzero(bl: tuple[int, ...]) -> tuple[int, ...] | list[int]:
    return [x for x in bl if x] if 0 in bl else bl


def _add_ordered(hw, keys: list[bytes], values: list[bytes]) -> None:
    """OrderedHashWriter.add for many keys (in increasing order) in one file write."""
    if not keys:
        return
    if keys[0] <= hw.lastkey or not all(map(lt, keys, islice(keys, 1, None))):
        raise ValueError("keys must increase")
    dbfile = hw.dbfile
    pos = dbfile.tell()
    index = hw.index
    buckets = hw.buckets
    hashfn = hw.hashfn
    parts: list[bytes] = []
    for key, value in zip(keys, values, strict=True):
        index.append(pos)
        h = hashfn(key)
        buckets[h & 255].append((h, pos))
        parts += (_LENGTHS.pack(len(key), len(value)), key, value)
        pos += 8 + len(key) + len(value)
    dbfile.write(b"".join(parts))
    hw.lastkey = keys[-1]

"""A Whoosh SegmentWriter tuned for one-shot bulk builds of the Reader schema."""

from __future__ import annotations

from array import array
from collections.abc import Iterator

from whoosh.util.numeric import byte_to_length, length_to_byte
from whoosh.writing import SegmentWriter


class _Lengths:
    """Stands in for the per-document reader that Whoosh re-reads field lengths from.

    Whoosh looks up each posting's document length with a seek+read on the length column
    (about a fifth of a bulk build); here it is a list lookup of the same rounded value.
    """

    def __init__(self, lengths: dict[str, array]) -> None:
        self._lengths = lengths

    def doc_field_length(self, docnum: int, fieldname: str, default: int = 0) -> int:
        col = self._lengths.get(fieldname)
        if col is None or docnum >= len(col):
            return default
        return col[docnum] or default

    def close(self) -> None:
        pass


class _TermPool:
    """In-memory postings grouped by term, replacing Whoosh's external-sort pool.

    Documents arrive in docnum order, so each term's postings are already sorted and only
    the distinct terms need sorting at commit (not millions of posting tuples). Postings are
    kept compactly (~25 bytes each: docnum, weight, encoded positions).
    """

    def __init__(self) -> None:
        self.fieldnames: set[str] = set()
        # fieldname -> term bytes -> (docnums, weights, concatenated values, value ends)
        self.fields: dict[str, dict[bytes, tuple[array, array, bytearray, array]]] = {}

    def add(self, item: tuple) -> None:
        fieldname, tbytes, docnum, weight, vbytes = item
        terms = self.fields.get(fieldname)
        if terms is None:
            self.fieldnames.add(fieldname)
            terms = self.fields[fieldname] = {}
        e = terms.get(tbytes)
        if e is None:
            e = terms[tbytes] = (array("i"), array("f"), bytearray(), array("I"))
        e[0].append(docnum)
        e[1].append(weight)
        if vbytes:
            e[2].extend(vbytes)
        e[3].append(len(e[2]))

    def iter_postings(self) -> Iterator[tuple[str, bytes, int, float, bytes]]:
        for fieldname in sorted(self.fields):
            terms = self.fields[fieldname]
            for tbytes in sorted(terms):
                docs, weights, values, ends = terms.pop(tbytes)  # free memory as we go
                start = 0
                for i, docnum in enumerate(docs):
                    end = ends[i]
                    yield fieldname, tbytes, docnum, weights[i], bytes(values[start:end])
                    start = end

    def cleanup(self) -> None:
        self.fields.clear()


class BulkWriter(SegmentWriter):
    """SegmentWriter with an in-memory term pool and a lean add_document.

    Only for new segments built from scratch (rebuild); the Reader schema has no term
    vectors and no spelling fields, which this add_document relies on.
    """

    def __init__(self, ix, **kwargs) -> None:
        super().__init__(ix, **kwargs)
        self.pool.cleanup()  # the default pool's temp files; replaced below
        self.pool = _TermPool()
        self._lengths: dict[str, array] = {}

    def add_document(self, **fields) -> None:
        self._check_state()
        schema = self.schema
        pdw = self.perdocwriter
        docnum = self.docnum
        pool_fields = self.pool.fields
        pdw.start_doc(docnum)
        try:
            for fieldname in sorted(fields):
                value = fields[fieldname]
                if value is None:
                    continue
                field = schema[fieldname]
                length = 0
                if field.indexed:
                    terms = pool_fields.get(fieldname)
                    if terms is None:
                        self.pool.fieldnames.add(fieldname)
                        terms = pool_fields[fieldname] = {}
                    scorable = field.scorable
                    for tbytes, freq, weight, vbytes in field.index(value):
                        e = terms.get(tbytes)
                        if e is None:
                            e = terms[tbytes] = (array("i"), array("f"), bytearray(), array("I"))
                        e[0].append(docnum)
                        e[1].append(weight)
                        if vbytes:
                            e[2].extend(vbytes)
                        e[3].append(len(e[2]))
                        if scorable:
                            length += freq
                    if length:
                        col = self._lengths.get(fieldname)
                        if col is None:
                            col = self._lengths[fieldname] = array("I")
                        i = docnum - self.docbase
                        if len(col) < i:
                            col.extend([0] * (i - len(col)))
                        col.append(byte_to_length(length_to_byte(length)))
                pdw.add_field(fieldname, field, value if field.stored else None, length)
                column = field.column_type
                if column:
                    pdw.add_column_value(fieldname, column, field.to_column_value(value))
        except Exception:
            pdw.cancel_doc()
            raise
        pdw.finish_doc()
        self._added = True
        self.docnum += 1

    def _flush_segment(self) -> None:
        self.perdocwriter.close()
        lengths = _Lengths(self._lengths) if self.codec.length_stats else None
        self.fieldwriter.add_postings(self.schema, lengths, self.pool.iter_postings())
        self.fieldwriter.close()

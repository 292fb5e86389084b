"""The bulk writer's posting pickles carry no memo (PUT opcodes nothing refers back to): the
same postings read back, fewer bytes on disk (issue 31, item 6)."""

from __future__ import annotations

import io
import pickle
import pickletools
import struct
import zlib
from array import array
from itertools import accumulate

from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC

from reader.search.schema import build_schema
from reader.search.segments.writer import _PostingsWriter

_MEMO = {"PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"}
_HEAD = struct.calcsize("!BfIBBfII")  # W3TermInfo's header before an inlined pickle


class _File(io.BytesIO):
    """A postings file as the writer uses it (tell, write)."""


def _opcodes(data: bytes) -> set[str]:
    return {op.name for op, _arg, _pos in pickletools.genops(data)}


def _writer(compression: int) -> _PostingsWriter:
    field = build_schema()["abstract"]
    lengths = array("B", [3] * 300)
    return _PostingsWriter(_File(), field, lengths, 128, compression)


def test_inlined_postings_are_pickled_without_memo() -> None:
    w = _writer(3)
    for packed in ([7 << 8 | 1], [2 << 8 | 1, 9 << 8 | 3, 250 << 8 | 2]):
        info = w.write_inline(packed)
        data = info[_HEAD:]
        assert not _opcodes(data) & _MEMO
        ids, weights, vals = pickle.loads(data)
        assert ids == tuple(p >> 8 for p in packed)
        assert weights == tuple(float(p & 255) for p in packed)
        assert vals == tuple(struct.pack("!I", p & 255) for p in packed)


def _blocks(buf: bytes) -> list[tuple[tuple, bytes, bytes]]:
    """(info, its pickle, posting data) of each block of one term's postings (W3 layout)."""
    assert buf[:4] == WHOOSH3_HEADER_MAGIC
    out = []
    pos = 4
    while pos < len(buf):
        (size,) = struct.unpack("!i", buf[pos:pos + 4])
        pos += 4
        block = buf[pos:pos + abs(size)]
        f = io.BytesIO(block)
        info = pickle.Unpickler(f).load()
        out.append((info, block[:f.tell()], block[f.tell():]))
        pos += abs(size)
        if size < 0:
            break
    return out


def test_posting_blocks_are_pickled_without_memo() -> None:
    """One block (most terms) and several (a common word), compressed or not: every block's
    info and postings pickled without memo, the same numbers read back."""
    for compression in (0, 3):
        for n in (6, 40, 300):
            w = _writer(compression)
            ids = list(range(0, n))
            freqs = [1 + i % 5 for i in ids]
            w.write(ids, freqs, None)
            got_ids: list[int] = []
            got_weights: list[float] = []
            for info, info_bytes, data in _blocks(b"".join(w.parts)):
                assert not _opcodes(info_bytes) & _MEMO
                if info[3]:  # the block's compression level
                    data = zlib.decompress(data)
                assert not _opcodes(data) & _MEMO
                dids, weights, vals = pickle.loads(data)
                got_ids.extend(accumulate(dids))  # the first id, then gaps
                k = len(dids)
                got_weights.extend([weights] * k if isinstance(weights, float) else weights or [1.0] * k)
                assert vals == struct.pack(f"!{k}I", *freqs[len(got_ids) - k:len(got_ids)])
            assert got_ids == ids
            assert got_weights == [float(f) for f in freqs]

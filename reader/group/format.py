"""The group files' format: a header line, then one JSON object per line per paper.

Every line of a member's files (snapshot or log) is a paper record:
`{"k":["3f2a…","9c01…"],"star":[12,1],"read":[13,1]}` — the paper's key hashes (best first:
DOI, arXiv id, OpenReview id, title + year, abstract) and, per field the record sets, the
member's sequence number and the value. A field's value is the one with the highest sequence
number, whichever file or line brought it, so reading a record twice or in another order
changes nothing. The header names the format version, the member and the library."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

FORMAT = 1  # the files' format version; a newer one is reported, not guessed at
HEADER_KEY = "reader-group"
FIELDS = ("star", "skip", "read", "tags", "note")
FLAG_FIELDS = ("star", "skip", "read")
MAX_LINE = 256 * 1024  # a longer line is skipped (reported): no record needs it
MAX_NOTE = 20_000  # characters of a note shared (a longer one is cut, with "…")
MAX_KEYS = 8
MAX_SEQ = (1 << 63) - 1  # SQLite's largest integer: a sequence number past it is a bad field
DEFAULTS: dict[str, Any] = {"star": 0, "skip": 0, "read": 0, "tags": [], "note": ""}


class BadLine(ValueError):
    """A line that is no record (the message says why)."""


@dataclass(frozen=True)
class Header:
    version: int
    name: str
    library: str
    gen: int


def header_line(name: str, library: str, gen: int) -> bytes:
    return _dump({HEADER_KEY: FORMAT, "name": name, "library": library, "gen": gen})


_HEX_KEYS = re.compile(r"[0-9a-f]{1,64}(?: [0-9a-f]{1,64})*")


def record_line(keys: list[str], fields: dict[str, tuple[int, Any]]) -> bytes:
    joined = " ".join(keys)
    if _HEX_KEYS.fullmatch(joined) and joined.count(" ") == len(keys) - 1:
        # The common record (key hashes, flags): written as json.dumps below would, without it.
        line = '{"k":["' + joined.replace(" ", '","') + '"]'
        for name in FIELDS:
            pair = fields.get(name)
            if pair is not None:
                seq, value = pair
                if type(seq) is not int or type(value) is not int:
                    break
                line += f',"{name}":[{seq},{value}]'
        else:
            return (line + "}\n").encode("ascii")
    obj: dict[str, Any] = {"k": keys}
    for name in FIELDS:
        if name in fields:
            seq, value = fields[name]
            obj[name] = [seq, value]
    return _dump(obj)


def _dump(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def parse_header(line: bytes) -> Header:
    try:
        obj = json.loads(line)
    except ValueError as exc:
        raise BadLine(f"not a group file header ({exc})") from None
    if not isinstance(obj, dict) or HEADER_KEY not in obj:
        raise BadLine("not a group file header")
    version = obj.get(HEADER_KEY)
    name, library, gen = obj.get("name"), obj.get("library"), obj.get("gen")
    if not isinstance(version, int) or not isinstance(name, str) or not isinstance(library, str) \
            or not isinstance(gen, int):
        raise BadLine("a group file header without its version, name, library or generation")
    return Header(version, name, library, gen)


def parse_record(line: bytes) -> tuple[list[str], dict[str, tuple[int, Any]]]:
    """(key hashes, {field: (seq, value)}); fields this version doesn't know are ignored."""
    try:
        obj = json.loads(line)
    except ValueError as exc:
        raise BadLine(f"not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise BadLine("not a record")
    keys = obj.get("k")
    if type(keys) is not list or not keys or len(keys) > MAX_KEYS or not all(
            type(k) is str and 0 < len(k) <= 64 and " " not in k for k in keys):
        raise BadLine("a record without its paper keys")
    if not _unicode(" ".join(keys)):
        raise BadLine("a paper key that is no Unicode text (a lone surrogate escape)")
    fields: dict[str, tuple[int, Any]] = {}
    for name in FIELDS:
        pair = obj.get(name)
        if pair is None:
            continue
        if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not int or not 0 < pair[0] <= MAX_SEQ:
            raise BadLine(f"a bad {name!r} field")
        value = pair[1]
        if name in FLAG_FIELDS and (value == 0 or value == 1) and type(value) is int:
            fields[name] = (pair[0], value)  # the common case, checked
        else:
            fields[name] = (pair[0], _value(name, value))
    return keys, fields


def _value(name: str, value: Any) -> Any:
    if name in FLAG_FIELDS:
        if value not in (0, 1) or isinstance(value, float):
            raise BadLine(f"a bad {name!r} value")
        return int(value)
    if name == "tags":
        if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
            raise BadLine("bad tags")
        if not _unicode("".join(value)):
            raise BadLine("a tag that is no Unicode text (a lone surrogate escape)")
        return sorted(set(value))
    if not isinstance(value, str):
        raise BadLine("a bad note")
    if not _unicode(value[:MAX_NOTE + 1]):
        raise BadLine("a note that is no Unicode text (a lone surrogate escape)")
    return value[:MAX_NOTE + 1]


def _unicode(text: str) -> bool:
    """Whether `text` can be stored (UTF-8): JSON's escapes can spell a lone surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True

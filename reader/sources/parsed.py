"""Parsed records of a fetched body, kept beside the response cache so a re-add skips the parse.

A PMLR volume or an ACL collection is BibTeX: reading 6,000 entries (LaTeX decoding above all)
costs seconds, every time the cached body is read. `ParsedCache` keeps what the parser made of a
body: `<library>/sources/parsed/<source>/<2 hex>/<digest>.json`, where the digest names the
parser's own code, the parse's arguments (URL, volume, venue, year) and the SHA-256 of the body,
so a changed body, a changed parser or other arguments never find an old file. Each file is one
JSON header line (version, digest, length and SHA-256 of the payload) and the payload (records
and problems as JSON). A file is used only when it is a regular file whose header names this
digest and whose payload has the recorded length and hash, and whose records read back; else it
is ignored and the body parsed again. Files are written atomically (a unique temporary name
beside them, then renamed), never over anything but a regular file. Derived data: deleting the
folder loses nothing."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from reader.derived_files import NotRegularFile, mark_used, read_regular, write_atomic
from reader.models import Record

log = logging.getLogger(__name__)

_VERSION = 1
MAX_PARSED = 512 * 1024 * 1024  # a file larger than this is not read
_FIELDS = frozenset(f.name for f in dataclasses.fields(Record))
# The code a parse depends on: any change to it makes every file of the cache stale.
_PARSER_MODULES = ("reader.models", "reader.importers.bibtex", "reader.importers.decode", "reader.text.latex",
                   "reader.sources.pmlr", "reader.sources.acl")

Parsed = tuple[list[Record], list[str]]  # the records and the problems (one line each)


@cache
def _code_digest() -> str:
    import importlib

    h = hashlib.sha256()
    for name in _PARSER_MODULES:
        path = getattr(importlib.import_module(name), "__file__", None)
        h.update(name.encode() + b"\0" + (Path(path).read_bytes() if path else b"") + b"\0")
    return h.hexdigest()


def digest(source: str, body: bytes, args: Sequence[object]) -> str:
    """The cache key of one parse: the parser's code, the source, the arguments and the body."""
    head = json.dumps([_VERSION, _code_digest(), source, [str(a) for a in args]], ensure_ascii=True)
    return hashlib.sha256(head.encode() + b"\0" + hashlib.sha256(body).digest()).hexdigest()


def _record(value: Any) -> Record:
    if not isinstance(value, dict) or not set(value) <= _FIELDS:
        raise ValueError("not a record")
    return Record(**value)


class ParsedCache:
    """The parsed-records folder of one library (`<library>/sources/parsed`)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, source: str, key: str) -> Path:
        return self.root / source / key[:2] / f"{key}.json"

    def parse(self, source: str, body: bytes, args: Sequence[object], parse: Callable[[], Parsed]) -> Parsed:
        """What `parse()` makes of `body`: from the cache when a good copy is there, else parsed
        and kept (a cache that cannot be written is logged, never raised)."""
        key = digest(source, body, args)
        found = self.get(source, key)
        if found is not None:
            return found
        records, problems = parse()
        self.put(source, key, records, problems)
        return records, problems

    def get(self, source: str, key: str) -> Parsed | None:
        path = self.path(source, key)
        data = read_regular(path, MAX_PARSED)
        if data is None:
            return None
        head, _, payload = data.partition(b"\n")
        try:
            meta = json.loads(head)
            if (not isinstance(meta, dict) or meta.get("version") != _VERSION or meta.get("digest") != key
                    or meta.get("length") != len(payload)
                    or meta.get("sha256") != hashlib.sha256(payload).hexdigest()):
                raise ValueError("header does not match")
            body = json.loads(payload)
            records = [_record(r) for r in body["records"]]
            problems = [str(p) for p in body["problems"]]
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("parsed records %s are damaged or not for this body (%s); parsing anew", path, exc)
            return None
        mark_used(path)  # pruning (reader.store.health) drops the least recently used first
        return records, problems

    def put(self, source: str, key: str, records: Sequence[Record], problems: Sequence[str]) -> None:
        path = self.path(source, key)
        payload = json.dumps({"records": [dataclasses.asdict(r) for r in records], "problems": list(problems)},
                             ensure_ascii=False).encode("utf-8")
        meta = {"version": _VERSION, "digest": key, "length": len(payload),
                "sha256": hashlib.sha256(payload).hexdigest()}
        try:
            write_atomic(path, (json.dumps(meta, ensure_ascii=True).encode() + b"\n", payload), ".json")
        except NotRegularFile:
            log.warning("%s is not a regular file; the parsed records are not kept", path)
        except (OSError, ValueError) as exc:
            log.warning("could not keep the parsed records of %s: %s", key, exc)

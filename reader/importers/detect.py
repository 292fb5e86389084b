"""Choose an importer from a file's content, using the extension only to break ties."""

from __future__ import annotations

import json
from pathlib import Path

from .arxiv import looks_like_arxiv_atom
from .bibtex import looks_like_bibtex
from .csvfmt import looks_like_csv
from .ris import looks_like_ris
from .seed import parse_header

JSONL_EXTENSIONS = (".jsonl", ".ndjson", ".jsonlines")
SEED_EXTENSIONS = ("", ".txt", ".text")
CSV_EXTENSIONS = (".csv", ".tsv")


def _first_line_is_object(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0]
    try:
        return isinstance(json.loads(first), dict)
    except json.JSONDecodeError:
        return False


def detect_format(path: str | Path, text: str) -> str:
    """'jsonl', 'json' (also backups), 'csv', 'ris', 'bibtex', 'seed' or 'unknown' for decoded text."""
    ext = Path(path).suffix.lower()
    start = text.lstrip()[:1]
    if start in ("{", "["):
        if ext in JSONL_EXTENSIONS:
            return "jsonl"
        if start == "[":
            return "json"
        # Several top-level objects, one per line, is JSON Lines whatever the extension says;
        # a whole-file parse fails fast with "Extra data" right after the first object.
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            if exc.msg == "Extra data" or (
                "\n" in text.strip() and _first_line_is_object(text)
            ):
                return "jsonl"
        return "json"
    if ext == ".json":
        return "json"
    if looks_like_arxiv_atom(text):
        return "arxiv"
    if ext == ".bib" or looks_like_bibtex(text):
        return "bibtex"
    if looks_like_ris(text):
        return "ris"
    if ext in CSV_EXTENSIONS or looks_like_csv(text):
        return "csv"
    # Plain text is only taken as seed abstracts from a text file or under a "VENUE YEAR" header,
    # so a stray README.md or script is refused instead of imported as junk papers.
    if ext in SEED_EXTENSIONS or parse_header(text.lstrip().split("\n", 1)[0])[0]:
        return "seed"
    return "unknown"

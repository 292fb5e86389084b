"""Parse paper files (seed text, JSON Lines, JSON, CSV, RIS, BibTeX, arXiv Atom, Reader backups) into ParseResults."""

from __future__ import annotations

from pathlib import Path

from reader.errors import InputFileError
from reader.models import ParseResult

from .arxiv import parse_arxiv_atom
from .bibtex import parse_bibtex
from .csvfmt import parse_csv
from .decode import read_text
from .detect import detect_format
from .jsonfmt import parse_json, parse_jsonl
from .ris import parse_ris
from .seed import parse_seed

__all__ = ["parse_file", "parse_text", "detect_format"]

_PARSERS = {"seed": parse_seed, "jsonl": parse_jsonl, "json": parse_json, "csv": parse_csv,
            "ris": parse_ris, "bibtex": parse_bibtex, "arxiv": parse_arxiv_atom}


def parse_text(text: str, path: str | Path, fmt: str | None = None) -> ParseResult:
    """Parse already-decoded text (LF line ends); `fmt` skips detection."""
    name = str(path)
    fmt = fmt or detect_format(name, text)
    if fmt == "unknown":
        raise InputFileError(
            name, "unrecognised format: expected seed text (.txt), JSON, JSON Lines, CSV, RIS, BibTeX or arXiv Atom XML")
    result = _PARSERS[fmt](text, name)
    if not result.records and not (result.format == "backup" and not result.problems):
        first = f" (first problem: {result.problems[0]})" if result.problems else ""
        raise InputFileError(name, f"no records found in this {fmt} file{first}")
    return result


def parse_file(path: str | Path) -> ParseResult:
    """Read and parse one file; InputFileError when nothing in it can be imported."""
    return parse_text(read_text(path), path)

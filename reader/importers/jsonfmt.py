"""JSON Lines and JSON (array, {"papers": [...]}, paperlists dumps) paper files."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reader.errors import InputFileError
from reader.models import ParseResult, Problem

from .backup import BACKUP_FORMAT, parse_backup
from .fields import record_from_mapping

# papercopilot paperlists dumps are named <conf><year>.json and carry neither venue nor year.
_PAPERLIST_NAME = re.compile(r"^([a-z]+)(\d{4})$")
_KNOWN_VENUES = {
    "nips": "NeurIPS", "neurips": "NeurIPS", "icml": "ICML", "iclr": "ICLR", "cvpr": "CVPR",
    "iccv": "ICCV", "eccv": "ECCV", "wacv": "WACV", "aaai": "AAAI", "ijcai": "IJCAI",
    "acl": "ACL", "emnlp": "EMNLP", "naacl": "NAACL", "coling": "COLING", "aistats": "AISTATS",
    "colt": "COLT", "uai": "UAI", "corl": "CoRL", "colm": "COLM", "acml": "ACML", "alt": "ALT",
    "automl": "AutoML", "kdd": "KDD", "www": "WWW", "sigir": "SIGIR", "miccai": "MICCAI",
}


def _json_error(path: str, text: str, exc: json.JSONDecodeError) -> InputFileError:
    if exc.pos >= len(text.rstrip()):
        what = "the JSON ends too early (truncated file?)"
    else:
        what = f"invalid JSON ({exc.msg})"
    err = InputFileError(path, f"{what} at line {exc.lineno}, column {exc.colno}")
    err.line = exc.lineno
    return err


def filename_defaults(path: str) -> dict[str, Any]:
    """Venue and year implied by a paperlists-style file name such as 'iclr2018.json'."""
    match = _PAPERLIST_NAME.match(Path(path).stem.lower())
    if not match or match.group(1) not in _KNOWN_VENUES:
        return {}
    year = int(match.group(2))
    return {"venue": _KNOWN_VENUES[match.group(1)], "year": year if 1900 <= year <= 2100 else None}


def _iter_lines(text: str) -> Iterator[str]:
    """Lines without their LF, one at a time (StringIO would copy the text as UCS-4)."""
    start = 0
    find = text.find
    while True:
        end = find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def parse_jsonl(text: str, path: str) -> ParseResult:
    """One JSON object per line; bad lines become problems unless no line parses at all."""
    result = ParseResult(path=path, format="jsonl")
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
    last = text.count("\n", 0, end) + 1  # the last non-blank line
    parsed_any = False
    first_error: InputFileError | None = None
    loads = json.loads
    # Iterate lazily: a list of 50k lines would double the memory of an 80 MB file.
    for number, line in enumerate(_iter_lines(text), start=1):
        if number > last:
            break
        if not line or line.isspace():
            continue
        try:
            obj = loads(line)
        except json.JSONDecodeError as exc:
            if first_error is None:
                first_error = InputFileError(path, f"invalid JSON at line {number}, column {exc.colno}")
                first_error.line = number
            if number == last:
                reason = f"truncated last line (invalid JSON at column {exc.colno})"
            else:
                reason = f"invalid JSON at column {exc.colno} ({exc.msg})"
            result.problems.append(Problem(number, reason))
            continue
        parsed_any = True
        if not isinstance(obj, dict):
            result.problems.append(Problem(number, "not a JSON object"))
            continue
        item = record_from_mapping(obj, line=number)
        if isinstance(item, Problem):
            result.problems.append(item)
        else:
            result.records.append(item)
    if not parsed_any and first_error is not None:
        raise first_error
    return result


def parse_json(text: str, path: str) -> ParseResult:
    """A JSON array of papers, an object with a "papers" list, or a Reader backup."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _json_error(path, text, exc) from None
    if isinstance(data, dict) and data.get("format") == BACKUP_FORMAT:
        return parse_backup(data, path)
    if isinstance(data, dict) and isinstance(data.get("papers"), list):
        items = data["papers"]
    elif isinstance(data, list):
        items = data
    elif isinstance(data, dict) and any(k in data for k in ("abstract", "summary", "description")):
        items = [data]
    else:
        raise InputFileError(
            path, 'no papers found: expected a JSON array or an object with a "papers" list'
        )
    result = ParseResult(path=path, format="json")
    defaults = filename_defaults(path)
    for number, obj in enumerate(items, start=1):
        where = f"record {number}"
        if not isinstance(obj, dict):
            result.problems.append(Problem(None, f"{where}: not a JSON object"))
            continue
        item = record_from_mapping(obj, line=None, where=where, defaults=defaults)
        if isinstance(item, Problem):
            result.problems.append(item)
        else:
            item.line = number
            result.records.append(item)
    return result

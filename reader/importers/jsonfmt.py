"""JSON Lines and JSON (array, {"papers": [...]}, paperlists dumps) paper files."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reader.errors import InputFileError
from reader.models import ImportFormat, ParseResult, Problem, Record

from .backup import BACKUP_FORMAT, parse_backup
from .base import MAX_JSON_DEPTH, Importer, collect, first_line
from .fields import plausible_year, record_from_mapping

JSONL_EXTENSIONS = (".jsonl", ".ndjson", ".jsonlines")
_MAX_INT_DIGITS = 20  # longer integers stay text: no year or offset has more digits
_LEADING_SPACE = re.compile(r"\s*")

# papercopilot paperlists dumps are named <conf><year>.json and carry neither venue nor year.
_PAPERLIST_NAME = re.compile(r"^([a-z]+)(\d{4})$")
_KNOWN_VENUES = {
    "nips": "NeurIPS", "neurips": "NeurIPS", "icml": "ICML", "iclr": "ICLR", "cvpr": "CVPR",
    "iccv": "ICCV", "eccv": "ECCV", "wacv": "WACV", "aaai": "AAAI", "ijcai": "IJCAI",
    "acl": "ACL", "emnlp": "EMNLP", "naacl": "NAACL", "coling": "COLING", "aistats": "AISTATS",
    "colt": "COLT", "uai": "UAI", "corl": "CoRL", "colm": "COLM", "acml": "ACML", "alt": "ALT",
    "automl": "AutoML", "kdd": "KDD", "www": "WWW", "sigir": "SIGIR", "miccai": "MICCAI",
}


class TooDeep(ValueError):
    """A JSON value nested deeper than MAX_JSON_DEPTH."""

    def __init__(self) -> None:
        super().__init__(f"nested more than {MAX_JSON_DEPTH} levels deep")


def _parse_int(digits: str) -> int | str:
    # int() raises ValueError past 4,300 digits; no paper field needs more than a few.
    return int(digits) if len(digits) <= _MAX_INT_DIGITS else digits


_DECODER = json.JSONDecoder(parse_int=_parse_int)  # one decoder: json.loads(**kw) builds one per call


def _check_depth(value: Any) -> None:
    """TooDeep when `value` nests deeper than MAX_JSON_DEPTH (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise TooDeep()
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, dict | list))


def loads(text: str, *, check_depth: bool = True) -> Any:
    """json.loads with bounded integer length and (with check_depth) nesting.

    TooDeep or JSONDecodeError on bad input. JSON Lines skips the depth walk: every field a
    record keeps is type-checked to text or a list of text, so nesting cannot reach the store.
    """
    try:
        value = _DECODER.decode(text)
    except RecursionError:  # the C decoder recurses per level: 100k-deep input ends here
        raise TooDeep() from None
    # Fewer openers than the limit cannot nest past it: skips the walk for small documents.
    if check_depth and text.count("[") + text.count("{") > MAX_JSON_DEPTH:
        _check_depth(value)
    return value


def load_json(text: str, path: str) -> Any:
    """The file's JSON, or an InputFileError naming the line (and a truncated or too deep file)."""
    try:
        return loads(text)
    except TooDeep as exc:
        raise InputFileError(path, f"the JSON is {exc}") from None
    except json.JSONDecodeError as exc:
        raise _json_error(path, text, exc) from None


def _json_error(path: str, text: str, exc: json.JSONDecodeError) -> InputFileError:
    if exc.pos >= len(text.rstrip()):
        what = "the JSON ends too early (truncated file?)"
    else:
        what = f"invalid JSON ({exc.msg})"
    return InputFileError(path, f"{what} at line {exc.lineno}, column {exc.colno}", exc.lineno)


def filename_defaults(path: str) -> dict[str, Any]:
    """Venue and year implied by a paperlists-style file name such as 'iclr2018.json'."""
    match = _PAPERLIST_NAME.match(Path(path).stem.lower())
    if not match or match.group(1) not in _KNOWN_VENUES:
        return {}
    year = int(match.group(2))
    return {"venue": _KNOWN_VENUES[match.group(1)], "year": year if plausible_year(year) else None}


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
    result = ParseResult(path=path, format=ImportFormat.JSONL)
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
    last = text.count("\n", 0, end) + 1  # the last non-blank line
    parsed_any = False
    first_error: InputFileError | None = None
    # Iterate lazily: a list of 50k lines would double the memory of an 80 MB file.
    for number, line in enumerate(_iter_lines(text), start=1):
        if number > last:
            break
        if not line or line.isspace():
            continue
        try:
            obj = loads(line, check_depth=False)
        except TooDeep as exc:
            result.problems.append(Problem(number, f"JSON {exc}"))
            continue
        except json.JSONDecodeError as exc:
            if first_error is None:
                first_error = InputFileError(
                    path, f"invalid JSON at line {number}, column {exc.colno}", number)
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
    data = load_json(text, path)
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
    defaults = filename_defaults(path)

    def one(number: int, obj: Any) -> Record | Problem:
        where = f"record {number}"
        if not isinstance(obj, dict):
            return Problem(None, f"{where}: not a JSON object")
        item = record_from_mapping(obj, line=None, where=where, defaults=defaults)
        if isinstance(item, Record):
            item.line = number
        return item

    return collect(ParseResult(path=path, format=ImportFormat.JSON), items, one)


def _first_line_is_object(text: str) -> bool:
    first = first_line(text, skip_blank=True)
    try:
        return isinstance(loads(first), dict)
    except ValueError:  # JSONDecodeError or TooDeep
        return False


def looks_like_jsonl(text: str, ext: str) -> bool:
    """JSON Lines: JSON in a .jsonl file, or several top-level objects whatever the extension."""
    start_at = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # \s* always matches
    start = text[start_at:start_at + 1]
    if start not in ("{", "["):
        return False
    if ext in JSONL_EXTENSIONS:
        return True
    if start == "[":
        return False
    # A whole-file parse stops right after the first object; anything after it means JSON Lines.
    try:
        _, end = _DECODER.raw_decode(text, start_at)
    except RecursionError:
        return False
    except json.JSONDecodeError:
        return "\n" in text.strip() and _first_line_is_object(text)
    return bool(text[end:].strip())


def looks_like_json(text: str, ext: str) -> bool:
    """A JSON document: it starts with an object or an array."""
    start_at = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # \s* always matches
    return text[start_at:start_at + 1] in ("{", "[")


JSONL_IMPORTER = Importer(ImportFormat.JSONL, "JSON Lines", JSONL_EXTENSIONS, looks_like_jsonl,
                          parse_jsonl)
JSON_IMPORTER = Importer(ImportFormat.JSON, "JSON or Reader backup", (".json",), looks_like_json,
                         parse_json, bound=lambda text: 0, line_based=False)  # counted once parsed

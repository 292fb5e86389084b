"""BibTeX (.bib) files: tolerant entry scanner, LaTeX accents to Unicode via pylatexenc."""

from __future__ import annotations

import re
from functools import lru_cache

from reader.models import ImportFormat, ParseResult, Problem, Record

from .base import Importer
from .fields import NO_ABSTRACT, clean_abstract, collapse, is_abstract, normalize_link, parse_year

_ENTRY = re.compile(r"@\s*([A-Za-z_]+)\s*([{(])")
_FIELD = re.compile(r"\s*([A-Za-z][\w\-:.+]*)\s*=\s*")
_SKIP_TYPES = frozenset({"comment", "preamble", "string", "proceedings"})
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_BARE = re.compile(r"[^\s,#}{)\"]+")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


class _Malformed(Exception):
    pass


def looks_like_bibtex(text: str, ext: str = "") -> bool:
    """True when the first line that is not blank or a % comment opens an @entry."""
    for line in text[:20000].split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("%"):
            return bool(_ENTRY.match(stripped))
    return False


@lru_cache(maxsize=1)
def _converters():
    from pylatexenc.latex2text import LatexNodes2Text

    # Math stays as $...$ source (the abstract renderer shows it); accents become Unicode.
    return LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True)


def latex_to_text(value: str) -> str:
    """Unicode text for a BibTeX value: accents converted, protective braces dropped."""
    if "\\" not in value and "{" not in value and "~" not in value:
        return value
    try:
        return _converters().latex_to_text(value)
    except Exception:  # pylatexenc can choke on broken LaTeX; braces-stripped source will do
        return value.replace("{", "").replace("}", "")


def _read_braced(text: str, pos: int, close: str) -> tuple[str, int]:
    """Text inside balanced braces/quotes starting just after the opener at pos-1."""
    depth = 0
    start = pos
    n = len(text)
    while pos < n:
        ch = text[pos]
        if ch == "\\":
            pos += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                if close == "}":
                    return text[start:pos], pos + 1
                raise _Malformed("unbalanced braces")
            depth -= 1
        elif ch == close and depth == 0:
            return text[start:pos], pos + 1
        elif ch == "@" and depth <= 1 and text[pos - 1] == "\n":
            raise _Malformed("unterminated value")  # ran into the next entry
        pos += 1
    raise _Malformed("unterminated value (file ends inside it)")


def _read_value(text: str, pos: int, strings: dict[str, str]) -> tuple[str, int]:
    parts: list[str] = []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            raise _Malformed("file ends inside an entry")
        ch = text[pos]
        if ch == "{":
            part, pos = _read_braced(text, pos + 1, "}")
        elif ch == '"':
            part, pos = _read_braced(text, pos + 1, '"')
        else:
            match = _BARE.match(text, pos)
            if not match:
                raise _Malformed(f"unexpected {ch!r}")
            word = match.group()
            part = strings.get(word.lower(), word)
            pos = match.end()
        parts.append(part)
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos < len(text) and text[pos] == "#":
            pos += 1
            continue
        return "".join(parts), pos


def _read_fields(text: str, pos: int, close: str, strings: dict[str, str]) -> tuple[dict, int]:
    fields: dict[str, str] = {}
    while True:
        while pos < len(text) and (text[pos].isspace() or text[pos] == ","):
            pos += 1
        if pos >= len(text):
            raise _Malformed("file ends inside an entry")
        if text[pos] == close:
            return fields, pos + 1
        match = _FIELD.match(text, pos)
        if not match:
            if text[pos] == "@":
                raise _Malformed("unbalanced braces: it runs into the next entry")
            raise _Malformed(f"expected a field name at {text[pos:pos + 20]!r}")
        value, pos = _read_value(text, match.end(), strings)
        fields.setdefault(match.group(1).lower(), value)


def _person(name: str) -> str:
    """'Last, First' / 'von Last, Jr, First' -> 'First von Last Jr'."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2:
        name = f"{parts[1]} {parts[0]}"
    elif len(parts) >= 3:
        name = f"{parts[2]} {parts[0]} {parts[1]}"
    return collapse(name) or ""


def _record(fields: dict[str, str], line: int, defaults: dict[str, str]) -> Record | Problem:
    abstract = clean_abstract(latex_to_text(fields.get("abstract", "")))
    if not is_abstract(abstract):
        return Problem(line, NO_ABSTRACT)
    authors_raw = fields.get("author", "")
    authors = [
        a for a in (_person(latex_to_text(p)) for p in _AND.split(authors_raw) if p.strip()) if a
    ]
    venue = (fields.get("journal") or fields.get("booktitle") or fields.get("journaltitle")
             or defaults.get("venue"))
    links: list[str] = []
    for key in ("url", "pdf", "doi", "eprint"):
        value = fields.get(key)
        if not value:
            continue
        kind = "arxiv" if key == "eprint" and "arxiv" in fields.get("archiveprefix", "").lower() \
            else key
        link = normalize_link(kind, value.strip("{} "))
        if link and link.startswith(("http://", "https://")) and link not in links:
            links.append(link)
    return Record(
        abstract=abstract or "",
        title=collapse(latex_to_text(fields.get("title", ""))),
        authors=authors,
        year=parse_year(fields.get("year") or fields.get("date") or defaults.get("year")),
        venue=collapse(latex_to_text(venue)) if venue else None,
        url=links[0] if links else None,
        links=links,
        line=line,
    )


def parse_bibtex(text: str, path: str) -> ParseResult:
    """Parse .bib text; a malformed entry is a problem and scanning resumes at the next '@'."""
    result = ParseResult(path=path, format=ImportFormat.BIBTEX)
    strings: dict[str, str] = {m: m.capitalize() for m in _MONTHS}
    entries: list[tuple[dict[str, str], int]] = []
    proceedings: list[dict[str, str]] = []
    pos = 0
    line = 1
    line_at = 0
    while True:
        match = _ENTRY.search(text, pos)
        if not match:
            break
        line += text.count("\n", line_at, match.start())
        line_at = match.start()
        kind = match.group(1).lower()
        close = "}" if match.group(2) == "{" else ")"
        body = match.end()
        if kind == "comment":
            pos = body
            continue
        try:
            if kind == "preamble":
                _, pos = _read_value(text, body, strings)
                continue
            if kind == "string":
                fields, pos = _read_fields(text, body, close, strings)
                strings.update({k: latex_to_text(v) for k, v in fields.items()})
                continue
            comma = text.find(",", body)
            if comma < 0:
                raise _Malformed("entry without fields")
            fields, pos = _read_fields(text, comma + 1, close, strings)
        except _Malformed as exc:
            result.problems.append(Problem(line, f"@{kind} entry skipped: {exc}"))
            pos = body
            continue
        if kind == "proceedings":
            proceedings.append(fields)
        elif kind not in _SKIP_TYPES:
            entries.append((fields, line))
    # PMLR-style files describe the volume once in an @Proceedings entry and give the papers
    # neither venue nor year; inherit them when the file holds exactly one such volume.
    defaults: dict[str, str] = {}
    if len(proceedings) == 1:
        volume = proceedings[0]
        venue = volume.get("shortname") or volume.get("booktitle") or volume.get("title")
        defaults = {k: v for k, v in (("venue", venue), ("year", volume.get("year"))) if v}
    for fields, line in entries:
        item = _record(fields, line, defaults)
        if isinstance(item, Problem):
            result.problems.append(item)
        else:
            result.records.append(item)
    return result


IMPORTER = Importer(ImportFormat.BIBTEX, "BibTeX", (".bib", ".bibtex"), looks_like_bibtex, parse_bibtex)

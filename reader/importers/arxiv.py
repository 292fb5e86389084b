"""arXiv API Atom feeds: one paper per <entry> (title, summary, authors, published year, links)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from reader.errors import InputFileError
from reader.models import ImportFormat, ParseResult, Record

from .base import Importer
from .fields import abstract_or_empty, collapse

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
_ENTRY_TAG = re.compile(r"<entry[\s>/]")
_YEAR = re.compile(r"^((?:19|20)\d\d)-")


def looks_like_arxiv_atom(text: str, ext: str = "") -> bool:
    head = text[:2048]
    return "<feed" in head and "http://www.w3.org/2005/Atom" in head


def _entry_lines(text: str) -> list[int]:
    """The line each <entry> starts on, in order (ElementTree keeps no positions)."""
    lines: list[int] = []
    line, at = 1, 0
    for match in _ENTRY_TAG.finditer(text):
        line += text.count("\n", at, match.start())
        at = match.start()
        lines.append(line)
    return lines


def parse_arxiv_atom(text: str, path: str) -> ParseResult:
    result = ParseResult(path=path, format=ImportFormat.ARXIV)
    try:
        # The file is untrusted: defusedxml refuses entity expansion (billion laughs) and
        # external entities instead of following them.
        root = fromstring(text)
    except ET.ParseError as exc:
        error_line, column = exc.position
        raise InputFileError(path, f"invalid Atom XML: {exc.msg if hasattr(exc, 'msg') else exc} "
                                   f"(column {column})", line=error_line) from None
    except DefusedXmlException as exc:
        raise InputFileError(path, f"refused Atom XML: {exc}") from None
    entry_lines = _entry_lines(text)
    for i, entry in enumerate(root.iter(f"{ATOM}entry")):
        line = entry_lines[i] if i < len(entry_lines) else None
        summary = abstract_or_empty((entry.findtext(f"{ATOM}summary") or "").strip())
        # arXiv hard-wraps summaries at ~80 columns: join the lines back into paragraphs.
        abstract = "\n\n".join(" ".join(p.split()) for p in re.split(r"\n\s*\n", summary))
        year_match = _YEAR.match(entry.findtext(f"{ATOM}published") or "")
        links = [ln.get("href", "") for ln in entry.findall(f"{ATOM}link") if ln.get("href")]
        doi = entry.findtext(f"{ARXIV}doi")
        if doi and not any(doi.strip() in link for link in links):
            links.append(f"https://doi.org/{doi.strip()}")
        result.records.append(Record(
            abstract=abstract,
            title=collapse(entry.findtext(f"{ATOM}title") or "") or None,
            authors=[name for name in (collapse(a.findtext(f"{ATOM}name"))
                                       for a in entry.findall(f"{ATOM}author")) if name],
            year=int(year_match.group(1)) if year_match else None,
            venue="arXiv",  # journal_ref is a citation string, not a venue to group by
            url=(entry.findtext(f"{ATOM}id") or "").strip() or None,
            links=list(dict.fromkeys(links)),
            line=line,
            doi=doi,
        ))
    return result


IMPORTER = Importer(ImportFormat.ARXIV, "arXiv Atom feed", (".xml", ".atom"), looks_like_arxiv_atom,
                    parse_arxiv_atom, bound=lambda text: text.count("<entry"), line_based=False)

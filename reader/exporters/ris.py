"""RIS records (TY ... ER) for reference managers (EndNote, Zotero, Mendeley, RefWorks).

Tags per the RIS specification: TY type, ID the citation key, AU one per author ('Last, First,
Suffix'), TI title, JO journal (articles) or T2 the proceedings or book, PY year, DO, UR, AB,
KW one per tag, N1 the note (optional), ER. Each value is one line: line breaks become spaces
(a continuation line is read differently by each client).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..models import EntryType, Paper
from .citations import doi_of, entry_type_of, url_of
from .names import split_name

RIS_TYPE = {
    EntryType.ARTICLE: "JOUR", EntryType.INPROCEEDINGS: "CPAPER", EntryType.INCOLLECTION: "CHAP",
    EntryType.BOOK: "BOOK", EntryType.PHDTHESIS: "THES", EntryType.MASTERSTHESIS: "THES",
    EntryType.TECHREPORT: "RPRT", EntryType.UNPUBLISHED: "UNPB", EntryType.MISC: "GEN",
}
_VENUE_TAG = {EntryType.ARTICLE: "JO", EntryType.BOOK: "PB", EntryType.PHDTHESIS: "PB",
              EntryType.MASTERSTHESIS: "PB", EntryType.TECHREPORT: "PB"}


def ris_name(author: str) -> str:
    name = split_name(" ".join(author.split()))
    family = " ".join(p for p in (name.particle, name.family) if p)
    return ", ".join(p for p in (family, name.given, name.suffix) if p)


def _line(tag: str, value: str) -> str:
    return f"{tag}  - {' '.join(value.split())}\n"


def record(paper: Paper, *, with_notes: bool = False) -> str:
    """One record, from TY to ER, followed by a blank line."""
    kind = entry_type_of(paper)
    lines = [_line("TY", RIS_TYPE[kind]), _line("ID", paper.citation_key)]
    lines += [_line("AU", ris_name(a)) for a in paper.authors if a.strip()]
    if paper.title.strip():
        lines.append(_line("TI", paper.title))
    if paper.venue.strip():
        lines.append(_line(_VENUE_TAG.get(kind, "T2"), paper.venue))
    if paper.year:
        lines.append(_line("PY", str(paper.year)))
    doi, url = doi_of(paper), url_of(paper)
    if doi:
        lines.append(_line("DO", doi))
    if url:
        lines.append(_line("UR", url))
    if paper.abstract.strip():
        lines.append(_line("AB", paper.abstract))
    lines += [_line("KW", tag) for tag in paper.tags]
    if with_notes and paper.note.strip():
        lines.append(_line("N1", paper.note))
    lines.append("ER  - \n\n")
    return "".join(lines)


def records(papers: Iterable[Paper], *, with_notes: bool = False) -> Iterator[str]:
    for paper in papers:
        yield record(paper, with_notes=with_notes)

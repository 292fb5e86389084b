"""CSL-JSON items (the citeproc / pandoc / Zotero interchange format) for citing.

Per the CSL-JSON schema (citation-style-language/schema, csl-data.json): `id` is the citation
key (also given as `citation-key`, as Better BibTeX writes it), names have family/given (with a
non-dropping particle: "van der" Maaten), `issued` holds date-parts, `keyword` is one
comma-separated string. Text is written as stored: CSL-JSON carries no LaTeX.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..models import EntryType, Paper
from .citations import doi_of, entry_type_of, url_of
from .names import split_name

CSL_TYPE = {
    EntryType.ARTICLE: "article-journal", EntryType.INPROCEEDINGS: "paper-conference",
    EntryType.INCOLLECTION: "chapter", EntryType.BOOK: "book", EntryType.PHDTHESIS: "thesis",
    EntryType.MASTERSTHESIS: "thesis", EntryType.TECHREPORT: "report",
    EntryType.UNPUBLISHED: "manuscript", EntryType.MISC: "article",
}
# Where the venue goes: the publisher for a thesis or report, else the container.
_VENUE_KEY = {EntryType.PHDTHESIS: "publisher", EntryType.MASTERSTHESIS: "publisher",
              EntryType.TECHREPORT: "publisher", EntryType.BOOK: "publisher"}


def csl_name(author: str) -> dict[str, str]:
    name = split_name(" ".join(author.split()))
    if name.single:
        return {"literal": name.family}
    out = {"family": name.family, "given": name.given}
    if name.particle:
        out["non-dropping-particle"] = name.particle
    if name.suffix:
        out["suffix"] = name.suffix
    return {k: v for k, v in out.items() if v}


def item(paper: Paper, *, with_notes: bool = False) -> dict[str, Any]:
    """One CSL-JSON item."""
    kind = entry_type_of(paper)
    out: dict[str, Any] = {"id": paper.citation_key, "citation-key": paper.citation_key,
                           "type": CSL_TYPE[kind], "title": paper.title}
    if paper.authors:
        out["author"] = [csl_name(a) for a in paper.authors if a.strip()]
    if paper.year:
        out["issued"] = {"date-parts": [[paper.year]]}
    if paper.venue:
        out[_VENUE_KEY.get(kind, "container-title")] = paper.venue
    doi, url = doi_of(paper), url_of(paper)
    if doi:
        out["DOI"] = doi
    if url:
        out["URL"] = url
    if paper.abstract.strip():
        out["abstract"] = paper.abstract
    if paper.tags:
        out["keyword"] = ", ".join(paper.tags)
    if with_notes and paper.note.strip():
        out["note"] = paper.note
    return out


def chunks(papers: Iterable[Paper], *, with_notes: bool = False) -> Iterator[str]:
    """A JSON array written a paper at a time (the file is their concatenation)."""
    yield "["
    sep = "\n"
    for paper in papers:
        yield sep + json.dumps(item(paper, with_notes=with_notes), ensure_ascii=False, indent=2)
        sep = ",\n"
    yield "\n]\n"

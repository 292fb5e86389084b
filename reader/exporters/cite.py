"""The citation exports by kind: file extension, label and the text of a selection of papers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from ..models import ExportKind, Paper, without_controls
from . import bibtex, csljson, ris

EXTENSIONS = {ExportKind.BIBTEX: ".bib", ExportKind.CSLJSON: ".json", ExportKind.RIS: ".ris"}
LABELS = {ExportKind.BIBTEX: "BibTeX", ExportKind.CSLJSON: "CSL-JSON", ExportKind.RIS: "RIS"}


def chunks(kind: ExportKind, papers: Iterable[Paper], *, with_notes: bool = False) -> Iterator[str]:
    """The export's text in pieces, a paper at a time (written as they come: streamed)."""
    papers = (printable(p) for p in papers)
    if kind == ExportKind.BIBTEX:
        return bibtex.entries(papers, with_notes=with_notes)
    if kind == ExportKind.CSLJSON:
        return csljson.chunks(papers, with_notes=with_notes)
    if kind == ExportKind.RIS:
        return ris.records(papers, with_notes=with_notes)
    raise ValueError(f"not a citation format: {kind}")


def printable(paper: Paper) -> Paper:
    """The paper without control characters in what an export writes (models.without_controls):
    notes and titles from an older Reader could hold a NUL, which the BibTeX escaper took for its
    brace marker and which makes a file binary. The abstract stays as imported (it is the paper's
    identity: a re-import must find the same paper); it never holds a NUL (models.storable), and
    the importer takes a stray control character in a text file (importers/decode.py)."""
    lists = (paper.authors, paper.links, paper.code_links, paper.tags)
    texts = "".join((paper.title, paper.venue, paper.note, paper.citation_key, *(x for v in lists for x in v)))
    if without_controls(texts) == texts:
        return paper

    def clean(values: list[str]) -> list[str]:
        return [without_controls(v) for v in values]

    return replace(paper, title=without_controls(paper.title), venue=without_controls(paper.venue), note=without_controls(paper.note),
                   citation_key=without_controls(paper.citation_key), authors=clean(paper.authors),
                   links=clean(paper.links), code_links=clean(paper.code_links), tags=clean(paper.tags))

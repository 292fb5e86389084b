"""The citation exports by kind: file extension, label and the text of a selection of papers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..models import ExportKind, Paper
from . import bibtex, csljson, ris

EXTENSIONS = {ExportKind.BIBTEX: ".bib", ExportKind.CSLJSON: ".json", ExportKind.RIS: ".ris"}
LABELS = {ExportKind.BIBTEX: "BibTeX", ExportKind.CSLJSON: "CSL-JSON", ExportKind.RIS: "RIS"}


def chunks(kind: ExportKind, papers: Iterable[Paper], *, with_notes: bool = False) -> Iterator[str]:
    """The export's text in pieces, a paper at a time (written as they come: streamed)."""
    if kind == ExportKind.BIBTEX:
        return bibtex.entries(papers, with_notes=with_notes)
    if kind == ExportKind.CSLJSON:
        return csljson.chunks(papers, with_notes=with_notes)
    if kind == ExportKind.RIS:
        return ris.records(papers, with_notes=with_notes)
    raise ValueError(f"not a citation format: {kind}")

"""PMLR (proceedings.mlr.press): one volume's BibTeX, with abstracts, read by the BibTeX importer.

A volume is one request: `<base>/v<N>/assets/bib/bibliography.bib`. Two shapes are read: the
generated per-volume file (each entry with booktitle, year, url and pdf) and the repository's
source file (an @Proceedings entry for the volume and entries with only title, author, pages and
abstract, as in the AISTATS 2017/2018 volumes). The paper's page and PDF are PMLR's own
addresses, derived from the entry key when the entry has no url (`Li17a` -> `li17a.html`)."""

from __future__ import annotations

import re

from reader.errors import InputFileError
from reader.importers.bibtex import parse_bibtex
from reader.importers.decode import decode_bytes
from reader.models import ParseResult

SOURCE = "pmlr"
PUBLIC = "https://proceedings.mlr.press"  # links always name PMLR itself, whatever the base URL
_KEY = re.compile(r"^(?:pmlr-v\d+-)?([A-Za-z0-9_.-]+)$")


def volume_path(volume: str) -> str:
    return f"/v{volume}/assets/bib/bibliography.bib"


def parse_volume(body: bytes, url: str, *, volume: str, venue: str, year: int) -> ParseResult:
    """The papers of one PMLR volume file; entries that cannot be read are the result's problems."""
    text = decode_bytes(body, url)
    if "@" not in text:
        raise InputFileError(url, "not a BibTeX file (no @entry)")
    result = parse_bibtex(text, url)
    result.format = SOURCE
    for rec in result.records:
        rec.venue = venue
        rec.year = year
        key = _KEY.match(rec.citation_key or "")
        pid = key.group(1).lower() if key else ""
        links = [link for link in rec.links if link.startswith(("http://", "https://"))]
        if pid:
            page, pdf = f"{PUBLIC}/v{volume}/{pid}.html", f"{PUBLIC}/v{volume}/{pid}/{pid}.pdf"
            if not any(link.endswith(".html") for link in links):
                links.insert(0, page)
            if not any(link.endswith(".pdf") for link in links):
                links.append(pdf)
        rec.links = list(dict.fromkeys(links))
        rec.url = rec.links[0] if rec.links else None
    return result

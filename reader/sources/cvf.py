"""CVF open access (openaccess.thecvf.com): CVPR, ICCV and WACV from 2021 on.

The conference's listing `/<ID>?day=all` (`/CVPR2024?day=all`) has one `<dt class="ptitle">` per
paper (the title, linking to the paper's page) followed by `<dd>`s: the authors (one hidden
`query_author` input per author, or plain text), then the PDF, supplementary and arXiv links and a
BibTeX block. Abstracts are only on the paper pages (`<div id="abstract">`), one request each:
the listing and every page are fetched (and cached) before anything is stored. Parsed with the
standard library's html.parser (one pass, linear); entities are unescaped."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from reader.errors import InputFileError
from reader.identity import arxiv_key
from reader.importers.fields import abstract_or_empty, clean_abstract, collapse
from reader.models import EntryType, Record

SOURCE = "cvf"
PUBLIC = "https://openaccess.thecvf.com"


def listing_path(conference: str) -> str:
    return f"/{conference}"


LISTING_PARAMS = {"day": "all"}


@dataclass
class Listed:
    """One paper as the listing shows it (the abstract comes from its page)."""

    title: str
    page: str  # the paper page's path, "/content/CVPR2024/html/..._paper.html"
    authors: list[str] = field(default_factory=list)
    pdf: str = ""
    supp: str = ""
    arxiv: str = ""
    line: int = 0


class _Listing(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.papers: list[Listed] = []
        self._in_dt = False
        self._in_title = False
        self._title: list[str] = []
        self._dd = 0  # the <dd> of the current paper we are in (1: authors, 2: links); 0 outside
        self._dd_seen = 0
        self._dd_text: list[str] = []
        self._form_authors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "dt":
            self._close_dd()
            self._in_dt = "ptitle" in (a.get("class") or "").split()
            if self._in_dt:
                self._title = []
                self._dd_seen = 0
        elif tag == "a" and self._in_dt and a.get("href"):
            self.papers.append(Listed("", a["href"] or "", line=self.getpos()[0]))
            self._in_title = True
        elif tag == "dd" and self.papers and not self._in_dt:
            self._close_dd()
            self._dd_seen += 1
            self._dd = self._dd_seen
            self._dd_text, self._form_authors = [], []
        elif tag == "dl":
            self._close_dd()
        elif self._dd and tag == "input" and a.get("name") == "query_author" and a.get("value"):
            self._form_authors.append(a["value"] or "")
        elif self._dd and tag == "a" and a.get("href"):
            self._link(a["href"] or "")

    def _link(self, href: str) -> None:
        paper = self.papers[-1]
        low = href.lower()
        if "arxiv.org" in low:
            paper.arxiv = paper.arxiv or href
        elif low.endswith(".pdf") and "/papers/" in low and not paper.pdf:
            paper.pdf = href
        elif "supplemental" in low and not paper.supp:
            paper.supp = href

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._in_title:
            self._in_title = False
            self.papers[-1].title = collapse("".join(self._title)) or ""
        elif tag == "dt":
            self._in_dt = self._in_title = False
        elif tag == "dd":
            self._close_dd()

    def _close_dd(self) -> None:
        if self._dd == 1 and self.papers:
            paper = self.papers[-1]
            if self._form_authors:
                paper.authors = [n for n in map(collapse, self._form_authors) if n]
            else:
                text = collapse("".join(self._dd_text)) or ""
                paper.authors = [n for n in (collapse(p) for p in text.split(",")) if n]
        self._dd = 0

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
        elif self._dd == 1:
            self._dd_text.append(data)


class _Abstract(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # <div> depth inside div#abstract (0: outside)
        self.parts: list[str] = []
        self.found = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "div":
            return
        if self.depth:
            self.depth += 1
        elif dict(attrs).get("id") == "abstract" and not self.found:
            self.depth, self.found = 1, True

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def _decode(body: bytes, url: str) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("latin-1")


def parse_listing(body: bytes, url: str) -> list[Listed]:
    """The papers of a conference listing, in its order; InputFileError when it has none."""
    parser = _Listing()
    parser.feed(_decode(body, url))
    parser.close()
    papers = [p for p in parser.papers if p.title and p.page]
    if not papers:
        raise InputFileError(url, 'no papers on this page (no <dt class="ptitle"> entries)')
    return papers


def parse_abstract(body: bytes, url: str) -> str:
    """The abstract on a paper page ("" when the page has none)."""
    parser = _Abstract()
    parser.feed(_decode(body, url))
    parser.close()
    return abstract_or_empty(clean_abstract(collapse("".join(parser.parts))))


def page_path(listing_url: str, href: str) -> str:
    """The path (and query) of a paper page linked from the listing."""
    parts = urlsplit(urljoin(listing_url, href))
    return parts.path + (f"?{parts.query}" if parts.query else "")


def record(paper: Listed, abstract: str, *, venue: str, year: int) -> Record:
    links = [urljoin(PUBLIC, paper.page)]
    links += [urljoin(PUBLIC, href) for href in (paper.pdf, paper.supp) if href]
    if paper.arxiv:
        links.append(paper.arxiv)
    return Record(
        abstract=abstract,
        title=paper.title,
        authors=paper.authors,
        year=year,
        venue=venue,
        url=links[0],
        links=links,
        line=paper.line,
        arxiv=arxiv_key(paper.arxiv) or None,
        entry_type=EntryType.INPROCEEDINGS,
    )

"""Service-shaped bodies built from real records, for the venue tests and benchmarks/bench_sources.py.

The service URLs below are paper links inside the records, never fetched: these bodies are served
by the 127.0.0.1 replay server (tests/sources/replay.py) or parsed as bytes.

No real OpenReview API v2 or CVF open access response is recorded in ../shared/corpora/sources
(its README says so). These builders put REAL papers (titles, authors, abstracts from
../shared/corpora/ml_conference_corpus/papers.jsonl) into the services' published shapes:

- OpenReview API v2 `GET /notes` (https://docs.openreview.net/reference/api-v2/openapi-definition,
  openreview-py's `Note` model): `{"notes": [{"id", "forum", "number", "cdate", "mdate", "pdate",
  "domain", "invitations", "readers", "signatures", "writers", "version": 2, "content": {"title":
  {"value"}, "authors": {"value": [...]}, "authorids", "abstract", "keywords", "venue": {"value":
  "ICLR 2025 Oral"}, "venueid", "pdf": {"value": "/pdf/<sha1>.pdf"}, "_bibtex"}}], "count": N}`.
- CVF open access: the listing `/<CONF>?day=all` (`<dl>` of `<dt class="ptitle"><br><a
  href="/content/<CONF>/html/..._paper.html">` + a `<dd>` of `query_author` forms + a `<dd>` of
  pdf/supp/arXiv links and the `bibref` block) and the paper page (`<div id="papertitle">`,
  `<div id="authors">`, `<div id="abstract">`), as the site's HTML is structured.
- PMLR's generated per-volume `bibliography.bib` (entries `pmlr-v<N>-<id>` with booktitle, year,
  volume, series, publisher, pdf, url, abstract), as proceedings.mlr.press serves it.

Nothing of the corpus is copied into the repository: the bodies are built when a test runs."""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
PAPERS = CORPORA / "ml_conference_corpus" / "papers.jsonl"


def corpus_papers(prefix: str | None = None, limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Records of papers.jsonl whose id starts with `prefix` ("wacv2024:"), in file order."""
    count = 0
    with PAPERS.open(encoding="utf-8") as handle:
        for line in handle:
            if prefix and not line.startswith(f'{{"id": "{prefix}'):
                continue
            yield json.loads(line)
            count += 1
            if limit is not None and count >= limit:
                return


def forum_id(paper: dict[str, Any]) -> str:
    return hashlib.sha1(paper["id"].encode()).hexdigest()[:10]


def openreview_note(paper: dict[str, Any], venue_id: str, decision: str, number: int) -> dict[str, Any]:
    fid = forum_id(paper)
    return {
        "id": fid, "forum": fid, "number": number, "cdate": 1727000000000 + number,
        "mdate": 1737000000000, "pdate": 1737500000000, "odate": 1727900000000,
        "domain": venue_id, "invitations": [f"{venue_id}/-/Submission", f"{venue_id}/-/Post_Submission"],
        "readers": ["everyone"], "signatures": [f"{venue_id}/Submission{number}/Authors"],
        "writers": [venue_id], "version": 2, "license": "CC BY 4.0",
        "content": {
            "title": {"value": paper["title"]},
            "authors": {"value": list(paper.get("authors") or [])},
            "authorids": {"value": [f"~{a.replace(' ', '_')}1" for a in paper.get("authors") or []]},
            "keywords": {"value": list(paper.get("keywords") or [])[:5]},
            "abstract": {"value": paper["abstract"]},
            "venue": {"value": decision},
            "venueid": {"value": venue_id},
            "pdf": {"value": f"/pdf/{hashlib.sha1(fid.encode()).hexdigest()}.pdf"},
            "_bibtex": {"value": f"@inproceedings{{\nanonymous{number},\ntitle={{{paper['title']}}},\n}}"},
        },
    }


def openreview_pages(papers: list[dict[str, Any]], venue_id: str, label: str,
                     limit: int = 1000) -> dict[int, bytes]:
    """offset -> body of `GET /notes?content.venueid=<venue_id>&offset=..&limit=<limit>`."""
    kinds = ("Oral", "Spotlight", "Poster", "Poster", "Poster", "Poster", "Poster", "Poster")
    notes = [openreview_note(p, venue_id, f"{label} {kinds[n % len(kinds)]}", n + 1)
             for n, p in enumerate(papers)]
    pages = {}
    for offset in range(0, len(notes) + 1, limit):
        pages[offset] = json.dumps({"notes": notes[offset:offset + limit], "count": len(notes)}).encode()
    return pages


def _slug(paper: dict[str, Any], conf: str) -> str:
    first = (paper.get("authors") or ["Anon"])[0].split()[-1]
    words = re.sub(r"[^A-Za-z0-9 -]", "", paper["title"]).split()[:6]
    return re.sub(r"[^A-Za-z0-9_-]", "", "_".join([first, *words])) + f"_{conf[:-4]}_{conf[-4:]}"


def cvf_site(papers: list[dict[str, Any]], conf: str) -> dict[str, bytes]:
    """path(+query) -> body: the listing `/<conf>?day=all` and one page per paper."""
    items, site = [], {}
    for n, p in enumerate(papers):
        slug = f"{_slug(p, conf)}_{n}"
        page = f"/content/{conf}/html/{slug}_paper.html"
        pdf = f"/content/{conf}/papers/{slug}_paper.pdf"
        forms = "\n".join(
            f'<form id="form-{i}" action="/{conf}" method="post" class="authsearch">\n'
            f'<input type="hidden" name="query_author" value="{html.escape(a)}">\n'
            f'<a href="#" onclick="document.getElementById(\'form-{i}\').submit();">{html.escape(a)}</a>,\n'
            "</form>" for i, a in enumerate(p.get("authors") or []))
        arxiv = f'\n[<a href="http://arxiv.org/abs/{p["arxiv"]}">arXiv</a>]' if p.get("arxiv") else ""
        items.append(
            f'<dt class="ptitle"><br><a href="{page}">{html.escape(p["title"])}</a></dt>\n'
            f"<dd>\n{forms}\n</dd>\n<dd>\n[<a href=\"{pdf}\">pdf</a>]\n"
            f'[<a href="/content/{conf}/supplemental/{slug}_supp.pdf">supp</a>]{arxiv}\n'
            '<div class="link2">[<a class="fakelink" onclick="$(this).siblings(\'.bibref\').slideToggle()">'
            'bibtex</a>]\n<div class="bibref pre-white-space">@InProceedings{'
            f'{slug},\n    author = {{{" and ".join(p.get("authors") or [])}}},\n'
            f'    title = {{{html.escape(p["title"])}}},\n    year = {{{conf[-4:]}}}\n}}</div>\n</div>\n</dd>')
        site[page] = (
            f'<html><head><title>{conf} Open Access Repository</title>\n'
            f'<meta name="citation_title" content="{html.escape(p["title"])}">\n</head><body>\n'
            f'<div id="header"></div>\n<div id="content">\n<dl>\n<dd>\n'
            f'<div id="papertitle">\n{html.escape(p["title"])}</div>\n'
            f'<div id="authors"><br><b><i>{html.escape(", ".join(p.get("authors") or []))}</i></b>; '
            f"Proceedings of the IEEE/CVF Conference ({conf[:-4]}), {conf[-4:]}, pp. 1-10</div>\n"
            f'<font size="5"><br><b>Abstract</b></font><br><br><div id="abstract">\n'
            f'{html.escape(p["abstract"])}\n</div>\n<font size="5"><br><b>Related Material</b></font>'
            f'<br><br>\n[<a href="{pdf}">pdf</a>]\n</dd>\n</dl>\n</div>\n</body></html>\n').encode()
    site[f"/{conf}?day=all"] = (
        f"<html><head><title>{conf} Open Access Repository</title></head><body>\n"
        f'<div id="header"></div>\n<div id="content">\n<h3>Papers</h3>\n<dl>\n'
        + "\n".join(items) + '\n</dl>\n</div>\n<div id="footer">Copyright notice</div>\n</body></html>\n'
    ).encode()
    return site


def _bib(value: str) -> str:
    return value.replace("{", "(").replace("}", ")")


def pmlr_bibliography(papers: Iterable[dict[str, Any]], volume: int, booktitle: str, year: int) -> bytes:
    """PMLR's generated per-volume bibliography.bib for `papers`."""
    out = []
    for n, p in enumerate(papers):
        family = (p.get("authors") or ["anon"])[0].split()[-1].lower()
        pid = re.sub(r"[^a-z0-9-]", "", family) + f"{year % 100}{n}"
        authors = " and ".join(_bib(a) for a in p.get("authors") or [])
        out.append(
            f"@InProceedings{{pmlr-v{volume}-{pid},\n"
            f"  title = \t {{{_bib(p['title'])}}},\n  author =       {{{authors}}},\n"
            f"  booktitle = \t {{{booktitle}}},\n  pages = \t {{{n * 10 + 1}--{n * 10 + 10}}},\n"
            f"  year = \t {{{year}}},\n  volume = \t {{{volume}}},\n"
            f"  series = \t {{Proceedings of Machine Learning Research}},\n  month = \t {{13--19 Jul}},\n"
            f"  publisher =    {{PMLR}},\n"
            f"  pdf = \t {{https://raw.githubusercontent.com/mlresearch/v{volume}/main/assets/{pid}/{pid}.pdf}},\n"
            f"  url = \t {{https://proceedings.mlr.press/v{volume}/{pid}.html}},\n"
            f"  abstract = \t {{{_bib(p['abstract'])}}}\n}}\n")
    return "\n".join(out).encode()

"""The venue parsers: bytes -> Records, one-line errors naming the URL.

No network: the parsers run on bytes; the service URLs below are the papers' own links in the
records (fetching is tested against the 127.0.0.1 replay server in test_venue_add.py).

PMLR and ACL run on REAL files: the AISTATS 2017/2018 volumes in ../shared/corpora/bibtex and
the ACL Anthology 2024.insights XML in ../shared/corpora/sources/acl. No real OpenReview API v2 or
CVF open access body is recorded there (sources/README.txt), so those fixtures are built from the
services' published shapes (OpenReview's API v2 schema / openreview-py's Note model; the CVF
site's HTML structure) in tests/sources/venue_fixtures.py, around real papers of the corpus, and a
few small hand-written bodies below for the edge cases."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from reader.errors import InputFileError
from reader.sources import acl, cvf, openreview_venue, pmlr

from .venue_fixtures import CORPORA, PAPERS, corpus_papers, cvf_site, openreview_pages

BIB = CORPORA / "bibtex"
ACL_XML = CORPORA / "sources" / "acl" / "acl-anthology_data_xml_2024.insights.xml"


def need(path):
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    return path


def test_pmlr_aistats_2018_volume_whole():
    body = need(BIB / "pmlr_v84_aistats2018.bib").read_bytes()
    result = pmlr.parse_volume(body, "http://x/v84/assets/bib/bibliography.bib", volume="84",
                               venue="AISTATS", year=2018)
    assert len(result.records) == 216 and not result.problems
    assert all(r.abstract for r in result.records)
    assert {r.venue for r in result.records} == {"AISTATS"} and {r.year for r in result.records} == {2018}
    first = next(r for r in result.records if r.citation_key == "uziel18")
    assert first.title == "Growth-Optimal Portfolio Selection under CVaR Constraints"
    assert first.authors == ["Guy Uziel", "Ran El-Yaniv"]
    assert first.links == ["https://proceedings.mlr.press/v84/uziel18.html",
                           "https://proceedings.mlr.press/v84/uziel18/uziel18.pdf"]
    assert first.url == first.links[0]


def test_pmlr_aistats_2017_volume_keeps_every_abstract():
    text = need(BIB / "pmlr_v54_aistats2017.bib").read_text(encoding="utf-8")
    result = pmlr.parse_volume(text.encode(), "u", volume="54", venue="AISTATS", year=2017)
    assert len(result.records) == 167
    assert sum(1 for r in result.records if r.abstract) == 167
    li = next(r for r in result.records if r.citation_key == "Li17a")
    assert li.title == "Minimax Gaussian Classification & Clustering"
    assert li.url == "https://proceedings.mlr.press/v54/li17a.html"


def test_pmlr_generated_entry_keeps_its_own_url_and_pdf():
    body = b"""@InProceedings{pmlr-v235-abe24a,
  title = \t {Adaptively Perturbed Mirror Descent for Learning in Games},
  author =       {Abe, Kenshi and Ariu, Kaito},
  booktitle = \t {Proceedings of the 41st International Conference on Machine Learning},
  year = \t {2024},
  pdf = \t {https://raw.githubusercontent.com/mlresearch/v235/main/assets/abe24a/abe24a.pdf},
  url = \t {https://proceedings.mlr.press/v235/abe24a.html},
  abstract = \t {This paper proposes a payoff perturbation technique for the Mirror Descent (MD) algorithm.}
}
"""
    rec, = pmlr.parse_volume(body, "u", volume="235", venue="ICML", year=2024).records
    assert rec.venue == "ICML" and rec.year == 2024 and rec.citation_key == "pmlr-v235-abe24a"
    assert rec.links == ["https://proceedings.mlr.press/v235/abe24a.html",
                         "https://raw.githubusercontent.com/mlresearch/v235/main/assets/abe24a/abe24a.pdf"]


def test_pmlr_not_bibtex_names_the_url():
    with pytest.raises(InputFileError, match=r"^http://h/v1/b\.bib: not a BibTeX file"):
        pmlr.parse_volume(b"<html>404</html>", "http://h/v1/b.bib", volume="1", venue="X", year=2020)


def test_acl_insights_2024_every_paper_with_its_abstract():
    body = need(ACL_XML).read_bytes()
    result = acl.parse_collection(body, "http://h/data/xml/2024.insights.xml", venue="Insights", year=2024)
    assert len(result.records) == 19 and all(r.abstract for r in result.records)
    first = result.records[0]
    assert first.title.startswith("MoSECroT: Model Stitching with Static Word Embeddings")
    assert first.authors[:2] == ["Haotian Ye", "Yihong Liu"] and "Hinrich Schütze" in first.authors
    assert first.doi == "10.18653/v1/2024.insights-1.1"
    assert first.links[:2] == ["https://aclanthology.org/2024.insights-1.1/",
                               "https://aclanthology.org/2024.insights-1.1.pdf"]
    assert first.citation_key == "ye-etal-2024-mosecrot" and first.year == 2024
    # Independent check: every title and abstract as ElementTree's itertext gives them.
    root = ET.fromstring(body)
    expected = [" ".join("".join(p.find("abstract").itertext()).split()) for p in root.iter("paper")]
    assert [r.abstract for r in result.records] == expected


def test_acl_tex_math_and_one_volume():
    body = b"""<collection id="2024.findings"><volume id="acl"><meta><year>2024</year></meta>
<paper id="3"><title>Bounds for <tex-math>\\ell_1</tex-math> <fixed-case>NLP</fixed-case></title>
<author><first>Ann</first><last>Lee</last></author>
<abstract>We show <tex-math>O(n)</tex-math> cost for long inputs in every case we tried.</abstract>
<url hash="x">2024.findings-acl.3</url></paper></volume>
<volume id="emnlp"><paper id="1"><title>Other</title></paper></volume></collection>"""
    rec, = acl.parse_collection(body, "u", venue="Findings of ACL", year=2024, volume="acl").records
    assert rec.title == "Bounds for $\\ell_1$ NLP"
    assert rec.abstract == "We show $O(n)$ cost for long inputs in every case we tried."
    assert rec.url == "https://aclanthology.org/2024.findings-acl.3/"
    with pytest.raises(InputFileError, match="has no volume 'naacl'"):
        acl.parse_collection(body, "u", venue="F", year=2024, volume="naacl")


@pytest.mark.parametrize("body, why", [
    (b"<collection id='x'><volume>", "not a readable ACL Anthology XML file"),
    (b"<html/>", "not an ACL Anthology collection"),
    (b'<!DOCTYPE x [<!ENTITY a "aaaa">]><collection>&a;</collection>', "XML with entity or DTD"),
])
def test_acl_bad_bodies_name_the_url(body, why):
    with pytest.raises(InputFileError, match=rf"^http://h/x\.xml(:\d+)?: {why}"):
        acl.parse_collection(body, "http://h/x.xml", venue="ACL", year=2024)


def _corpus(prefix, n):
    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    return list(corpus_papers(prefix, n))


def test_openreview_page_gives_status_links_and_forum():
    papers = _corpus("colm2024:", 12)
    pages = openreview_pages(papers, "colmweb.org/COLM/2024/Conference", "COLM 2024", limit=8)
    notes = openreview_venue.notes_of(pages[0], "u")
    result = openreview_venue.parse_notes(notes, "u", venue="COLM", year=2024)
    assert [r.title for r in result.records] == [p["title"] for p in papers[:8]]
    assert [r.abstract for r in result.records] == [p["abstract"].strip() for p in papers[:8]]
    assert [r.status for r in result.records][:3] == ["oral", "spotlight", "poster"]
    first = result.records[0]
    assert first.openreview == notes[0]["forum"]
    assert first.links[0] == f"https://openreview.net/forum?id={first.openreview}"
    assert re.fullmatch(r"https://openreview\.net/pdf/[0-9a-f]{40}\.pdf", first.links[1])
    assert first.authors == papers[0]["authors"]


@pytest.mark.parametrize("decision, status", [
    ("ICLR 2025 Oral", "oral"), ("NeurIPS 2024 spotlight", "spotlight"), ("ICML 2025 poster", "poster"),
    ("ICML 2025 spotlightposter", "spotlight"), ("COLM 2024", None), ("", None),
])
def test_openreview_status_from_the_venue_line(decision, status):
    assert openreview_venue.status_of(decision) == status


def test_openreview_api_v1_plain_values_and_bad_notes():
    notes = [{"id": "abc", "content": {"title": "T one", "abstract": "An abstract long enough to keep it.",
                                       "authors": ["A B"], "venue": "ICLR 2024 Poster"}},
             {"id": "bad", "content": {"title": {"value": 3}}}, "junk"]
    result = openreview_venue.parse_notes(notes, "u", venue="ICLR", year=2024)
    assert [r.title for r in result.records] == ["T one"] and result.records[0].status == "poster"
    assert [p.line for p in result.problems] == [2, 3]


@pytest.mark.parametrize("body, why", [(b"{", "not JSON"), (b'{"count": 3}', 'no "notes" list'),
                                       (b"\xff", "not JSON")])
def test_openreview_bad_page_names_the_url(body, why):
    with pytest.raises(InputFileError, match=rf"^http://h/notes\?a=1(:\d+)?: not an OpenReview notes page.*{why}"):
        openreview_venue.notes_of(body, "http://h/notes?a=1")


def test_cvf_listing_and_pages():
    papers = _corpus("wacv2024:", 5)
    papers[1] = {**papers[1], "arxiv": "2311.00180", "title": papers[1]["title"] + " & <More>"}
    site = cvf_site(papers, "WACV2024")
    listed = cvf.parse_listing(site["/WACV2024?day=all"], "u")
    assert [p.title for p in listed] == [p["title"] for p in papers]
    assert [p.authors for p in listed] == [p["authors"] for p in papers]
    assert listed[1].arxiv == "http://arxiv.org/abs/2311.00180" and listed[0].arxiv == ""
    assert listed[0].pdf.endswith("_paper.pdf") and listed[0].supp.endswith("_supp.pdf")
    abstract = cvf.parse_abstract(site[listed[0].page], "u")
    assert abstract == " ".join(papers[0]["abstract"].split())
    rec = cvf.record(listed[1], abstract, venue="WACV", year=2024)
    assert rec.arxiv == "2311.00180" and rec.url.startswith("https://openaccess.thecvf.com/content/WACV2024/html/")
    assert rec.links[1].startswith("https://openaccess.thecvf.com/content/WACV2024/papers/")


def test_cvf_plain_text_authors_and_entities():
    body = b"""<dl><dt class="ptitle"><br><a href="/content/CVPR2024/html/X_paper.html">A &amp; B</a></dt>
<dd>Ann Author, Bob Builder</dd><dd>[<a href="/content/CVPR2024/papers/X_paper.pdf">pdf</a>]</dd></dl>"""
    paper, = cvf.parse_listing(body, "u")
    assert (paper.title, paper.authors) == ("A & B", ["Ann Author", "Bob Builder"])
    page = b'<div id="abstract">\n  We use &quot;quotes&quot; <div>and nested</div> text in an abstract.\n</div><div>x</div>'
    assert cvf.parse_abstract(page, "u") == 'We use "quotes" and nested text in an abstract.'
    assert cvf.parse_abstract(b'<div id="papertitle">Broken</div>', "u") == ""


def test_cvf_page_without_papers_names_the_url():
    with pytest.raises(InputFileError, match=r"^http://h/CVPR2020\?day=all: no papers on this page"):
        cvf.parse_listing(b"<html><body>no papers here</body></html>", "http://h/CVPR2020?day=all")

"""BibTeX importer (bibtexparser) on fixtures and the real .bib files."""

from __future__ import annotations

import pytest

from reader.importers import parse_file
from reader.importers.fields import NO_ABSTRACT

from .helpers import ABSTRACT, CORPORA, corpus, write


def test_bibtex_fixture(tmp_path):
    text = (
        "% comment\n@string{jmlr = \"Journal of {ML} Research\"}\n"
        "@Article{a1,\n  title = {The {B}ayesian M\\\"{o}del of $\\ell_1$},\n"
        "  author = {M\\\"ollenhoff, Thomas and van der Berg, Jr, Jan and Ann Lee},\n"
        f"  journal = jmlr,\n  year = 2016,\n  abstract = {{{ABSTRACT} Caf\\'e.}},\n"
        "  doi = {10.5/y}, eprint = {1234.5678}, archivePrefix = {arXiv}\n}\n}\n"
        "@inproceedings{broken,\n  title = {Oops {unbalanced},\n  abstract = {x}\n}\n\n"
        "@misc{none, title = {No abstract}}\n"
    )
    result = parse_file(write(tmp_path, "refs.bib", text))
    assert result.format == "bibtex"
    rec, bare = result.records
    assert (bare.title, bare.abstract, bare.citation_key) == ("No abstract", "", "none")  # kept, title-only
    assert rec.citation_key == "a1" and rec.doi == "10.5/y" and rec.arxiv == "1234.5678"
    assert rec.title == "The Bayesian Mödel of $\\ell_1$"
    assert rec.authors == ["Thomas Möllenhoff", "Jan van der Berg Jr", "Ann Lee"]
    assert (rec.venue, rec.year, rec.line) == ("Journal of ML Research", 2016, 3)
    assert rec.abstract == f"{ABSTRACT} Café."
    assert rec.links == ["https://doi.org/10.5/y", "https://arxiv.org/abs/1234.5678"]
    (problem,) = result.problems
    assert (problem.line, problem.key, problem.cause) == (12, "broken", "unbalanced brace or quote")
    assert str(problem) == "line 12 (broken): unbalanced brace or quote in its title"


@pytest.mark.corpus
def test_real_bibtex_pmlr():
    result = parse_file(corpus(CORPORA / "bibtex" / "pmlr_v84_aistats2018.bib"))
    assert result.format == "bibtex"
    assert len(result.records) == 216 and result.problems == []  # despite the stray "}"
    assert all(r.venue == "AISTATS" and r.year == 2018 for r in result.records)
    assert any("Möllenhoff" in a for r in result.records for a in r.authors)
    assert any("$" in r.abstract for r in result.records)  # math kept as LaTeX source
    assert any(r.title.startswith("Growth-Optimal Portfolio") for r in result.records)


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "min_records"),
    [("pmlr_v54_aistats2017.bib", 167), ("bbt_papers3_user_library_issue1296.bib", 1250),
     ("bbt_jabref_user_library_issue97.bib", 450), ("bbt_mendeley_user_export.bib", 300)],
)
def test_real_bibtex_user_libraries(name, min_records):
    result = parse_file(corpus(CORPORA / "bibtex" / name))
    assert len(result.records) >= min_records
    assert not any("\\\"" in a or "{" in a for r in result.records for a in r.authors)
    skipped = [p for p in result.problems if p.reason != NO_ABSTRACT]
    assert len(skipped) <= 30  # genuinely malformed entries only

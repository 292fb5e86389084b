"""RIS importer (rispy) on fixtures and the real RIS/WoS exports."""

from __future__ import annotations

import pytest

from reader.importers import parse_file

from .helpers import ABSTRACT, ABSTRACT2, CORPORA, corpus, write


def test_ris_fixture(tmp_path):
    text = (
        "1.\nTY  - JOUR\nTI  - A RIS title\nAU  - Lee, Ann\nA1  - Chen, Bo\nPY  - 2019///\n"
        f"JO  - Journal X\nAB  - {ABSTRACT}\nsecond paragraph\nDO  - 10.1/x\nUR  - file:///local.pdf\n"
        "ER  -\n\nTY  - JOUR\nTI  - No abstract\nER  - \n"
        f"TY  - JOUR\nTI  - Cut off\nAB  - {ABSTRACT2}\n"
    )
    result = parse_file(write(tmp_path, "x.txt", text))
    assert result.format == "ris"
    rec, bare = result.records
    assert (bare.title, bare.abstract, bare.line) == ("No abstract", "", 14)
    assert (rec.title, rec.authors, rec.year, rec.venue, rec.line) == (
        "A RIS title", ["Lee, Ann", "Chen, Bo"], 2019, "Journal X", 2)
    assert rec.abstract == f"{ABSTRACT}\nsecond paragraph"
    assert rec.links == ["https://doi.org/10.1/x"]
    assert [(p.line, p.reason) for p in result.problems] == [
        (17, "record not closed with ER (truncated file?)")]


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "count"),
    [("asreview_baseline.ris", 100), ("asreview_baseline_zotero.ris", 100),
     ("asreview_scopus.ris", 6), ("asreview_embase.ris", 6), ("asreview_ovid_psycinfo.ris", 6),
     ("asreview_proquest.ris", 6), ("asreview_pubmed_zotero.ris", 6),
     ("asreview_web_of_science.txt", 10)],
)
def test_real_ris(name, count):
    result = parse_file(corpus(CORPORA / "ris_csl" / name))
    assert result.format == "ris"
    assert len(result.records) == count
    assert result.problems == []  # the two without an abstract are title-only papers
    assert all(r.title and r.authors and r.year for r in result.records)


def test_id_is_a_citation_key_only_when_it_looks_like_one() -> None:
    from reader.importers.ris import parse_ris

    abstract = "AB  - An abstract long enough to be kept by the importer.\n"
    text = "".join(f"TY  - JOUR\nID  - {ident}\nTI  - T{n}\n{abstract.replace('An', f'An {n}')}ER  - \n\n"
                   for n, ident in enumerate(["vaswani2017attention", "000-463-679-101-319", "2019-65183-001"]))
    keys = [r.citation_key for r in parse_ris(text, "x.ris").records]
    assert keys == ["vaswani2017attention", None, None]

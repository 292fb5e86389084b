"""BibTeX, CSL-JSON and RIS exports read back by independent parsers: the seeds, 2,000 corpus
papers and the real BibTeX libraries; every paper comes back with its title, authors, year,
DOI and key (bibtexparser 2 and pybtex; citeproc-py renders the CSL-JSON; rispy reads the RIS).
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from urllib.parse import unquote

import pytest

from reader import importers
from reader.exporters.citations import doi_of
from reader.library import Library
from reader.models import ExportKind, Paper
from tests.importers.helpers import CORPORA

from .readback import (
    bibtexparser_entries,
    person_text,
    plain,
    pybtex_entries,
    rendered_bibliography,
    ris_name_text,
    rispy_entries,
    split_authors,
    stored_name,
    unlatex,
)

CORPUS = CORPORA / "ml_conference_corpus" / "papers.jsonl"
BIB_LIBRARIES = sorted((CORPORA / "bibtex").glob("*.bib"))
CORPUS_PAPERS = 2000
RENDERED = 10  # citeproc-py renders every 10th item (all of them: ~10 minutes on 2 cores)
pytestmark = pytest.mark.corpus
CSL_TYPES = {"article", "article-journal", "paper-conference", "chapter", "book", "thesis", "report",
             "manuscript"}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    if not CORPUS.exists() or not BIB_LIBRARIES:
        pytest.skip("shared corpus not available")
    root = tmp_path_factory.mktemp("cite")
    subset = root / "corpus.jsonl"
    with CORPUS.open(encoding="utf-8") as src:
        subset.write_text("".join(islice(src, CORPUS_PAPERS)), encoding="utf-8")
    lib = Library.open(root / "lib")  # the seeds
    lib.import_files([subset, *BIB_LIBRARIES], index=False)
    yield lib
    lib.close()


@pytest.fixture(scope="module")
def papers(library: Library) -> dict[str, Paper]:
    return {p.citation_key: p for p in library.papers(library.paper_ids(descending=False))}


@pytest.fixture(scope="module")
def exported(library: Library, tmp_path_factory: pytest.TempPathFactory) -> dict[ExportKind, str]:
    out = tmp_path_factory.mktemp("out")
    texts = {}
    for kind, name in ((ExportKind.BIBTEX, "a.bib"), (ExportKind.CSLJSON, "a.json"), (ExportKind.RIS, "a.ris")):
        count = library.export_citations(out / name, None, kind)
        assert count == library.counts().total
        texts[kind] = (out / name).read_text(encoding="utf-8")
    return texts


def test_the_library_holds_what_the_round_trips_read(papers: dict[str, Paper]) -> None:
    # 56 seeds + 2,000 corpus papers + the BibTeX libraries' entries with an abstract.
    assert len(papers) > 4000
    assert all(papers)  # every paper has a key; the dict would have merged duplicates
    print(f"\n{len(papers):,} papers; {sum(1 for p in papers.values() if doi_of(p)):,} with a DOI")


def test_bibtexparser_reads_every_entry_back(papers: dict[str, Paper], exported: dict[ExportKind, str]) -> None:
    entries, failed = bibtexparser_entries(exported[ExportKind.BIBTEX])
    assert failed == []
    assert len(entries) == len(papers)
    assert len({e.key.casefold() for e in entries}) == len(entries)
    for entry in entries:
        paper = papers[entry.key]
        fields = entry.fields_dict
        assert unlatex(fields["title"].value) == plain(paper.title), entry.key
        # A title-only paper's entry has no abstract field.
        assert (unlatex(fields["abstract"].value) if "abstract" in fields else "") == plain(paper.abstract), entry.key
        names = split_authors(fields["author"].value) if "author" in fields else []
        assert len(names) == len([a for a in paper.authors if a.strip()]), entry.key
        assert ("year" in fields and int(fields["year"].value)) == (paper.year or False)
        # BibTeX's doi is percent-encoded where a brace or backslash would break it.
        assert unquote(fields["doi"].value if "doi" in fields else "") == doi_of(paper)


def test_pybtex_reads_every_entry_back(papers: dict[str, Paper], exported: dict[ExportKind, str]) -> None:
    entries = pybtex_entries(exported[ExportKind.BIBTEX])
    assert len(entries) == len(papers)
    for key, entry in entries.items():
        paper = papers[key]
        assert unlatex(entry.fields["title"]) == plain(paper.title), key
        assert [person_text(p) for p in entry.persons.get("author", [])] == [
            stored_name(a) for a in paper.authors if a.strip()], key
        assert entry.fields.get("year", "") == str(paper.year or "")
        assert unquote(entry.fields.get("doi", "")) == doi_of(paper)


def test_csljson_is_schema_shaped_and_citeproc_renders_it(papers: dict[str, Paper],
                                                         exported: dict[ExportKind, str]) -> None:
    items = json.loads(exported[ExportKind.CSLJSON])
    assert len(items) == len(papers) and len({i["id"] for i in items}) == len(items)
    for item in items:
        paper = papers[item["id"]]
        assert item["type"] in CSL_TYPES and item["title"] == paper.title
        assert item.get("issued", {}).get("date-parts", [[None]])[0][0] == paper.year
        assert item.get("DOI", "") == doi_of(paper)
        for name in item.get("author", []):
            assert set(name) <= {"family", "given", "literal", "non-dropping-particle", "suffix"}
            assert all(isinstance(v, str) and v for v in name.values())
        assert len(item.get("author", [])) == len([a for a in paper.authors if a.strip()])
    sample = items[::RENDERED]
    rendered = rendered_bibliography(sample)
    assert len(rendered) == len(sample) and all(rendered)
    print(f"\ncitation keys unique: {len(items):,}; citeproc-py rendered {len(rendered):,} entries")


def test_rispy_reads_every_record_back(papers: dict[str, Paper], exported: dict[ExportKind, str]) -> None:
    records = rispy_entries(exported[ExportKind.RIS])
    assert len(records) == len(papers)
    for record in records:
        paper = papers[record["id"]]
        assert plain(record.get("title", "")) == plain(paper.title)
        assert plain(record.get("abstract", "")) == plain(paper.abstract)
        assert [ris_name_text(a) for a in record.get("authors", [])] == [
            stored_name(a) for a in paper.authors if a.strip()]
        assert record.get("year", "") == str(paper.year or "")
        assert record.get("doi", "") == doi_of(paper)


def test_exports_are_stable_and_a_reimport_keeps_keys(library: Library, exported: dict[ExportKind, str],
                                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    again = tmp_path / "again.bib"
    library.export_citations(again, None, ExportKind.BIBTEX)
    assert again.read_text(encoding="utf-8") == exported[ExportKind.BIBTEX]
    # The file is parsed once (its LaTeX costs ~10 s CPU); each library stores its own copy.
    parsed = importers.parse_file(again)
    frozen = pickle.dumps(parsed)
    monkeypatch.setattr(importers, "parse_file", lambda path: pickle.loads(frozen))
    before = library.counts().total
    [summary] = library.import_files([again], index=False)
    assert summary.new == 0 and library.counts().total == before
    fresh = Library.open(tmp_path / "fresh", seed_if_empty=False)
    try:
        fresh.import_files([again], index=False)
        # The same papers under the same keys. (Internal ids may differ: a title-only paper's
        # id names its first entry, and one filled later by a duplicate keeps it.)
        mine = {p.citation_key: (p.title, p.year, " ".join(p.abstract.split()))
                for p in library.papers(library.paper_ids())}
        theirs = {p.citation_key: (p.title, p.year, " ".join(p.abstract.split()))
                  for p in fresh.papers(fresh.paper_ids())}
        assert theirs == mine
    finally:
        fresh.close()

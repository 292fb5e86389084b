"""Identity and duplicates (issue 18 item 4): DOI, arXiv id, abstract + compatible titles,
title + first author + year; merges fill what the stored paper lacks and keep the user's work."""

from __future__ import annotations

import json

from reader.identity import Keys, Matcher, arxiv_key, doi_key, first_author_key, titles_agree
from reader.models import Record

BOOK = "This edited volume brings together essays on the history of optics and the physics of light. " * 2


def _bib(tmp_path, name: str, entries: list[str]):
    path = tmp_path / name
    path.write_text("\n".join(entries), encoding="utf-8")
    return path


def _entry(key: str, title: str | None = None, abstract: str | None = None, **fields: str) -> str:
    body = {**({"title": title} if title else {}), **({"abstract": abstract} if abstract else {}), **fields}
    return f"@incollection{{{key},\n" + ",\n".join(f"  {k} = {{{v}}}" for k, v in body.items()) + "\n}\n"


def test_keys_are_found_in_fields_and_links():
    assert doi_key("https://doi.org/10.1145/ABC.123") == "10.1145/abc.123"
    assert doi_key("doi:10.5/x.") == "10.5/x"
    assert arxiv_key("https://arxiv.org/abs/1706.03762v5") == "1706.03762"
    assert arxiv_key("10.48550/arXiv.2101.00001") == "2101.00001"
    assert arxiv_key("hep-th/9901001") == "hep-th/9901001"
    assert first_author_key(["Vaswani, Ashish"]) == first_author_key(["Ashish Vaswani"]) == "vaswani"
    rec = Record(abstract="", title="A Paper", links=["https://doi.org/10.1/z", "https://arxiv.org/abs/2101.00001"])
    keys = Keys.of(rec)
    assert (keys.doi, keys.arxiv, keys.abstract) == ("10.1/z", "2101.00001", "")


def test_a_shared_doi_with_unrelated_titles_is_two_papers():
    # A book's DOI pasted on its chapters, or on the wrong entry: the titles tell them apart.
    assert titles_agree("tangible bots interaction with active tangibles", "tangible bots")
    assert not titles_agree("herd behavior in purchasing books online", "the art of book reviewing")
    m = Matcher()
    m.add("a", Keys.of(Record(abstract="", title="Herd behavior in purchasing books online", doi="10.1/x")))
    assert m.find(Keys.of(Record(abstract="", title="The Art of Book Reviewing", doi="10.1/x"))) is None
    assert m.find(Keys.of(Record(abstract="", title="Herd Behavior in Purchasing Books Online.",
                                 doi="https://doi.org/10.1/X"))) == "a"


def test_book_chapters_sharing_an_abstract_stay_apart(bare_lib, tmp_path):
    chapters = [_entry(f"ch{i}", f"Chapter {i}: {topic}", BOOK, author=f"Author{i}, A.", year="1999")
                for i, topic in enumerate(["Lenses", "Mirrors", "Prisms", "Waves", "Colour"], 1)]
    seedlike = _entry("book", None, BOOK)  # the abstract alone (no real title): the same book
    [s] = bare_lib.import_files([_bib(tmp_path, "book.bib", [*chapters, seedlike])], index=False)
    assert (s.new, s.duplicates) == (5, 1)
    titles = sorted(bare_lib.paper(pid).title for pid in s.new_ids)
    assert titles == [f"Chapter {i}: {t}" for i, t in
                      enumerate(["Lenses", "Mirrors", "Prisms", "Waves", "Colour"], 1)]
    assert len(set(s.new_ids)) == 5
    # Importing the same file again adds nothing.
    [again] = bare_lib.import_files([_bib(tmp_path, "book.bib", [*chapters, seedlike])], index=False)
    assert (again.new, again.duplicates) == (0, 6)


def test_a_duplicate_fills_what_the_stored_paper_lacks_and_keeps_the_users_work(bare_lib, tmp_path):
    [s] = bare_lib.import_files([_bib(tmp_path, "a.bib", [_entry("k", "Attention Is All You Need",
                                                             doi="10.5555/3295222")])], index=False)
    (pid,) = s.new_ids
    bare_lib.set_starred([pid], True)
    bare_lib.add_tags([pid], ["nlp"])
    bare_lib.set_note(pid, "read this")
    abstract = "The dominant sequence transduction models are based on complex recurrent networks."
    later = _entry("vaswani2017", "Attention is all you need", abstract, doi="https://doi.org/10.5555/3295222",
                   author="Vaswani, Ashish", year="2017", journal="NeurIPS")
    [d] = bare_lib.import_files([_bib(tmp_path, "b.bib", [later])], index=False)
    assert (d.new, d.duplicates, d.merged) == (0, 1, 1)
    paper = bare_lib.paper(pid)
    assert paper.abstract == abstract and paper.year == 2017 and paper.venue == "NeurIPS"
    assert paper.authors == ["Ashish Vaswani"] and paper.title == "Attention Is All You Need"
    assert paper.starred and paper.tags == ["nlp"] and paper.note == "read this"
    assert sorted(paper.collections) == ["a", "b"] and paper.sources == ["a.bib", "b.bib"]


def test_title_first_author_and_year_match_without_doi(bare_lib, tmp_path):
    one = _entry("x1", "Deep Residual Learning", "Deeper neural networks are more difficult to train. " * 2,
                 author="He, Kaiming and Zhang, X", year="2016")
    two = _entry("x2", "Deep residual learning.", "A different abstract text from another database export.",
                 author="Kaiming He", year="2016")
    other_year = _entry("x3", "Deep residual learning", author="He, Kaiming", year="2015")
    [s] = bare_lib.import_files([_bib(tmp_path, "r.bib", [one, two, other_year])], index=False)
    assert (s.new, s.duplicates) == (2, 1)


def test_title_only_entries_without_author_or_year_are_kept_apart_by_key(bare_lib, tmp_path):
    a, b = _entry("intro1", "Introduction"), _entry("intro2", "Introduction")
    [s] = bare_lib.import_files([_bib(tmp_path, "t.bib", [a, b])], index=False)
    assert (s.new, s.duplicates, s.without_abstract) == (2, 0, 2)
    [again] = bare_lib.import_files([_bib(tmp_path, "t.bib", [a, b])], index=False)
    assert (again.new, again.duplicates) == (0, 2)


def test_arxiv_id_matches_across_formats(bare_lib, tmp_path):
    bib = _entry("p", "Some Preprint", eprint="2101.00001", archiveprefix="arXiv")
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text(json.dumps({"title": "Some preprint (v2)", "url": "https://arxiv.org/abs/2101.00001v2",
                                 "abstract": "An abstract long enough to be one, about preprints."}) + "\n")
    [a] = bare_lib.import_files([_bib(tmp_path, "p.bib", [bib])], index=False)
    [b] = bare_lib.import_files([jsonl], index=False)
    assert (a.new, b.new, b.duplicates) == (1, 0, 1)
    assert bare_lib.paper(a.new_ids[0]).abstract.startswith("An abstract long enough")


def test_same_title_author_year_with_different_dois_are_two_publications(bare_lib, tmp_path):
    # asreview_baseline.ris: a conference abstract (JVIR) and the PLoS ONE article of one title.
    a = _entry("a", "The effect of angiotensin II", author="van den Hoven, A.", year="2014", doi="10.1016/j.jvir.1")
    b = _entry("b", "The effect of angiotensin II.", author="van den Hoven, Andor", year="2014",
               doi="10.1371/journal.pone.2")
    c = _entry("c", "The Effect of Angiotensin II", author="A. van den Hoven", year="2014")
    [s] = bare_lib.import_files([_bib(tmp_path, "t.bib", [a, b, c])], index=False)
    assert (s.new, s.duplicates) == (2, 1)


def test_reader_export_read_back_is_the_same_papers(bare_lib, tmp_path):
    """Title-only entries without authors, year or DOI (web pages, tweets) are known again by
    their citation key and title when Reader's own BibTeX export comes back; a percent-encoded
    DOI is the DOI."""
    from reader.models import ExportKind

    assert doi_key("10.1061/x:doi%5C:10.1/y") == doi_key("10.1061/x:doi\\:10.1/y")
    src = _bib(tmp_path, "web.bib", [
        _entry("web1", "Canceling | ContraPoints - YouTube"),
        _entry("web2", "Canceling | ContraPoints - YouTube", howpublished="elsewhere"),  # a repeat
        _entry("web3", "Spatial Ability in Learning Engineering Mechanics", doi="10.1061/a:doi\\\\:10.1/b"),
    ])
    bare_lib.import_files([src], index=False)
    before = sorted(bare_lib.paper_ids())
    out = tmp_path / "out.bib"
    bare_lib.export_citations(out, None, ExportKind.BIBTEX)
    [summary] = bare_lib.import_files([out], index=False)
    assert summary.new == 0 and sorted(bare_lib.paper_ids()) == before
    # Another paper under a reused key but another title stays apart.
    key = bare_lib.papers(before)[0].citation_key
    [other] = bare_lib.import_files([_bib(tmp_path, "other.bib", [_entry(key, "A Different Page")])], index=False)
    assert other.new == 1

"""A folder given to import stands for its paper files: a README, notes or a script beside the
exports are passed over, and the summary says how many."""

from __future__ import annotations

from reader.importers.folders import paper_files
from reader.library import summarize

from .helpers import ABSTRACT, ABSTRACT2, CORPORA, corpus, write

RIS = f"TY  - JOUR\nTI  - A paper\nAB  - {ABSTRACT}\nPY  - 2020\nER  - \n"
SEED = f"ICML 2025 Papers\n\n{ABSTRACT2}\n"
README = "Exports of my library\n=====================\nThe .ris files come from Zotero; see notes.md.\n"


def _folder(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    write(folder, "zotero.ris", RIS)
    write(folder, "icml.txt", SEED)  # plain text with a "VENUE YEAR" header: seed abstracts
    write(folder, "README.txt", README)  # plain text that no format recognises
    write(folder, "notes.md", "# notes\n")
    write(folder, "convert.py", "print('hi')\n")
    (folder / "old").mkdir()
    write(folder / "old", "more.ris", RIS)  # sub-folders are not looked into
    return folder


def test_a_folder_takes_only_its_paper_files(tmp_path):
    folder = _folder(tmp_path)
    taken, passed = paper_files(folder)
    assert [p.name for p in taken] == ["icml.txt", "zotero.ris"]
    assert passed == ["README.txt", "convert.py", "notes.md", "old/"]


def test_importing_a_folder_says_how_many_files_it_passed_over(bare_lib, tmp_path):
    folder = _folder(tmp_path)
    summaries = bare_lib.import_files([folder], index=False)
    note, *files = summaries
    assert note.describe() == (f"{folder}: passed over 4 files that are not paper files "
                               "(README.txt, convert.py, notes.md, old/)")
    assert [s.path.rsplit("/", 1)[1] for s in files] == ["icml.txt", "zotero.ris"]
    assert [s.error for s in files] == [None, None] and sum(s.new for s in files) == 2
    assert not any("Exports of my library" in p.abstract for p in bare_lib.papers(bare_lib.paper_ids()))
    assert summarize(summaries).endswith(", 0 files refused, 4 passed over")
    from reader.ui.dialogs.common import import_summary_text  # the window's summary box

    text = import_summary_text(summaries)
    assert text.startswith("Imported 2 new papers (0 duplicates) from 2 files.\n• ")
    assert "passed over 4 files that are not paper files" in text


def test_a_folder_without_paper_files_is_refused_in_one_line(bare_lib, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, "README.txt", README)
    [summary] = bare_lib.import_files([folder], index=False)
    assert summary.error == f"{folder}: no paper files in this folder (passed over 1 file)"
    assert bare_lib.paper_ids() == []


def test_the_ris_csl_corpus_folder_leaves_its_readme_out(bare_lib):
    folder = corpus(CORPORA / "ris_csl")
    taken, passed = paper_files(folder)
    assert passed == ["README.txt"]
    assert "asreview_web_of_science.txt" in [p.name for p in taken]  # tagged text, recognised by content

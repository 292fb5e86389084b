"""Real user libraries import whole and tidy (issue 18 acceptance, import half): every entry
with a title is a paper (counted against an independent parse), ≤ 10 output lines per file,
collections = the files + their groups, venues folded. Prints the figures (pytest -s)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import bibtexparser
import pytest
import rispy

from reader.cli import run as main
from reader.identity import title_key
from reader.import_report import file_lines
from reader.importers.bibtex import latex_to_text
from reader.library import Library

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
LIBRARIES = ["bbt_papers3_user_library_issue1296.bib", "bbt_jabref_user_library_issue97.bib",
             "bbt_mendeley_user_export.bib"]
RIS = ["asreview_baseline.ris", "asreview_baseline_zotero.ris", "asreview_embase.ris",
       "asreview_ovid_psycinfo.ris", "asreview_proquest.ris", "asreview_pubmed_zotero.ris",
       "asreview_scopus.ris"]

pytestmark = pytest.mark.corpus


def _path(folder: str, name: str) -> Path:
    path = CORPORA / folder / name
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    return path


def _bib_titles(path: Path) -> tuple[int, list[str]]:
    """(entries bibtexparser reads or fails on, folded titles of those it reads with a title):
    an independent parse."""
    lib = bibtexparser.parse_file(str(path))
    titles = []
    for entry in lib.entries:
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        if entry.entry_type.lower() not in ("proceedings",) and fields.get("title", "").strip():
            value = fields["title"].strip()
            if value[:1] == "{" and value[-1:] == "}" or value[:1] == '"' and value[-1:] == '"':
                value = value[1:-1]  # the delimiters bibtexparser 2 leaves on
            titles.append(title_key(latex_to_text(value)))
    return len(lib.entries) + len(lib.failed_blocks), titles


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    paths = [_path("bibtex", n) for n in LIBRARIES]
    lib = Library.open(tmp_path_factory.mktemp("lib"), seed_if_empty=False)
    summaries = lib.import_files(paths, index=False)
    yield lib, summaries
    lib.close()


@pytest.mark.parametrize("name", LIBRARIES)
def test_every_entry_with_a_title_is_a_paper(imported, name):
    lib, summaries = imported
    s = next(x for x in summaries if x.path.endswith(name))
    parsed, titles = _bib_titles(_path("bibtex", name))
    stored = {title_key(p.title) for p in lib.papers(lib.paper_ids())}
    missing = [t for t in titles if t not in stored]
    print(f"\n{name}: bibtexparser {parsed} entry blocks ({len(titles)} read with a title); {s.entries} "
          f"entries, {s.new} new, {s.duplicates} duplicates, {s.without_abstract} without abstract, "
          f"{len(s.skipped)} rejected")
    # A title not stored is a duplicate's ("Make It Stand" kept, "Make It Stand: Balancing
    # Shapes for 3D Fabrication" of the same DOI merged into it).
    assert len(missing) <= s.duplicates
    assert s.entries == parsed and s.new + s.duplicates + len(s.skipped) == s.entries
    assert all(p.reason == "no title and no abstract" for p in s.skipped)


def test_collections_are_the_files_and_their_groups_and_venues_are_folded(imported):
    lib, _ = imported
    names = [n for n, _ in lib.collections()]
    stems = {Path(n).stem for n in LIBRARIES}
    jabref = "bbt_jabref_user_library_issue97"
    assert set(names) == stems | {f"{jabref} › Cu2O", f"{jabref} › CuO"}
    raw = {p.venue for p in lib.papers(lib.paper_ids()) if p.venue}
    venues = lib.venues()
    print(f"\ncollections: {len(names)}; venues: {len(raw)} spellings before, {len(venues)} after; "
          f"top: {[(v.name, v.count) for v in venues[:5]]}")
    assert len(venues) < 0.75 * len(raw)
    chi = next(v for v in venues if v.name == "CHI")
    assert chi.count > 500  # "CHI '15: Proceedings of the 33rd Annual ACM Conference ..." and kin
    assert len(lib.paper_ids(lib_view("venue", chi.key))) == chi.count


def lib_view(kind: str, value: str):
    from reader.library import View

    return View(kind, value)


def test_reimport_adds_nothing(imported):
    lib, _ = imported
    again = lib.import_files([_path("bibtex", n) for n in LIBRARIES], index=False)
    assert [s.new for s in again] == [0, 0, 0]


@pytest.mark.parametrize("name", LIBRARIES)
def test_output_is_at_most_ten_lines_per_file(imported, name):
    _, summaries = imported
    s = next(x for x in summaries if x.path.endswith(name))
    lines = file_lines(s)
    print(f"\n{name}: {len(lines)} lines\n" + "\n".join(lines))
    assert 1 <= len(lines) <= 10


def test_the_cli_prints_the_summary_and_lists_all_with_verbose(tmp_path):
    path = _path("bibtex", LIBRARIES[1])
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["--data-dir", str(tmp_path), "import", str(path)]) == 0
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # the summary and one cause (its year 1890 is taken since years from 1000 are)
    assert lines[0].startswith(f"{path}: 911 entries: 901 new, 0 duplicates, 442 without abstract, 10 rejected")
    with contextlib.redirect_stdout(io.StringIO()) as verbose:
        main(["--data-dir", str(tmp_path), "import", "--verbose", str(path)])
    assert len(verbose.getvalue().splitlines()) == 1 + 1 + 10  # the line, the cause and its 10


@pytest.mark.parametrize("name", RIS)
def test_ris_exports_keep_every_record(tmp_path, name):
    path = _path("ris_csl", name)
    with path.open(encoding="utf-8-sig") as f:
        expected = len(rispy.load(f))
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    try:
        [s] = lib.import_files([path], index=False)
        stored = len(lib.paper_ids())
    finally:
        lib.close()
    print(f"\n{name}: rispy {expected}, stored {stored}, {s.duplicates} duplicates, "
          f"{s.without_abstract} without abstract, {len(s.skipped)} rejected")
    assert s.entries == expected and stored == expected - s.duplicates and s.skipped == []

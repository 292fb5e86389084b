"""A NUL or another control character in a note or title never costs a paper (issue 30): notes and
titles are stored without them from every entry point, Reader's own backup restores every paper
(even one an older Reader stored with a NUL), and BibTeX/RIS exports hold none, so they import back."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reader.cli import run
from reader.library import Library

CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
NOTE = "my note with a nul\x00byte, a bell\x07 and an escape\x1b[0m; a } brace"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    with Library.open(folder) as lib:  # the 56 seed papers
        pid = lib.paper_ids()[0]
        lib.set_starred([pid], True)
        lib.add_tags([pid], ["kept"])
    return folder


def _legacy_nul(root: Path) -> str:
    """A note and a title holding a NUL, as an older Reader stored them (straight into SQLite)."""
    import sqlite3

    with Library.open(root) as lib:
        pid = lib.paper_ids()[0]
        lib.set_note(pid, "placeholder")
    conn = sqlite3.connect(root / "library.sqlite3")
    with conn:
        conn.execute("UPDATE notes SET body = ? WHERE paper_id = ?", [NOTE, pid])
        conn.execute("UPDATE papers SET title = ?, title_source = 'edited' WHERE id = ?", ["nul\x00title }", pid])
    conn.close()
    return pid


def test_notes_and_titles_are_stored_without_control_characters(root: Path, tmp_path: Path) -> None:
    note_file = tmp_path / "note.md"
    note_file.write_bytes(NOTE.encode())
    with Library.open(root) as lib:
        pid = lib.paper_ids()[0]
    assert run(["--data-dir", str(root), "note", pid, "--file", str(note_file)]) == 0
    assert run(["--data-dir", str(root), "title", pid, "A\x01 title\x00 here"]) == 0
    with Library.open(root) as lib:
        [paper] = lib.papers([pid])
    assert paper.note == "my note with a nulbyte, a bell and an escape[0m; a } brace"
    assert paper.title == "A title here"


def test_the_json_backup_restores_every_paper_even_one_stored_with_a_nul(root: Path, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    pid = _legacy_nul(root)
    backup = tmp_path / "backup.json"
    assert run(["--data-dir", str(root), "export", "json", str(backup)]) == 0
    capsys.readouterr()
    restored = tmp_path / "restored"
    assert run(["--data-dir", str(restored), "import", str(backup)]) == 0
    assert "56 new, 0 duplicates, 0 rejected" in capsys.readouterr().out  # was "55 new ... 1 rejected", exit 0
    with Library.open(restored, seed_if_empty=False) as lib:
        [paper] = lib.papers([pid])
    assert paper.starred and paper.tags == ["kept"]
    assert paper.note == "my note with a nulbyte, a bell and an escape[0m; a } brace"
    assert paper.title == "nultitle }"


def test_a_backup_that_loses_a_paper_exits_non_zero(root: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    backup = tmp_path / "backup.json"
    assert run(["--data-dir", str(root), "export", "json", str(backup)]) == 0
    data = json.loads(backup.read_text())
    data["papers"][3]["abstract"] = "broken\x00abstract"  # cannot be stored: rejected
    backup.write_text(json.dumps(data))
    capsys.readouterr()
    assert run(["--data-dir", str(tmp_path / "other"), "import", str(backup)]) == 1
    assert "1 rejected" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["bibtex", "ris", "csljson"])
def test_citation_exports_hold_no_control_character_and_import_back(root: Path, tmp_path: Path, kind: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    pid = _legacy_nul(root)
    out = tmp_path / f"all.{kind}"
    assert run(["--data-dir", str(root), "export", kind, "--with-notes", str(out)]) == 0  # crashed on the NUL
    text = out.read_text(encoding="utf-8")
    assert not CONTROLS.search(text)
    assert "nul\\textbrace" not in text  # the NUL posed as a brace marker: "nul\textbraceright{}yte"
    if kind == "bibtex":
        assert "my note with a nulbyte, a bell and an escape" in text
    capsys.readouterr()
    again = tmp_path / "again"
    assert run(["--data-dir", str(again), "import", str(out)]) == 0  # was "binary file, not text"
    assert "56 new, 0 duplicates" in capsys.readouterr().out
    with Library.open(again, seed_if_empty=False) as lib:
        assert len(lib.paper_ids()) == 56
    assert pid


@pytest.mark.parametrize("kind", ["bibtex", "ris"])
def test_an_abstract_with_a_stray_control_character_round_trips(tmp_path: Path, kind: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # A real abstract read from a PDF: "300\x08C" (a degree sign lost). It is the paper's identity, so
    # exports keep it; Reader's own file was then refused on re-import as "binary file, not text".
    abstract = ("Copper oxide nanowires grown from 300\x08C to 900\x08C in air were studied by electron "
                "microscopy and X-ray diffraction, showing a bicrystal structure of each nanowire.")
    source = tmp_path / "one.jsonl"
    source.write_text(json.dumps({"title": "CuO nanowires", "abstract": abstract, "year": 2004}) + "\n")
    first, second = tmp_path / "first", tmp_path / "second"
    assert run(["--data-dir", str(first), "import", str(source)]) == 0
    out = tmp_path / f"one.{kind}"
    assert run(["--data-dir", str(first), "export", kind, str(out)]) == 0
    capsys.readouterr()
    assert run(["--data-dir", str(second), "import", str(out)]) == 0
    assert "0 rejected" in capsys.readouterr().out
    with Library.open(first, seed_if_empty=False) as a, Library.open(second, seed_if_empty=False) as b:
        mine = [" ".join(p.abstract.split()) for p in a.papers(a.paper_ids())]
        theirs = [" ".join(p.abstract.split()) for p in b.papers(b.paper_ids())]
        assert theirs == mine and "\x08" in mine[0]


@pytest.mark.parametrize("kind", ["bibtex", "ris"])
def test_an_abstract_with_many_control_characters_round_trips(tmp_path: Path, kind: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # PDF damage can leave dozens of control bytes in one abstract, kept as imported (its identity);
    # Reader's own export of it was refused as "binary file, not text" past 8 control bytes.
    damaged = "".join(f"{word}{chr(c)}" for word, c in zip(["glyph"] * 40, [1, 2, 3, 8, 0x0E, 0x14, 0x1A, 0x1F] * 5, strict=True))
    records = [{"title": f"Damaged paper {i}", "abstract": f"Paper {i} was read from a PDF: {damaged} and more words.",
                "year": 2010 + i, "doi": f"10.1000/damaged.{i}"} for i in range(3)]
    source = tmp_path / "damaged.json"
    source.write_text(json.dumps(records))  # JSON escapes: the source file itself is plain text
    first, second = tmp_path / "first", tmp_path / "second"
    assert run(["--data-dir", str(first), "import", str(source)]) == 0
    out = tmp_path / f"all.{kind}"
    assert run(["--data-dir", str(first), "export", kind, str(out)]) == 0
    assert out.read_bytes().count(b"\x01") == 15
    capsys.readouterr()
    assert run(["--data-dir", str(second), "import", str(out)]) == 0  # was "binary file, not text"
    assert "3 new, 0 duplicates, 0 rejected" in capsys.readouterr().out
    assert run(["--data-dir", str(first), "import", str(out)]) == 0  # into its own library: the same papers
    assert "0 new, 3 duplicates" in capsys.readouterr().out
    with Library.open(first, seed_if_empty=False) as a, Library.open(second, seed_if_empty=False) as b:
        assert sorted(a.paper_ids()) == sorted(b.paper_ids())  # the same abstracts, so the same ids
        mine = sorted(" ".join(p.abstract.split()) for p in a.papers(a.paper_ids()))  # exports write one line
        assert mine == sorted(" ".join(p.abstract.split()) for p in b.papers(b.paper_ids())) and "\x1a" in mine[0]


def test_a_binary_file_without_a_nul_in_its_head_is_still_refused(tmp_path: Path) -> None:
    from reader.errors import InputFileError
    from reader.importers.decode import decode_bytes

    with pytest.raises(InputFileError, match="binary file, not text"):
        decode_bytes(bytes(range(1, 9)) * 64 + b"\xff\xfe\x80" * 100, "x.bib")
    assert decode_bytes("text \x01\x02\x03\x04\x05\x06\x07\x08 é\n".encode() * 50, "x.bib").startswith("text")


def _exported_and_read_back(tmp_path: Path, source: Path, fmt: str) -> tuple[list, list]:
    """`source` imported into a new library, exported as `fmt` and imported into another: the
    papers of both."""
    first, second = tmp_path / "first", tmp_path / "second"
    assert run(["--data-dir", str(first), "import", str(source)]) == 0
    out = tmp_path / f"all.{fmt}"
    assert run(["--data-dir", str(first), "export", fmt, str(out)]) == 0
    assert run(["--data-dir", str(second), "import", str(out)]) == 0
    with Library.open(first, seed_if_empty=False) as a, Library.open(second, seed_if_empty=False) as b:
        return a.papers(a.paper_ids()), b.papers(b.paper_ids())


def test_the_backup_keeps_a_venue_with_a_control_character_as_stored(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # An import keeps a venue's stray "\x08" (only notes and titles are stored without controls);
    # Reader's own backup then restored the venue without it: backup -> restore changed the paper.
    source = tmp_path / "one.json"
    source.write_text(json.dumps([{"title": "A paper", "abstract": "An abstract long enough to be one, about copper.",
                                   "venue": "Conf\u0008erence on \u0007Things", "year": 2021,
                                   "authors": ["Ann\u0007 Bell"]}]))
    [mine], [theirs] = _exported_and_read_back(tmp_path, source, "json")
    assert (theirs.venue, theirs.authors) == (mine.venue, mine.authors) == ("Conf\x08erence on \x07Things", ["Ann\x07 Bell"])


def test_a_title_with_c1_controls_is_stored_with_single_spaces_and_reimports_the_same(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The C1 controls were cleaned out after the spaces were collapsed: "C1  title" kept two spaces,
    # and the CSL-JSON export read back as another title ("C1 title").
    source = tmp_path / "one.json"
    source.write_text(json.dumps([{"title": "C1 \u0080\u0081\u009f title \u0085", "year": 2020,
                                   "abstract": "An abstract long enough to be one, about copper oxide."}]))
    mine, theirs = _exported_and_read_back(tmp_path, source, "csljson")
    assert [p.title for p in mine] == [p.title for p in theirs] == ["C1 title"]

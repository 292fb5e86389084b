"""The attack campaign's import cases (issue 9): each gets a clear message or a skipped problem."""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import pytest

from reader.errors import InputFileError
from reader.importers import base, display_name, parse_file, parse_text
from reader.models import MAX_ABSTRACT_CHARS

from .helpers import ABSTRACT, ABSTRACT2, write

BACKUP = {"format": "reader-backup", "version": 1}


def _paper(**changes):
    paper = {"title": "T", "abstract": ABSTRACT, "year": 2020}
    paper.update(changes)
    return paper


def _backup(tmp_path, *papers):
    good = _paper(abstract=ABSTRACT2)
    data = {**BACKUP, "papers": [good, *papers]}
    return parse_file(write(tmp_path, "b.json", json.dumps(data)))


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"year": -5}, "year -5 is not a plausible year"),
        ({"year": 2**32}, "year 4294967296 is not a plausible year"),
        ({"year": 2**63}, "year 9223372036854775808 is not a plausible year"),
        ({"year": "2020"}, "year must be a whole number"),
        ({"title": None}, "title must be text, not null"),
        ({"title": ["x"]}, "title must be text, not a list"),
        ({"collection": 5}, "collection must be text"),
        ({"derived_title": {"a": 1}}, "derived_title must be text"),
        ({"authors": ["A", 3]}, "authors must be a list of text"),
        ({"highlights": [{"start": 0, "end": 4}]}, "highlight 1: quote must be text, not null"),
        # A NUL in a note is dropped, not the paper (issue 30: Reader's own backup lost such papers).
        ({"abstract": ABSTRACT + "\u0000"}, "abstract contains a NUL"),
        ({"abstract": ABSTRACT + "x" * MAX_ABSTRACT_CHARS}, "abstract is too long"),
    ],
)
def test_backup_bad_fields_are_skipped_problems(tmp_path, change, reason):
    result = _backup(tmp_path, _paper(**change))
    assert len(result.records) == 1  # the good paper only
    (problem,) = result.problems
    assert str(problem).startswith("record 2: ") and reason in str(problem), str(problem)


def test_backup_huge_year_number(tmp_path):
    text = json.dumps({**BACKUP, "papers": [_paper(abstract=ABSTRACT2), _paper(year=0)]})
    text = text.replace('"year": 0', '"year": ' + "9" * 4400)
    result = parse_file(write(tmp_path, "b.json", text))
    assert len(result.records) == 1
    assert "record 2: year must be a whole number" in str(result.problems[0])


def test_backup_drops_unknown_keys(tmp_path):
    result = _backup(tmp_path, _paper(extra={"deep": [[[1]]]}))
    assert all("extra" not in r.backup for r in result.records if r.backup)


@pytest.mark.parametrize("year", [-5, 2**32, 2**63, 3000])
def test_json_out_of_range_year_is_never_kept(tmp_path, year):
    result = parse_file(write(tmp_path, "p.json", json.dumps([_paper(year=year)])))
    assert result.records[0].year is None


def test_json_records_with_unstorable_text_are_skipped(tmp_path):
    papers = [_paper(), _paper(abstract=ABSTRACT2 + "\u0000"), _paper(title="\ud800"),
              _paper(authors=[["nested"]]), _paper(title="t" * 5000)]
    result = parse_file(write(tmp_path, "p.json", json.dumps(papers)))
    assert len(result.records) == 1
    reasons = sorted(str(p) for p in result.problems)
    assert reasons[0].startswith("record 2: abstract contains a NUL")
    assert reasons[1].startswith("record 3: title contains a NUL or an invalid")
    assert reasons[2] == "record 4: authors must be text or a list of names"
    assert reasons[3].startswith("record 5: title is too long")


def test_json_nested_100k_deep(tmp_path):
    path = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputFileError, match="nested more than 64 levels deep"):
        parse_file(path)
    lines = f'{{"abstract": "{ABSTRACT}"}}\n' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "\n"
    result = parse_file(write(tmp_path, "deep.jsonl", lines))
    assert len(result.records) == 1 and "nested more than" in str(result.problems[0])


def test_json_4300_digit_number_is_not_an_internal_error(tmp_path):
    text = json.dumps([_paper(), _paper(abstract=ABSTRACT2, pages=0)]).replace("0}", "9" * 5000 + "}")
    result = parse_file(write(tmp_path, "n.json", text))
    assert len(result.records) == 2


def test_nul_bytes_after_the_sniffed_head_refuse_the_file(tmp_path):
    text = "ICML 2025\n\n" + (ABSTRACT + "\n\n") * 200 + "bad\x00byte " + ABSTRACT + "\n"
    with pytest.raises(InputFileError, match=r"binary file, not text \(NUL byte at line 403\)"):
        parse_file(write(tmp_path, "n.txt", text))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def attempt() -> None:
        try:
            parse_file(fifo)
        except BaseException as exc:  # handed to the test thread
            done.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(60)  # a limit on a hang only (the old code blocked for ever)
    assert done and isinstance(done[0], InputFileError)
    assert "not a regular file" in str(done[0])


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_device_is_refused_at_once():
    start = time.process_time()  # CPU seconds: the same on a busy machine
    with pytest.raises(InputFileError, match="not a regular file"):
        parse_file("/dev/zero")
    assert time.process_time() - start < 10  # never reads the device


def test_folder_is_refused(tmp_path):
    with pytest.raises(InputFileError, match="is a folder"):
        parse_file(tmp_path)


def test_too_big_file_is_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(base, "MAX_FILE_BYTES", 1000)
    monkeypatch.setattr("reader.importers.decode.MAX_FILE_BYTES", 1000)
    path = write(tmp_path, "big.txt", "ICML 2025\n\n" + ABSTRACT * 20)
    with pytest.raises(InputFileError, match="too big to import"):
        parse_file(path)


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs non-UTF-8 file names")
def test_non_utf8_file_name(tmp_path):
    raw = os.fsencode(tmp_path) + b"/caf\xe9.txt"
    with open(raw, "wb") as handle:
        handle.write(f"ICML 2025\n\n{ABSTRACT}\n".encode())
    result = parse_file(raw)
    assert result.path.endswith("caf\\xe9.txt") and len(result.records) == 1
    assert display_name(os.fsdecode(raw)) == result.path
    result.path.encode("utf-8")  # printable and storable
    with pytest.raises(InputFileError) as err:
        parse_file(raw + b".missing")
    assert "caf\\xe9.txt.missing: file not found" in str(err.value)


def test_seed_block_too_long_is_a_problem():
    text = f"ICML 2025\n\n{ABSTRACT}\n\n" + ("word " * 25_000 + "\n") * 1
    result = parse_text(text, "s.txt")
    assert len(result.records) == 1
    assert result.problems[0].line == 5 and "abstract is too long" in result.problems[0].reason


@pytest.mark.parametrize(
    ("name", "unit"),
    [("m.jsonl", "{}\n"), ("m.txt", "ICML 2025\n\nx\n\n"), ("m.ris", "TY  - JOUR\nER  - \n"),
     ("m.bib", "@misc{a,}\n"), ("m.csv", "a,b\n"), ("m.xml", "<entry></entry>\n")],
)
def test_millions_of_junk_records_are_refused_at_once(name, unit):
    text = unit * 1_000_000
    if name == "m.csv":
        text = "title,abstract\n" + text
    if name == "m.xml":
        text = '<feed xmlns="http://www.w3.org/2005/Atom">' + text + "</feed>"
    start = time.process_time()  # CPU seconds: the same on a busy machine
    with pytest.raises(InputFileError, match="too many records .* the limit is 200,000"):
        parse_text(text, name)
    assert time.process_time() - start < 10  # counted before parsing


def test_json_with_millions_of_items_is_refused(tmp_path):
    path = write(tmp_path, "m.json", "[" + "1," * 1_000_000 + "1]")
    with pytest.raises(InputFileError, match="too many records"):
        parse_file(path)

"""Impossible years are reported per record in the import summary, not dropped silently."""

from __future__ import annotations

import json
from datetime import date

import pytest

from reader.importers import parse_text

ABSTRACT = "We study a long enough abstract about sparse attention in transformers."


def _json(years: list[object]) -> str:
    return json.dumps([{"title": f"t{i}", "abstract": f"{ABSTRACT} {i}", "year": y}
                       for i, y in enumerate(years)])


def _csv(years: list[object]) -> str:
    return "title,abstract,year\n" + "".join(f't{i},"{ABSTRACT} {i}",{y}\n'
                                             for i, y in enumerate(years))


def _bibtex(years: list[object]) -> str:
    return "".join(f"@article{{k{i},\n  title={{T{i}}},\n  abstract={{{ABSTRACT} {i}}},\n"
                   f"  year={{{y}}}\n}}\n" for i, y in enumerate(years))


def _ris(years: list[object]) -> str:
    return "".join(f"TY  - JOUR\nTI  - t{i}\nAB  - {ABSTRACT} {i}\nPY  - {y}\nER  - \n"
                   for i, y in enumerate(years))


YEARS = [2019, -5, 2**63, 99999, 2020]


@pytest.mark.parametrize(("make", "fmt", "where"), [
    (_json, "json", ["record 2: year -5 ignored", f"record 3: year {2**63} ignored",
                     "record 4: year 99999 ignored"]),
    (_csv, "csv", ["line 3: year -5 ignored", f"line 4: year {2**63} ignored",
                   "line 5: year 99999 ignored"]),
    (_bibtex, "bibtex", ["line 6 (k1): year -5 ignored", f"line 11 (k2): year {2**63} ignored",
                         "line 16 (k3): year 99999 ignored"]),
    (_ris, "ris", ["line 6: year -5 ignored", f"line 11: year {2**63} ignored",
                   "line 16: year 99999 ignored"]),
])
def test_impossible_years_are_reported_per_record(make, fmt: str, where: list[str]) -> None:
    result = parse_text(make(YEARS), f"papers.{fmt}", fmt)
    assert [r.year for r in result.records] == [2019, None, None, None, 2020]
    assert [str(n) for n in result.notes] == where
    assert result.problems == []


def test_the_import_summary_lists_ignored_years(tmp_path) -> None:
    from reader.library import Library

    path = tmp_path / "papers.json"
    path.write_text(_json([-5, 2021]))
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    try:
        [summary] = lib.import_files([path])
    finally:
        lib.close()
    assert summary.new == 2 and [str(n) for n in summary.notes] == ["record 1: year -5 ignored"]
    assert "1 with values ignored" in summary.describe()


NEXT = date.today().year + 1


@pytest.mark.parametrize(("make", "fmt"), [(_json, "json"), (_csv, "csv"), (_bibtex, "bibtex"), (_ris, "ris")])
def test_old_and_forthcoming_years_are_kept(make, fmt: str) -> None:
    # Darwin's Origin (1859) and Newton's Principia (1687) are cited; so is next year's paper in press.
    result = parse_text(make([1859, 1687, 1000, NEXT, 999, NEXT + 1]), f"papers.{fmt}", fmt)
    assert [r.year for r in result.records] == [1859, 1687, 1000, NEXT, None, None]
    assert [str(n).split(": ", 1)[1] for n in result.notes] == ["year 999 ignored", f"year {NEXT + 1} ignored"]


def test_csljson_date_parts_and_paperlists_names_take_old_years() -> None:
    items = [{"type": "book", "title": "On the Origin of Species", "issued": {"date-parts": [[1859, 11, 24]]}}]
    assert [r.year for r in parse_text(json.dumps(items), "refs.csljson", "csljson").records] == [1859]
    from reader.importers.jsonfmt import filename_defaults

    assert filename_defaults("icml1899.json")["year"] == 1899
    assert filename_defaults(f"icml{NEXT + 1}.json")["year"] is None

"""The import summary (issue 18 item 2): one line per file, problems grouped by cause with at
most five places each, every problem with --verbose / Details…"""

from __future__ import annotations

from reader.import_report import EXAMPLES, cause_of, details_text, file_lines, has_details
from reader.models import ImportSummary, Problem


def _summary() -> ImportSummary:
    broken = [Problem(800 + i, "unbalanced brace or quote: the entry runs into the next one", key=f"k{i}",
                      cause="unbalanced brace or quote") for i in range(7)]
    empty = [Problem(5, "no title and no abstract", key="e1")]
    years = [Problem(9, "year 1885 ignored", key="old"), Problem(12, "year 3000 ignored")]
    return ImportSummary(path="lib.bib", entries=5137, new=5120, duplicates=12, without_abstract=3101,
                         skipped=[*broken, *empty], notes=years)


def test_one_line_per_file_in_the_users_terms():
    s = ImportSummary(path="lib.bib", entries=5137, new=5120, duplicates=12, without_abstract=3101,
                      skipped=[Problem(812, "unbalanced brace or quote", key="smith")])
    assert s.describe() == ("lib.bib: 5,137 entries: 5,120 new, 12 duplicates, 3,101 without abstract, "
                            "1 rejected — first: line 812 (smith): unbalanced brace or quote")


def test_problems_are_grouped_by_cause_with_five_places_each():
    lines = file_lines(_summary())
    assert len(lines) == 4  # the summary, two causes of rejection, one of values left out
    assert lines[1].startswith("  rejected unbalanced brace or quote: 7 entries (line 800 (k0), ")
    assert lines[1].count("line 8") == EXAMPLES and lines[1].endswith(", …)")
    assert lines[2] == "  rejected no title and no abstract: 1 entry (line 5 (e1))"
    assert lines[3] == "  kept, but year ignored: 2 entries (line 9 (old), line 12)"


def test_verbose_and_details_list_every_problem():
    lines = file_lines(_summary(), verbose=True)
    assert sum("unbalanced" in line for line in lines) == 1 + 7 + 1  # summary's first, heading, each
    assert "    line 806 (k6): unbalanced brace or quote: the entry runs into the next one" in lines
    assert details_text([_summary()]).count("\n") == len(lines) - 1
    assert has_details([_summary()]) and not has_details([ImportSummary(path="x", entries=1, new=1)])


def test_causes_without_values():
    assert cause_of(Problem(3, "record 4: year 99999 ignored")) == "year ignored"
    assert cause_of(Problem(3, "publisher left out: unbalanced brace or quote")) == (
        "field left out: unbalanced brace or quote")


def test_many_causes_stay_within_ten_lines():
    s = ImportSummary(path="x.json", entries=40, skipped=[Problem(i, f"cause number {chr(97 + i)} here")
                                                          for i in range(20)])
    lines = file_lines(s)
    assert len(lines) <= 10 and lines[-1] == "  and 14 other problems"

"""Hypothesis: any title or abstract (braces, backslashes, %, math, accents, CJK) becomes BibTeX
that bibtexparser 2 and pybtex parse back to the same text; the names come back too."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.exporters.bibtex import entry, escape
from reader.models import Paper

from .readback import bibtexparser_entries, person_text, plain, pybtex_entries, unlatex

SPECIAL = st.sampled_from(list("\\{}#$%&_~^@\"',`!?-") + ["$\\{$", "\\{", "\\}", "$x^2$", "$\\alpha_{i}$", "$$a$$", "--", "``",
                                                         "''", "\\emph{x}", "é", "北京", "Ω", " "])
TEXT = st.lists(st.one_of(SPECIAL, st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=8)),
                max_size=25).map("".join)
NAME_WORD = st.text(st.characters(whitelist_categories=("Lu", "Ll")), min_size=1, max_size=6)
NAMES = st.lists(st.lists(NAME_WORD, min_size=1, max_size=3).map(" ".join), max_size=3)


def _same(latex: str, stored: str) -> bool:
    # Every character but whitespace: pylatexenc sets $$display$$ math apart with line breaks.
    return "".join(unlatex(latex).split()) == "".join(plain(stored).split())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=TEXT, abstract=TEXT, authors=NAMES)
def test_any_text_survives_both_parsers(title: str, abstract: str, authors: list[str]) -> None:
    paper = Paper(id="0", title=title, abstract=abstract, authors=authors, year=2020, citation_key="k2020")
    text = entry(paper)
    entries, failed = bibtexparser_entries(text)
    assert not failed and len(entries) == 1
    fields = entries[0].fields_dict
    if plain(title):
        assert _same(fields["title"].value, title)
    if plain(abstract):
        assert _same(fields["abstract"].value, abstract)
    parsed = pybtex_entries(text)["k2020"]
    if plain(title):
        assert _same(parsed.fields["title"], title)
    assert [person_text(p) for p in parsed.persons.get("author", [])] == [plain(a) for a in authors if plain(a)]


def test_math_stays_math_and_specials_are_escaped() -> None:
    assert escape("cost $\\mathcal{O}(n^2)$ at 50% & a_b") == "cost $\\mathcal{O}(n^2)$ at 50\\% \\& a\\_b"
    assert escape("a {b} ~c ^d \\e") == "a \\{b\\} \\textasciitilde{}c \\textasciicircum{}d \\textbackslash{}e"
    assert escape("$a}$ -- ``q''") == "\\$a\\textbraceright{}\\$ -{}- `{}`q'{}'"  # unbalanced math is text
    # BibTeX counts an escaped brace too: math with a lone \{ is written as text.
    assert escape("$\\{a$") == "\\$\\textbackslash{}\\textbraceleft{}a\\$"
    assert escape("$\\{a\\}$ and x") == "$\\{a\\}$ and x"
    assert escape("BERT beats ImageNet", protect_case=True) == "{BERT} beats {ImageNet}"
    assert escape("GANs: (MoE).", protect_case=True) == "{GANs}: ({MoE})."


def test_an_empty_abstract_is_left_out() -> None:
    text = entry(Paper(id="0", title="Only a title", abstract="", citation_key="t"))
    assert "abstract" not in text and "title = {Only a title}" in text

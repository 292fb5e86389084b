"""Independent readers of the citation exports (bibtexparser 2, pybtex, citeproc-py, rispy,
pylatexenc) and the comparisons the round-trip tests make with them."""

from __future__ import annotations

import io
import re
from functools import cache, lru_cache

import bibtexparser
from pybtex.database import Person
from pybtex.database import parse_string as pybtex_parse
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

_BRACES_AND = re.compile(r"\s+and\s+")


@lru_cache(maxsize=1)
def _l2t() -> LatexNodes2Text:
    # Standard LaTeX text macros pylatexenc does not know (or reads as U+02C6).
    context = get_default_latex_context_db()
    context.add_context_category("tests", prepend=True, macros=[
        MacroTextSpec("textbraceleft", "{"), MacroTextSpec("textbraceright", "}")])
    return LatexNodes2Text(latex_context=context, math_mode="verbatim", strict_latex_spaces=True)


# What LaTeX reads as more than its letters: commands, groups, math, comments, active and
# special characters, and the ligatures of dashes, quotes and Spanish marks.
_LATEX = re.compile(r"[\\{}$%&~^_#]|--|``|''|!`|\?`")


@cache
def unlatex(value: str) -> str:
    """Text a LaTeX value stands for, whitespace collapsed. pylatexenc renders \\textasciicircum
    as U+02C6 (a modifier letter); LaTeX typesets ^. Text with nothing LaTeX reads otherwise
    is its own text: pylatexenc is not asked (it took most of the round-trip tests' time, and
    gave the same for all 7,523 such titles and abstracts of the exports)."""
    if not _LATEX.search(value):
        return plain(value)
    return " ".join(_l2t().latex_to_text(value).replace("\u02c6", "^").split())


def plain(value: str) -> str:
    """Stored text as the comparisons see it (whitespace collapsed; U+02C6 as ^, as unlatex)."""
    return " ".join(value.replace("\u02c6", "^").split())


def person_text(person: Person) -> str:
    """'First Middle von Last Jr' from a pybtex person, LaTeX decoded."""
    parts = [*person.first_names, *person.middle_names, *person.prelast_names, *person.last_names,
             *person.lineage_names]
    return unlatex(" ".join(parts))


def stored_name(author: str) -> str:
    """A stored author in the display order pybtex gives ('Last, First' stored by RIS imports)."""
    return person_text(Person(author)) if "," in author else plain(author)


def ris_name_text(author: str) -> str:
    """'First Last Suffix' from RIS's 'Last, First, Suffix'."""
    parts = [p.strip() for p in author.split(",")]
    return plain(" ".join([*parts[1:2], parts[0], *parts[2:]]))


def bibtexparser_entries(text: str) -> tuple[list, list]:
    library = bibtexparser.parse_string(text)
    return library.entries, library.failed_blocks


def pybtex_entries(text: str):
    return pybtex_parse(text, "bibtex").entries


def split_authors(value: str) -> list[str]:
    """An author field split at top-level ' and ' (as BibTeX does)."""
    names, depth, start = [], 0, 0
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            m = _BRACES_AND.match(value, i)
            if m and i > 0:
                names.append(value[start:i])
                start = i = m.end()
                continue
        i += 1
    names.append(value[start:])
    return [n for n in names if n.strip()]


def rendered_bibliography(items: list[dict]) -> list[str]:
    """citeproc-py's bibliography of CSL-JSON items in its bundled Harvard style."""
    from citeproc import (
        Citation,
        CitationItem,
        CitationStylesBibliography,
        CitationStylesStyle,
        formatter,
    )
    from citeproc.source.json import CiteProcJSON

    # citeproc-py predates CSL 1.0.2's citation-key (it warns about it); id is the same key.
    source = CiteProcJSON([{k: v for k, v in item.items() if k != "citation-key"} for item in items])
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, source, formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


def rispy_entries(text: str) -> list[dict]:
    import rispy

    return rispy.load(io.StringIO(text))

"""BibTeX entries for citing: LaTeX-escaped titles and abstracts (math kept), `Last, First` names.

Stored titles and abstracts are text with inline `$...$` math. Outside math every character
LaTeX treats specially (# $ % & _ { } ~ ^ \\ and the -- `` '' ligatures) is escaped, so the
typeset text reads as stored; a math span is kept as written when BibTeX can carry it (its
braces balance, no bare % or #), else it is escaped as text. Non-ASCII stays UTF-8: biber and
biblatex read UTF-8 natively, BibTeX with LaTeX's (default) UTF-8 input does too, and
`{\\"u}`-style escapes exist only for Latin accents (a Greek or CJK name has none). Keys are
ASCII, so nothing that BibTeX sorts or matches on depends on the encoding.
Words with capitals after their first letter (BERT, ImageNet, GANs) are braced in titles, so
styles that lower-case titles leave them alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..models import EntryType, Paper
from .citations import doi_of, entry_type_of, url_of
from .names import split_name

# Where a paper's venue goes, by entry type.
VENUE_FIELD = {
    EntryType.ARTICLE: "journal", EntryType.INPROCEEDINGS: "booktitle",
    EntryType.INCOLLECTION: "booktitle", EntryType.PHDTHESIS: "school",
    EntryType.MASTERSTHESIS: "school", EntryType.TECHREPORT: "institution",
    EntryType.BOOK: "publisher", EntryType.UNPUBLISHED: "howpublished", EntryType.MISC: "howpublished",
}
_SPECIAL = {
    "\\": r"\textbackslash{}", "{": "\x00L", "}": "\x00R", "#": r"\#", "$": r"\$", "%": r"\%",
    "&": r"\&", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}
# Special characters, and the pairs LaTeX would set as one glyph (-- as an en dash, `` as a quote).
_TEXT_TOKEN = re.compile(r"[\\{}#$%&_~^]|-(?=-)|`(?=`)|'(?=')|[!?](?=`)")
_MATH = re.compile(r"(?<!\\)(\$\$?)((?:[^$\\]|\\.)+?)(?<!\\)\1", re.DOTALL)
_BARE = re.compile(r"(?<!\\)[%#]")
_WORD = re.compile(r"\S+")
_EDGES = re.compile(r"^([(\[\"']*)(.*?)([:;,.!?)\]\"']*)$", re.DOTALL)


def _escape_plain(text: str) -> str:
    return _TEXT_TOKEN.sub(lambda m: _SPECIAL.get(m.group(), m.group() + "{}"), text)


def _protect(word: str) -> str:
    """An escaped word braced when it has a capital after its first letter (an acronym)."""
    letters = [c for c in word if c.isalpha()]
    if not any(c.isupper() for c in letters[1:]):
        return word
    core = _EDGES.match(word)
    assert core is not None  # every part is optional: it always matches
    lead, body, tail = core.groups()
    return f"{lead}{{{body}}}{tail}" if body else "{" + word + "}"


def _math_ok(body: str) -> bool:
    """Whether BibTeX can carry this math as written: its braces balance both as LaTeX sees them
    (\\{ is a character) and as BibTeX counts them (every brace, escaped or not), no bare % or #."""
    latex = bibtex = 0
    escaped = False
    for ch in body:
        if ch in "{}":
            step = 1 if ch == "{" else -1
            bibtex += step
            latex += 0 if escaped else step
            if bibtex < 0 or latex < 0:
                return False
        escaped = ch == "\\" and not escaped
    return latex == bibtex == 0 and not escaped and not _BARE.search(body)


def escape(text: str, *, protect_case: bool = False) -> str:
    """LaTeX source for stored text: math spans kept, everything else escaped, spaces collapsed."""
    text = " ".join(text.replace("\x00", "").split())  # a NUL would pose as a brace marker below
    out: list[str] = []
    pos = 0
    for match in _MATH.finditer(text):
        if not _math_ok(match.group(2)):
            continue
        out.append(_escape_text(text[pos:match.start()], protect_case))
        out.append(match.group())
        pos = match.end()
    out.append(_escape_text(text[pos:], protect_case))
    return _pair_braces("".join(out))


def _pair_braces(text: str) -> str:
    """Text braces (marked \\x00L / \\x00R: stored text never holds a NUL) as \\{ \\} where they
    pair up, else \\textbraceleft{} / \\textbraceright{}: BibTeX counts escaped braces too, so
    a lone \\{ would swallow the rest of the file."""
    if "\x00" not in text:
        return text
    parts = text.split("\x00")
    kinds = [p[0] for p in parts[1:]]
    matched: set[int] = set()
    stack: list[int] = []
    for i, kind in enumerate(kinds):
        if kind == "L":
            stack.append(i)
        elif stack:
            matched.update((stack.pop(), i))
    out = [parts[0]]
    for i, (kind, part) in enumerate(zip(kinds, parts[1:], strict=True)):
        if i in matched:
            out.append("\\{" if kind == "L" else "\\}")
        else:
            out.append(r"\textbraceleft{}" if kind == "L" else r"\textbraceright{}")
        out.append(part[1:])
    return "".join(out)


def _escape_text(text: str, protect_case: bool) -> str:
    if not protect_case:
        return _escape_plain(text)
    # Word by word (spaces kept as they are): a braced acronym is one unit.
    return _WORD.sub(lambda m: _protect(_escape_plain(m.group())), text)


def _name(author: str) -> str:
    """One author as BibTeX reads it: 'von Last, Jr, First', 'von Last, First' or 'Last'."""
    name = split_name(" ".join(author.split()))

    def part(text: str) -> str:
        # A word "and" would split the name in two; commas inside a part would re-split it.
        words = [("{" + w + "}" if w.lower() == "and" or "," in w else w) for w in _pair_braces(_escape_plain(text)).split()]
        return " ".join(words)

    family = " ".join(p for p in (part(name.particle), part(name.family)) if p)
    if name.single:
        return "{" + family + "}" if family and " " in family else family
    if name.suffix:
        return f"{family}, {part(name.suffix)}, {part(name.given)}"
    return f"{family}, {part(name.given)}" if name.given else family


def _fields(paper: Paper, kind: EntryType, with_notes: bool) -> Iterator[tuple[str, str]]:
    title = paper.title.strip()
    if title:
        yield "title", "{" + escape(title, protect_case=True) + "}"
    names = [n for n in (_name(a) for a in paper.authors) if n]
    if names:
        yield "author", "{" + " and ".join(names) + "}"
    if paper.venue.strip():
        yield VENUE_FIELD[kind], "{" + escape(paper.venue) + "}"
    if paper.year:
        yield "year", "{" + str(paper.year) + "}"
    doi = doi_of(paper)
    if doi:
        yield "doi", "{" + _verbatim(doi) + "}"
    url = url_of(paper)
    if url:
        yield "url", "{" + _verbatim(url) + "}"
    if paper.abstract.strip():
        yield "abstract", "{" + escape(paper.abstract) + "}"
    if paper.tags:
        yield "keywords", "{" + escape(", ".join(paper.tags)) + "}"
    if with_notes and paper.note.strip():
        # annote: the standard field for the reader's own annotation, which styles don't print
        # (note would appear in the bibliography).
        yield "annote", "{" + escape(paper.note) + "}"


def _verbatim(value: str) -> str:
    """A DOI or URL as written: biblatex reads these fields verbatim and BibTeX styles pass them to
    \\url/\\doi, so only what would unbalance the braces (or end one) is percent-encoded."""
    return value.translate(_VERBATIM)


_VERBATIM = str.maketrans({"{": "%7B", "}": "%7D", "\\": "%5C"})


def entry(paper: Paper, *, with_notes: bool = False) -> str:
    """One @type{key, ...} entry, ending with a blank line."""
    kind = entry_type_of(paper)
    body = ",\n".join(f"  {name} = {value}" for name, value in _fields(paper, kind, with_notes))
    return f"@{kind.value}{{{paper.citation_key},\n{body}\n}}\n\n"


def entries(papers: Iterable[Paper], *, with_notes: bool = False) -> Iterator[str]:
    """The entries of papers, one string each (a file is their concatenation)."""
    for paper in papers:
        yield entry(paper, with_notes=with_notes)

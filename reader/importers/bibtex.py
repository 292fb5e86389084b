"""BibTeX (.bib) files read with bibtexparser 2; LaTeX accents to Unicode via pylatexenc."""

from __future__ import annotations

import logging
import re
from functools import lru_cache

import bibtexparser
from bibtexparser.model import (
    Block,
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ExplicitComment,
    ParsingFailedBlock,
    String,
)

from reader.errors import InputFileError
from reader.models import EntryType, ImportFormat, ParseResult, Problem, Record
from reader.text.latex import match_brace

from .base import Importer
from .fields import (
    abstract_or_empty,
    clean_abstract,
    collapse,
    normalize_link,
    year_and_note,
)
from .jabref import GroupTree, parse_groups

_ENTRY = re.compile(r"@\s*([A-Za-z_]+)\s*([{(])")
_SKIP_TYPES = frozenset({"comment", "preamble", "string", "proceedings"})
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_WORD = re.compile(r'[^\s#{}"]+')  # a bare number or @string name
_JOIN = re.compile(r"\s*(#)?\s*")
_FIELD_LINE = re.compile(r"^\s*([A-Za-z][\w:.+-]*)\s*=")
UNBALANCED = "unbalanced brace or quote"

# bibtexparser logs every failed block; we report them as problems with their line instead.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
logging.getLogger("bibtexparser").propagate = False


def looks_like_bibtex(text: str, ext: str = "") -> bool:
    """True when the first line that is not blank or a % comment opens an @entry."""
    for line in text[:20000].split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("%"):
            return bool(_ENTRY.match(stripped))
    return False


@lru_cache(maxsize=1)
def _converters():
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    # pylatexenc reads \textasciicircum as U+02C6 (a modifier letter); LaTeX sets a ^ (and
    # Reader's BibTeX export writes ^ so), else a re-imported abstract would not match its paper.
    context = get_default_latex_context_db()
    context.add_context_category("reader", prepend=True, macros=[
        MacroTextSpec("textasciicircum", "^"), MacroTextSpec("textbraceleft", "{"),
        MacroTextSpec("textbraceright", "}")])
    # Math stays as $...$ source (the abstract renderer shows it); accents become Unicode.
    return LatexNodes2Text(latex_context=context, math_mode="verbatim", strict_latex_spaces=True)


def latex_to_text(value: str) -> str:
    """Unicode text for a BibTeX value: accents converted, protective braces dropped."""
    if "\\" not in value and "{" not in value and "~" not in value:
        return value
    try:
        return _converters().latex_to_text(value)
    except Exception:  # pylatexenc can choke on broken LaTeX; braces-stripped source will do
        return value.replace("{", "").replace("}", "")


def _resolve(raw: str, strings: dict[str, str]) -> str:
    """A raw field value without its braces or quotes, '#'-joined parts and @string names resolved.

    bibtexparser 2 leaves concatenation to the caller; a value that cannot be split is kept whole
    (minus one pair of enclosing braces or quotes).
    """
    raw = raw.strip()
    parts: list[str] = []
    pos, n = 0, len(raw)
    while pos < n:
        if raw[pos] == "{":
            end = match_brace(raw, pos)
            if end < 0:
                break
            parts.append(raw[pos + 1:end])
        elif raw[pos] == '"':
            end = _closing_quote(raw, pos + 1)
            if end < 0:
                break
            parts.append(raw[pos + 1:end])
        else:
            word = _WORD.match(raw, pos)
            if not word:
                break
            end = word.end() - 1
            parts.append(strings.get(word.group().lower(), word.group()))
        after = _JOIN.match(raw, end + 1)
        if not after:  # always matches (\s*): keeps mypy and the reader sure of it
            break
        pos = after.end()
        if after.group(1) is None and pos < n:
            break  # two parts without '#' between them: not a concatenation
    else:
        return "".join(parts)
    if n >= 2 and (raw[0], raw[-1]) in (("{", "}"), ('"', '"')):
        return raw[1:-1]
    return raw


def _closing_quote(raw: str, pos: int) -> int:
    """Index of the '"' closing a quoted value (quotes inside braces don't count), or -1."""
    n = len(raw)
    while pos < n:
        if raw[pos] == "{":
            end = match_brace(raw, pos)
            if end < 0:
                return -1
            pos = end + 1
        elif raw[pos] == '"':
            return pos
        else:
            pos += 1
    return -1


def _person(name: str) -> str:
    """'Last, First' / 'von Last, Jr, First' -> 'First von Last Jr'."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2:
        name = f"{parts[1]} {parts[0]}"
    elif len(parts) >= 3:
        name = f"{parts[2]} {parts[0]} {parts[1]}"
    return collapse(name) or ""


def _split_names(raw: str) -> list[str]:
    """The names of an author list: split at ' and ' outside braces (`{Barnes and Noble}` is one name)."""
    names, start, depth, pos = [], 0, 0, 0
    for sep in _AND.finditer(raw):
        depth += raw.count("{", pos, sep.start()) - raw.count("}", pos, sep.start())
        pos = sep.start()
        if depth <= 0:
            names.append(raw[start:sep.start()])
            start = sep.end()
    names.append(raw[start:])
    return names


def _record(fields: dict[str, str], line: int, defaults: dict[str, str], entry_key: str = "",
            entry_kind: str = "") -> Record:
    abstract = abstract_or_empty(clean_abstract(latex_to_text(fields.get("abstract", ""))))
    authors_raw = fields.get("author", "")
    authors = [
        a for a in (_person(latex_to_text(p)) for p in _split_names(authors_raw) if p.strip()) if a
    ]
    venue = (fields.get("journal") or fields.get("booktitle") or fields.get("journaltitle")
             or defaults.get("venue"))
    links: list[str] = []
    for key in ("url", "pdf", "doi", "eprint"):
        value = fields.get(key)
        if not value:
            continue
        kind = "arxiv" if key == "eprint" and "arxiv" in fields.get("archiveprefix", "").lower() \
            else key
        link = normalize_link(kind, value.strip("{} "))
        if link and link.startswith(("http://", "https://")) and link not in links:
            links.append(link)
    year, note = year_and_note(fields.get("year") or fields.get("date") or defaults.get("year"))
    arxiv = fields.get("eprint") if "arxiv" in (fields.get("archiveprefix", "") + fields.get(
        "eprinttype", "")).lower() else None
    return Record(
        abstract=abstract,
        title=collapse(latex_to_text(fields.get("title", ""))),
        authors=authors,
        year=year,
        venue=collapse(latex_to_text(venue)) if venue else None,
        url=links[0] if links else None,
        links=links,
        line=line,
        notes=[note] if note else [],
        doi=fields.get("doi"),
        arxiv=arxiv,
        citation_key=entry_key or None,
        entry_type=EntryType.from_bibtex(entry_kind) if entry_kind else None,
    )


def _failure(block: ParsingFailedBlock, line: int) -> Problem:
    """Why an entry could not be read, in the user's terms (not the parser's)."""
    raw = block.raw or ""
    kind = _ENTRY.match(raw.lstrip())
    key = raw[kind.end():].split(",", 1)[0].strip() if kind else ""
    reason = getattr(block.error, "abort_reason", "") or str(block.error) or ""
    if "closing" in reason or "Unexpected block start" in reason or raw.count("{") != raw.count("}"):
        cause = UNBALANCED
        text = f"{UNBALANCED}: the entry runs into the next one"
    else:
        cause = "entry cannot be read"
        text = "entry cannot be read (check its @type{key, field = {value}, ...} shape)"
    return Problem(line, text, key=key or None, cause=cause)


def _salvage(raw: str) -> tuple[Entry, list[str]] | None:
    """A broken entry read again without its fields whose braces don't balance (a stray
    `{` in one field should not cost the whole entry): the entry and the fields left out."""
    kept, dropped = [], []
    for text in raw.split("\n"):
        name = _FIELD_LINE.match(text)
        if name and text.count("{") != text.count("}"):
            dropped.append(name.group(1).lower())
            continue
        kept.append(text)
    if not dropped:
        return None
    try:
        again = bibtexparser.parse_string("\n".join(kept), parse_stack=[])
    except Exception:
        return None
    if len(again.entries) != 1 or again.failed_blocks:
        return None
    return again.entries[0], dropped


def parse_bibtex(text: str, path: str) -> ParseResult:
    """Parse .bib text with bibtexparser; a malformed entry is a problem at its line (after
    trying it again without the field that broke it), JabRef groups become the records' groups."""
    result = ParseResult(path=path, format=ImportFormat.BIBTEX)
    try:
        library = bibtexparser.parse_string(text, parse_stack=[])
    except Exception as exc:  # the splitter raises on states it considers its own bugs
        raise InputFileError(path, f"cannot read this BibTeX file ({type(exc).__name__})") from None
    strings: dict[str, str] = {m: m.capitalize() for m in _MONTHS}
    entries: list[tuple[dict[str, str], int, str, str]] = []
    proceedings: list[dict[str, str]] = []
    groups = GroupTree()
    for found in library.blocks:
        line = (found.start_line or 0) + 1
        block: Block | None = found
        if isinstance(found, DuplicateBlockKeyBlock | DuplicateFieldKeyBlock):
            block = found.ignore_error_block  # duplicates are fine: the first field wins below
        dropped: list[str] = []
        if isinstance(block, ParsingFailedBlock):
            saved = _salvage(block.raw or "")
            if saved is None:
                result.problems.append(_failure(block, line))
                continue
            block, dropped = saved
        if isinstance(block, ExplicitComment):
            groups.merge(parse_groups(block.comment))
        elif isinstance(block, String):
            strings[block.key.lower()] = latex_to_text(_resolve(block.value, strings))
        elif isinstance(block, Entry):
            fields: dict[str, str] = {}
            for field in block.fields:
                fields.setdefault(field.key.lower(), _resolve(str(field.value), strings))
            kind = block.entry_type.lower()
            if kind == "proceedings":
                proceedings.append(fields)
            elif kind not in _SKIP_TYPES:
                if dropped:
                    fields["\x00dropped"] = ", ".join(dropped)
                entries.append((fields, line, block.key, kind))
    # PMLR-style files describe the volume once in an @Proceedings entry and give the papers
    # neither venue nor year; inherit them when the file holds exactly one such volume.
    defaults: dict[str, str] = {}
    if len(proceedings) == 1:
        volume = proceedings[0]
        venue = volume.get("shortname") or volume.get("booktitle") or volume.get("title")
        defaults = {k: v for k, v in (("venue", venue), ("year", volume.get("year"))) if v}
    for fields, line, key, kind in entries:
        item = _record(fields, line, defaults, key, kind)
        item.groups = groups.groups_of(key, fields)
        dropped_names = fields.get("\x00dropped")
        if dropped_names and not item.abstract and not item.title:  # nothing worth keeping was left
            result.problems.append(Problem(line, f"{UNBALANCED} in its {dropped_names}", key=key or None,
                                           cause=UNBALANCED))
            continue
        if dropped_names:
            item.notes.append(f"{dropped_names} left out: {UNBALANCED}")
        result.records.append(item)
    return result


IMPORTER = Importer(ImportFormat.BIBTEX, "BibTeX", (".bib", ".bibtex"), looks_like_bibtex, parse_bibtex,
                    bound=lambda text: text.count("@"))

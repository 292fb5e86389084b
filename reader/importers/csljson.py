"""CSL-JSON files (Zotero's and Better BibTeX's "CSL JSON" exports, pandoc's bibliographies).

An array of items: `author` as family/given objects, `issued` as date-parts, `container-title`,
DOI, URL, abstract, type, and the citation key in `citation-key` (Better BibTeX) or `id`
(when it is a key, not Zotero's item URI or a number). `keyword` is not imported as tags, as
with the other formats: a publisher's keywords would flood the user's own tags.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reader.errors import InputFileError
from reader.models import EntryType, ImportFormat, ParseResult, Problem, Record
from reader.text.citekeys import key_problem

from .base import Importer, collect
from .fields import (
    abstract_or_empty,
    clean_abstract,
    collapse,
    normalize_link,
    year_and_note,
)
from .jsonfmt import load_json

_SNIFF = re.compile(r'"(?:issued|container-title|citation-key|family)"\s*:')
_TYPE = re.compile(r'"type"\s*:')
_MARKUP = re.compile(r"<[^>]{1,40}>")  # CSL's rich-text markup in titles (<i>, <b>, <sc>)
# CSL item types as BibTeX entry types; the rest (article, webpage, post...) are misc.
ENTRY_TYPES = {
    "article-journal": EntryType.ARTICLE, "article-magazine": EntryType.ARTICLE,
    "article-newspaper": EntryType.ARTICLE, "paper-conference": EntryType.INPROCEEDINGS,
    "chapter": EntryType.INCOLLECTION, "entry-encyclopedia": EntryType.INCOLLECTION,
    "book": EntryType.BOOK, "thesis": EntryType.PHDTHESIS, "report": EntryType.TECHREPORT,
    "manuscript": EntryType.UNPUBLISHED,
}


def looks_like_csljson(text: str, ext: str = "") -> bool:
    """A JSON array whose first item has a CSL type and a CSL-only key (issued, family...)."""
    head = text[:4096].lstrip()
    return head.startswith("[") and bool(_TYPE.search(head)) and bool(_SNIFF.search(head))


def _name(value: Any) -> str | None:
    """'Given particle Family Suffix' (Reader's stored form) from a CSL name object."""
    if isinstance(value, str):
        return collapse(value)
    if not isinstance(value, Mapping):
        return None
    if value.get("literal"):
        return collapse(value["literal"])
    parts = [value.get(k) for k in ("given", "dropping-particle", "non-dropping-particle", "family", "suffix")]
    return collapse(" ".join(p for p in parts if isinstance(p, str) and p.strip()))


def _year(issued: Any) -> Any:
    """The year of a CSL date: date-parts' first, else its raw or literal text."""
    if not isinstance(issued, Mapping):
        return issued if isinstance(issued, str | int) else None
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        return parts[0][0]
    return issued.get("raw") or issued.get("literal")


def _key(item: Mapping[str, Any]) -> str | None:
    key = item.get("citation-key") or item.get("citation_key")
    if isinstance(key, str) and key.strip():
        return key.strip()
    key = item.get("id")
    # Zotero's plain export uses item URIs or numbers as ids: not citation keys.
    if isinstance(key, str) and "://" not in key and not key.isdigit() and key_problem(key) is None:
        return key
    return None


def _text(item: Mapping[str, Any], name: str) -> str | None:
    value = item.get(name)
    return collapse(_MARKUP.sub("", value)) if isinstance(value, str) else None


def _record(item: Mapping[str, Any], number: int) -> Record | Problem:
    abstract_value = item.get("abstract")
    # Without an abstract the item is a title-only paper (rejected later only if it has no title).
    abstract = abstract_or_empty(clean_abstract(abstract_value) if isinstance(abstract_value, str) else None)
    names = item.get("author")
    authors = [n for n in (_name(a) for a in names) if n] if isinstance(names, list) else []
    year, note = year_and_note(_year(item.get("issued")))
    links = [link for link in (normalize_link("url", item.get("URL")) if isinstance(item.get("URL"), str) else None,
                               normalize_link("doi", item.get("DOI")) if isinstance(item.get("DOI"), str) else None)
             if link and link.startswith(("http://", "https://"))]
    kind = item.get("type")
    return Record(
        abstract=abstract or "",
        title=_text(item, "title"),
        authors=authors,
        year=year,
        venue=_text(item, "container-title") or (_text(item, "publisher") if kind in ("thesis", "report") else None),
        url=links[0] if links else None,
        links=list(dict.fromkeys(links)),
        line=number,
        notes=[note] if note else [],
        citation_key=_key(item),
        entry_type=ENTRY_TYPES.get(kind, EntryType.MISC) if isinstance(kind, str) else None,
    )


def _item(number: int, item: Any) -> Record | Problem:
    return _record(item, number) if isinstance(item, Mapping) else Problem(None, f"item {number}: not a JSON object")


def parse_csljson(text: str, path: str) -> ParseResult:
    """The items of a CSL-JSON array; an item that is not an object, or has no abstract, is a problem."""
    data = load_json(text, path)
    if not isinstance(data, list):
        raise InputFileError(path, "not CSL-JSON: expected a JSON array of items")
    return collect(ParseResult(path=path, format=ImportFormat.CSLJSON), data, _item)


IMPORTER = Importer(ImportFormat.CSLJSON, "CSL-JSON", (".csljson",), looks_like_csljson, parse_csljson,
                    bound=lambda text: 0, line_based=False)  # counted once parsed

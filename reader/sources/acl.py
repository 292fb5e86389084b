"""ACL Anthology: one event's XML data file (`data/xml/<collection>.xml`), with abstracts.

The Anthology publishes each event as one XML collection (`2024.acl`: volumes long, short, srw,
demos...; `2024.findings`: one volume per conference; old style `P19`). The file is the
Anthology's source of truth and holds every abstract, so a venue is one request. Titles and
abstracts are read with their markup folded: `<fixed-case>` is dropped, `<tex-math>` becomes
`$...$` (Reader renders it), `<url>` keeps its text. Parsed with defusedxml (no entities, linear)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from reader.errors import InputFileError
from reader.importers.fields import abstract_or_empty, clean_abstract, collapse
from reader.models import EntryType, ParseResult, Problem, Record

SOURCE = "acl"
PUBLIC = "https://aclanthology.org"


def collection_path(collection: str) -> str:
    return f"/data/xml/{collection}.xml"


def _text(elem: ET.Element | None) -> str:
    """The element's text with its inline markup folded (see the module docstring)."""
    if elem is None:
        return ""
    parts: list[str] = [elem.text or ""]
    for child in elem:
        inner = _text(child)
        parts.append(f"${inner}$" if child.tag == "tex-math" else inner)
        parts.append(child.tail or "")
    return "".join(parts)


def _person(elem: ET.Element) -> str:
    return collapse(f"{elem.findtext('first') or ''} {elem.findtext('last') or ''}") or ""


def parse_collection(body: bytes, url: str, *, venue: str, year: int, volume: str = "") -> ParseResult:
    """The papers of an Anthology collection file (of one volume when `volume` is given)."""
    result = ParseResult(path=url, format=SOURCE)
    try:
        root = fromstring(body)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise InputFileError(url, f"not a readable ACL Anthology XML file ({exc})", line) from None
    except DefusedXmlException:
        raise InputFileError(url, "XML with entity or DTD declarations is refused") from None
    if root.tag != "collection":
        raise InputFileError(url, f"not an ACL Anthology collection (root element <{root.tag}>)")
    collection = root.get("id", "")
    volumes = root.findall("volume")
    if volume:
        volumes = [v for v in volumes if v.get("id") == volume]
        if not volumes:
            raise InputFileError(url, f"collection {collection} has no volume {volume!r}")
    number = 0
    for vol in volumes:
        vol_year = (vol.findtext("meta/year") or "").strip()
        for paper in vol.findall("paper"):
            number += 1
            anthology_id = (paper.findtext("url") or "").strip() or \
                f"{collection}-{vol.get('id', '')}.{paper.get('id', '')}"
            links = [f"{PUBLIC}/{anthology_id}/", f"{PUBLIC}/{anthology_id}.pdf"]
            doi = (paper.findtext("doi") or "").strip() or None
            if doi:
                links.append(f"https://doi.org/{doi}")
            title = collapse(_text(paper.find("title")))
            abstract = abstract_or_empty(clean_abstract(collapse(_text(paper.find("abstract")))))
            if not title and not abstract:
                result.problems.append(Problem(number, "no title and no abstract", key=anthology_id))
                continue
            result.records.append(Record(
                abstract=abstract,
                title=title,
                authors=[name for name in map(_person, paper.findall("author")) if name],
                year=int(vol_year) if vol_year.isdigit() else year,
                venue=venue,
                url=links[0],
                links=links,
                line=number,
                doi=doi,
                citation_key=(paper.findtext("bibkey") or "").strip() or None,
                entry_type=EntryType.INPROCEEDINGS,
            ))
    return result

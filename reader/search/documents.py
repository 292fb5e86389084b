"""Store documents -> Whoosh field values, following the field table (values the index can't hold are left out)."""

from __future__ import annotations

from typing import Any

from reader.search.fields import PAIR_FIELDS, YEAR_MAX, YEAR_MIN

BIGRAM_SUFFIX = "_bi"
_TEXTS = ("abstract", "method", "venue", "note", "comments", "authors")


def _year(value: Any) -> int | None:
    """The year if the index can hold it (bad backups carry -5 or 2**40); else None."""
    if isinstance(value, bool):
        return None
    try:
        y = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return y if YEAR_MIN <= y <= YEAR_MAX else None


def doc_fields(doc: dict[str, Any]) -> dict[str, Any]:
    """Map a store document to Whoosh fields, leaving out empty values (less work).

    A title derived from the abstract goes to `dtitle` (searchable by `title:` without
    counting the abstract's first sentence twice); `title_source` missing means real.
    """
    f: dict[str, Any] = {"id": doc["id"]}
    title = doc.get("title")
    if title and isinstance(title, str):
        f["dtitle" if doc.get("title_source") == "derived" else "title"] = title
    for name in _TEXTS:
        v = doc.get(name)
        if v and isinstance(v, str):
            f[name] = v
    # The abstract itself when there is no real title: its words are then split only once.
    words = f"{f['title']} {f.get('abstract', '')}" if "title" in f else f.get("abstract")
    if words:
        f["words"] = words
    year = _year(doc.get("year"))
    if year is not None:
        f["year"] = year
    tags = [t.strip().lower().replace(",", " ") for t in doc.get("tags") or ()
            if isinstance(t, str) and t.strip()]
    if tags:
        f["tags"] = ",".join(tags)
        f["tagtext"] = " ".join(tags)
    flags = ["starred" if doc.get("starred") else "unstarred",
             "read" if doc.get("read") else "unread",
             "skipped" if doc.get("skipped") else "unskipped"]
    if (doc.get("note") or "").strip():
        flags.append("hasnote")
    flags.append("hasabstract" if (doc.get("abstract") or "").strip() else "noabstract")
    f["flags"] = " ".join(flags)
    for name in PAIR_FIELDS:  # word pairs for phrases, from the same string
        if name in f:
            f[name + BIGRAM_SUFFIX] = f[name]
    return f

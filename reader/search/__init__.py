"""Full-text search over papers: Whoosh index, query language, snippets.

The names below load on first use (PEP 562): importing a submodule that needs no Whoosh
(`reader.search.results`, `typos`) does not load the index and Whoosh with it (~0.3 s CPU the
window's start would spend before its first list, which needs SQLite only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reader.lazy_names import lazy_names

if TYPE_CHECKING:
    from reader.search.documents import doc_fields
    from reader.search.index import IndexLocked, SearchIndex
    from reader.search.results import Hit, SearchResults
    from reader.search.segments import Prepare, SegmentBuilder, Standby

# Prepare and SegmentBuilder: what a big import hands the index (the segment format stays in search/).
__all__ = ["Hit", "IndexLocked", "Prepare", "SearchIndex", "SearchResults", "SegmentBuilder", "Standby",
           "doc_fields"]

_HOMES = {"doc_fields": "documents", "IndexLocked": "index", "SearchIndex": "index", "Hit": "results",
          "SearchResults": "results", "Prepare": "segments", "SegmentBuilder": "segments",
          "Standby": "segments"}


__getattr__ = lazy_names(__name__, _HOMES, globals())

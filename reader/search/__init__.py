"""Full-text search over papers: Whoosh index, query language, snippets."""

from reader.search.documents import doc_fields
from reader.search.index import IndexLocked, SearchIndex
from reader.search.results import Hit, SearchResults
from reader.search.segments import Prepare, SegmentBuilder

# Prepare and SegmentBuilder: what a big import hands the index (the segment format stays in search/).
__all__ = ["Hit", "IndexLocked", "Prepare", "SearchIndex", "SearchResults", "SegmentBuilder", "doc_fields"]

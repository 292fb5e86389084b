"""Full-text search over papers: Whoosh index, query language, snippets."""

from reader.search.index import SearchIndex, doc_fields
from reader.search.results import Hit, SearchResults

__all__ = ["Hit", "SearchIndex", "SearchResults", "doc_fields"]

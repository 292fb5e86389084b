"""Full-text search over papers: Whoosh index, query language, snippets."""

from reader.search.documents import doc_fields
from reader.search.index import IndexLocked, SearchIndex
from reader.search.results import Hit, SearchResults
from reader.search.segments import ids  # noqa: F401  (first: every segment gets an OS-random name)

__all__ = ["Hit", "IndexLocked", "SearchIndex", "SearchResults", "doc_fields"]

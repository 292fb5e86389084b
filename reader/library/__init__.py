"""The library: one folder, its SQLite store (the source of truth) and its derived search index.

`Library` (facade.py) is the one door every feature goes through. Its parts, split by
responsibility: `core` (connections, the one-transaction write, index upkeep, change events,
reads), `edits` (the user's changes) and `io` (imports and exports)."""

from .facade import SORT_KEYS, Counts, ImportCancelled, Library, PaperRow, View, summarize

__all__ = ["Counts", "ImportCancelled", "Library", "PaperRow", "SORT_KEYS", "View", "summarize"]

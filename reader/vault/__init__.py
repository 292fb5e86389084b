"""Two-way sync of the library with a folder of Markdown files (an Obsidian-style vault)."""

from .membership import DEFAULT_QUERY
from .report import SyncReport
from .sync import status, sync

__all__ = ["DEFAULT_QUERY", "SyncReport", "status", "sync"]

"""What the vault needs of the library, as a small protocol `reader.library.Library` satisfies.

A protocol rather than an import of Library: services may come to know the vault (its change
events feed the vault's scheduler) without an import circle.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from ..models import Paper
from ..search.results import SearchResults


class VaultLibrary(Protocol):
    def papers(self, ids: Sequence[str]) -> list[Paper]: ...

    def sync_index(self) -> None: ...

    def search(self, query: str, *, limit: int | None = ...) -> SearchResults: ...

    def read_connection(self) -> sqlite3.Connection:
        """This thread's read connection (the vault runs store/vault_state queries on it)."""
        ...

    def write_transaction(self) -> AbstractContextManager[tuple[sqlite3.Connection, int]]:
        """One write transaction: (the writer connection, the transaction's change sequence)."""
        ...

    def index_changed(self) -> None:
        """Let the search index catch up with what a write transaction changed."""
        ...

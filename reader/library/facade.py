"""The Library facade: every user action as one transaction, kept in step with the search index.

`Library` is the one door into a library folder. Its parts: core (connections, the write
transaction, index upkeep, change events, reads), edits (the user's changes), io (import,
export), sources (papers fetched from the services, followed feeds). The CLI and the window reach
the store only through it (tests/test_architecture.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import ReaderError
from ..listing import SEARCH_LIMIT, Listing, list_papers
from ..paths import LibraryPaths
from ..store import backups, changes, import_log, map_rows
from ..store import papers as q
from ..store.backups import KEEP_DAILY
from ..store.connection import close_writer
from ..store.feeds import FeedRow
from ..store.papers import Counts, PaperRow
from ..store.views import SORT_KEYS, View
from .core import ALL, ImportCancelled
from .edits import Edits
from .io import LibraryIO, summarize
from .sources import FetchedPapers

__all__ = ["KEEP_DAILY", "Counts", "FeedRow", "ImportCancelled", "Library", "PaperRow", "SORT_KEYS", "View", "summarize"]


# What the first open after an upgrade, a new text version or a restore says before it waits.
UPGRADE_SAYS = {
    "schema": "upgrading the library in {folder} to this version of Reader (once; a backup is taken first)",
    "texts": "upgrading the library in {folder} to this version of Reader (its abstracts' plain texts, once)",
    "restored": "preparing the restored library in {folder} (its abstracts' plain texts, once)",
}


class Library(Edits, LibraryIO, FetchedPapers):
    """One library folder: the SQLite store (source of truth) and its derived Whoosh index."""

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def open(cls, data_dir: Path | str, *, seed_if_empty: bool = True, daily: bool = True) -> Library:
        """Open (creating and migrating as needed) the library in data_dir; fast, no indexing.
        The search index is opened (and checked) on first use: see LibraryBase.index.
        The day's check and backup, when due, start on a thread; daily=False leaves them to
        the caller (`daily_due`: a CLI command starts them detached once it has answered)."""
        if Path(data_dir).exists() and not Path(data_dir).is_dir():
            raise ReaderError(f"{data_dir} is a file, not a library folder")
        from ..store.health import open_store

        paths = LibraryPaths(Path(data_dir))
        store = open_store(paths, start_daily=daily)  # damage checks, read-only fallback, migrations
        lib = cls(paths, store.conn)
        lib.read_only, lib._maintenance = store.read_only, store.maintenance
        lib.daily_due = store.daily_due and not daily
        if not lib.read_only:
            try:
                lib._refresh_plain_texts()
            except BaseException:
                lib.close()
                raise
        if seed_if_empty and not lib.read_only and lib._is_new():
            lib.import_seeds(index=False)
        return lib

    @staticmethod
    def upgrade_due(data_dir: Path | str) -> bool:
        """Will `open` rewrite this library's papers for this version of Reader (a one-time
        upgrade that takes about a minute at 100k papers)? Cheap and read-only: the CLI says so
        on stderr first, the window opens it behind a progress dialog."""
        from ..store.health import upgrade_due

        return upgrade_due(LibraryPaths(Path(data_dir)))

    @staticmethod
    def upgrade_kind(data_dir: Path | str) -> str | None:
        """What `open` will rewrite first: "schema", "texts", "restored" or None (store.health)."""
        from ..store.health import upgrade_kind

        return upgrade_kind(LibraryPaths(Path(data_dir)))

    def _is_new(self) -> bool:
        return q.count(self._wconn) == 0 and not import_log.any_import(self._wconn)

    def _refresh_plain_texts(self) -> int:
        """Recompute stored plain texts made by another text-rendering version; returns how many."""
        from ..text import TEXT_VERSION

        if changes.text_version(self._wconn) == TEXT_VERSION:
            return 0
        from ..text import abstract_plain  # the renderer: loaded only when there is work for it

        texts = [(pid, abstract_plain(raw)) for pid, raw in q.abstracts(self._wconn)]
        with self._write() as seq:
            q.set_plain_texts(self._wconn, texts, seq)
            changes.set_text_version(self._wconn, TEXT_VERSION)
        return len(texts)

    def close(self, *, finish_backup: bool = True) -> None:
        """Close the connections. The day's check and backup, if still running, are waited for
        (a CLI command's library still gets its backup) or, with finish_backup=False (the window
        closing: ~35 s at 50k papers), stopped and left to the next open, which finds it due."""
        if self._closed:
            return
        self._closed = True
        with self._store_lock:
            with self._readers_lock:
                for c in self._readers:
                    try:
                        c.close()
                    except Exception:  # a reader on another thread may already be gone
                        pass
                self._readers.clear()
            self._close_index()
            if self._maintenance is not None:
                cancel = getattr(self._maintenance, "cancel", None)
                if not finish_backup and cancel is not None:
                    cancel()
                self._maintenance.join()
            close_writer(self._wconn, optimize=not self.read_only)

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def daily_backups(self) -> list[Path]:
        """The library's daily backups, oldest first (the newest KEEP_DAILY are kept)."""
        folder = self.paths.backups_dir
        return backups.daily_backups(folder) if folder.is_dir() else []

    def yield_housekeeping_to(self, pause: Callable[[], object]) -> None:
        """Have the day's check and backup, if running on this process's thread, call `pause`
        between its chunks: the window passes a wait that lasts while the user is at the keys
        (ui/tasks.InputWatch), so a 100k backup's compression gives way to J/K and triage."""
        job = self._maintenance
        if job is not None and hasattr(job, "pause"):
            job.pause = pause

    def start_daily_detached(self) -> None:
        """The day's check and backup in a detached process of its own (store/daily.py), for an
        opener that passed daily=False and found `daily_due`: the CLI, once it has answered,
        with the library closed. Nobody waits for it."""
        from ..store.daily import spawn

        spawn(self.paths)

    def map_marks(self) -> map_rows.MapMarks:
        """Every paper's marks on the map (starred, read, skipped, tagged), as stored now."""
        return map_rows.map_marks(self.read_connection())

    # ------------------------------------------------------------------ listing
    def listing(self, query: str = "", view: View = ALL, sort: str = "added", descending: bool = True, *,
                search_sort: tuple[str, bool] | None = None, limit: int = SEARCH_LIMIT) -> Listing:
        """The ids a list shows (GUI table, `reader list`/`search`): see reader.listing.list_papers."""
        return list_papers(self, query, view, sort, descending, search_sort, limit)

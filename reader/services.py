"""The Library facade: every user action as one transaction, kept in step with the search index."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from importlib.resources import as_file
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .errors import ReaderError, classify_sqlite_error
from .index_upkeep import BulkIndex, CancelCheck, IndexUpkeep, Progress
from .listing import SEARCH_LIMIT, Listing, like_ids, list_papers
from .models import (
    Highlight,
    HighlightColour,
    ImportSummary,
    Paper,
    ParseResult,
    TitleSource,
    ViewKind,
)
from .paths import LibraryPaths
from .store import changes, import_log, notes, open_connection, open_database, searches
from .store import highlights as hl
from .store import papers as q
from .store import tags as tg
from .store.connection import close_writer
from .store.papers import Counts, PaperRow
from .store.views import SORT_KEYS, View, paper_ids

if TYPE_CHECKING:
    from .exporters.markdown import GroupBy
    from .search import SearchIndex
    from .search.parallel import Prepare
    from .search.results import SearchResults, Suggestion

__all__ = ["Counts", "Library", "PaperRow", "SORT_KEYS", "View"]

log = logging.getLogger(__name__)


_IMPORT_PROGRESS_EVERY = 1000
ALL = View()


class ImportCancelled(Exception):
    """Raised inside an import's transaction to roll it back when the user cancels."""


class Library:
    """One library folder: the SQLite store (source of truth) and its derived Whoosh index."""

    def __init__(self, paths: LibraryPaths, conn: sqlite3.Connection, index: SearchIndex):
        self.paths = paths
        self._wconn = conn
        self._wdb = open_database(conn)
        self.index = index
        self._store_lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        self.read_only = False  # the folder can't be written: reads, searches and exports only
        self._maintenance: threading.Thread | None = None
        self.upkeep = IndexUpkeep(index, self._reader, lambda: self.read_only)

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def open(cls, data_dir: Path | str, *, seed_if_empty: bool = True) -> Library:
        """Open (creating and migrating as needed) the library in data_dir; fast, no indexing."""
        from .search import SearchIndex

        if Path(data_dir).exists() and not Path(data_dir).is_dir():
            raise ReaderError(f"{data_dir} is a file, not a library folder")
        from .store.health import open_store

        paths = LibraryPaths(Path(data_dir))
        store = open_store(paths)  # damage checks, read-only fallback, migrations, daily backup
        index = SearchIndex.open(paths.index_dir)
        lib = cls(paths, store.conn, index)
        lib.read_only, lib._maintenance = store.read_only, store.maintenance
        if not lib.read_only:
            try:
                lib._refresh_plain_texts()
            except BaseException:
                lib.close()
                raise
        if seed_if_empty and not lib.read_only and lib._is_new():
            lib.import_seeds(index=False)
        return lib

    def _is_new(self) -> bool:
        return q.count(self._wconn) == 0 and not import_log.any_import(self._wconn)

    def _refresh_plain_texts(self) -> int:
        """Recompute stored plain texts made by another text-rendering version; returns how many."""
        from .text import TEXT_VERSION, abstract_plain

        if changes.text_version(self._wconn) == TEXT_VERSION:
            return 0
        texts = [(pid, abstract_plain(raw)) for pid, raw in q.abstracts(self._wconn)]
        with self._write() as seq:
            q.set_plain_texts(self._wconn, texts, seq)
            changes.set_text_version(self._wconn, TEXT_VERSION)
        return len(texts)

    def import_seeds(self, *, index: bool = True) -> list[ImportSummary]:
        from .bundled import seed_files

        with ExitStack() as stack:  # as_file: a zipped install hands out temporary copies
            paths = [stack.enter_context(as_file(res)) for res in seed_files()]
            return self.import_files(paths, index=index)

    def close(self) -> None:
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
            self.index.close()
            if self._maintenance is not None:
                self._maintenance.join()  # the daily backup (once a day, ~2 s at 50k papers)
            close_writer(self._wconn, optimize=not self.read_only)

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ connections
    def _reader(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = open_connection(self.paths.database, readonly=self.read_only)
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    @contextmanager
    def _write(self) -> Iterator[int]:
        """One transaction on the writer connection; yields the new change sequence number."""
        with self._store_lock:
            try:
                with self._wdb.atomic():
                    yield changes.bump_seq(self._wconn)
            except (ImportCancelled, ReaderError):
                raise
            except Exception as exc:
                mapped = classify_sqlite_error(exc)
                if mapped is exc:
                    raise
                raise mapped from exc

    # ------------------------------------------------------------------ index upkeep
    def index_needs_sync(self) -> bool:
        return self.upkeep.needs_sync()

    def _index_changes(self) -> None:
        self.upkeep.after_commit()

    def sync_index(self, progress: Progress = None, cancelled: CancelCheck = None) -> None:
        """Catch the index up with the store (rebuilding it if missing, corrupt or stale)."""
        self.upkeep.sync(progress, cancelled)

    def maintain_index(self) -> bool:
        """Merge the small index segments that single-paper updates leave (call when idle)."""
        return self.upkeep.maintain()

    def reindex(self, progress: Progress = None, cancelled: CancelCheck = None) -> None:
        """Rebuild the index from SQLite from scratch."""
        self.upkeep.reindex(progress, cancelled)

    # ------------------------------------------------------------------ reads
    def paper_ids(self, view: View = ALL, sort: str = "added", descending: bool = True) -> list[str]:
        if view.ranked:  # "more like these": by similarity, whatever the sort
            return like_ids(self, view)
        return paper_ids(self._reader(), view, sort, descending)

    def rows(self, ids: Sequence[str]) -> dict[str, PaperRow]:
        return q.rows(self._reader(), list(ids))

    def paper(self, paper_id: str) -> Paper | None:
        found = q.papers_full(self._reader(), [paper_id])
        return found[0] if found else None

    def papers(self, ids: Sequence[str]) -> list[Paper]:
        return q.papers_full(self._reader(), list(ids))

    def resolve_id(self, prefix: str) -> str:
        prefix = prefix.strip().lower()
        if not prefix or any(ch not in "0123456789abcdef" for ch in prefix):
            raise ReaderError(f"'{prefix}' is not a paper id (ids are hexadecimal, see `reader list`)")
        found = q.ids_with_prefix(self._reader(), prefix)
        if not found:
            raise ReaderError(f"no paper with id {prefix}")
        if len(found) > 1:
            raise ReaderError(f"id prefix {prefix} is ambiguous ({', '.join(found[:2])}, …)")
        return found[0]

    def counts(self) -> Counts:
        return q.counts(self._reader())

    def collections(self) -> list[tuple[str, int]]:
        return q.collections(self._reader())

    def tags(self) -> list[tuple[str, int]]:
        return tg.name_counts(self._reader())

    def saved_searches(self) -> list[dict]:
        return searches.all_searches(self._reader())

    def search(self, query: str, *, view: View | None = None, limit: int | None = 1000,
               as_you_type: bool = False) -> SearchResults:
        """Search results; `as_you_type`: the unfinished last word is a prefix, no "did you
        mean"; `results.page(start, n)` fetches later pages lazily."""
        restrict = None
        if view is not None and view.kind != ViewKind.ALL:
            restrict = set(self.paper_ids(view))
        return self.index.search(query, limit=limit, restrict=restrict, as_you_type=as_you_type)

    def suggest(self, query: str) -> Suggestion | None:
        """"Did you mean": the query with every typo'd word corrected at once and the
        corrected query's hit count (None if no word needs it or it finds nothing either).
        Cheap enough to call as the user types (tens of ms at 50k); off the GUI thread."""
        return self.index.suggestion(query)

    def warm_search(self) -> None:
        """Prepare the index for the first keystrokes (0.6-0.8 s at 50k; off the GUI thread)."""
        self.index.warm()

    def related(self, paper_id: str, limit: int = 10) -> list[tuple[str, float]]:
        return self.index.related(paper_id, limit=limit)

    def more_like(self, ids: Iterable[str], limit: int = 50, *,
                  exclude: Iterable[str] = ()) -> list[tuple[str, float]]:
        """Papers most like a set of papers (a tag's, the starred ones), best first; the
        given papers and `exclude` are left out."""
        return self.index.more_like(ids, limit=limit, exclude=exclude)

    def imports_log(self) -> list[dict]:
        return import_log.entries(self._reader())

    # ------------------------------------------------------------------ writes
    def _existing(self, ids: Iterable[str]) -> list[str]:
        ids = list(dict.fromkeys(ids))
        found = q.existing_ids(self._wconn, ids)
        missing = [i for i in ids if i not in found]
        if missing:
            raise ReaderError(f"no paper with id {missing[0]}")
        return ids

    def _flag(self, column: str, ids: Iterable[str], value: bool) -> None:
        with self._write() as seq:
            q.set_flag(self._wconn, column, self._existing(ids), value, seq)
        self._index_changes()

    def set_starred(self, ids: Iterable[str], value: bool) -> None:
        self._flag("starred", ids, value)

    def set_read(self, ids: Iterable[str], value: bool) -> None:
        self._flag("read", ids, value)

    def add_tags(self, ids: Iterable[str], tags: Iterable[str]) -> None:
        tags = tg.clean_tags(tags)
        if not tags:
            raise ReaderError("no tag given")
        with self._write() as seq:
            ids = self._existing(ids)
            for name in tags:
                tg.add(self._wconn, ids, name)
            q.touch(self._wconn, ids, seq)
        self._index_changes()

    def remove_tags(self, ids: Iterable[str], tags: Iterable[str]) -> None:
        tags = tg.clean_tags(tags)
        with self._write() as seq:
            ids = self._existing(ids)
            for name in tags:
                tg.remove(self._wconn, ids, name)
            tg.drop_unused(self._wconn)
            q.touch(self._wconn, ids, seq)
        self._index_changes()

    def rename_tag(self, old: str, new: str) -> None:
        new = tg.clean_tag(new)
        if not new:
            raise ReaderError("the new tag name is empty")
        with self._write() as seq:
            old_id = tg.tag_id(self._wconn, tg.clean_tag(old), create=False)
            if old_id is None:
                raise ReaderError(f"no tag named {old!r}")
            affected = tg.papers_with(self._wconn, old_id)
            target = tg.tag_id(self._wconn, new, create=False)
            if target is None or target == old_id:
                tg.rename(self._wconn, old_id, new)
            else:  # merge
                tg.merge(self._wconn, old_id, into=target)
            q.touch(self._wconn, affected, seq)
        self._index_changes()

    def delete_tag(self, name: str) -> None:
        with self._write() as seq:
            tid = tg.tag_id(self._wconn, tg.clean_tag(name), create=False)
            if tid is None:
                raise ReaderError(f"no tag named {name!r}")
            affected = tg.papers_with(self._wconn, tid)
            tg.delete(self._wconn, tid)
            q.touch(self._wconn, affected, seq)
        self._index_changes()

    def set_title(self, paper_id: str, title: str) -> None:
        from .text import derive_title

        title = " ".join(title.split())
        with self._write() as seq:
            pid = self._existing([paper_id])[0]
            row = q.title_fields(self._wconn, pid)
            source: TitleSource
            if not title or title == row.derived_title:
                derived = derive_title(row.abstract, row.method or None) == row.derived_title
                source = TitleSource.DERIVED if derived else TitleSource.IMPORTED
                title = row.derived_title
            else:
                source = TitleSource.EDITED
            q.set_title(self._wconn, pid, title, source)
            q.touch(self._wconn, [pid], seq)
        self._index_changes()

    def set_note(self, paper_id: str, text: str) -> None:
        with self._store_lock:
            pid = self._existing([paper_id])[0]
            if notes.body(self._wconn, pid) == (text if text.strip() else ""):
                return  # autosave of an unchanged note: no transaction, no index work
            with self._write() as seq:
                notes.set_note(self._wconn, pid, text)
                q.touch(self._wconn, [pid], seq)
        self._index_changes()

    def add_highlight(
        self, paper_id: str, start: int, end: int, color: HighlightColour | str = HighlightColour.YELLOW,
        comment: str = "",
    ) -> int:
        from .text import abstract_plain

        colour = _colour(color)
        with self._write() as seq:
            pid = self._existing([paper_id])[0]
            plain = abstract_plain(q.abstract_of(self._wconn, pid))
            # the GUI selects in abstract_plain's text; the stored copy is only for the index
            start, end = int(start), int(end)
            if not (0 <= start < end <= len(plain)):
                raise ReaderError(f"highlight {start}–{end} is outside the abstract (0–{len(plain)})")
            hid = hl.add(self._wconn, pid, Highlight(start=start, end=end, quote=plain[start:end], color=colour,
                                                     comment=comment))
            q.touch(self._wconn, [pid], seq)
        self._index_changes()
        return hid

    def _highlight_paper(self, highlight_id: int) -> str:
        pid = hl.paper_of(self._wconn, highlight_id)
        if pid is None:
            raise ReaderError(f"no highlight {highlight_id}")
        return pid

    def update_highlight(
        self, highlight_id: int, *, color: HighlightColour | str | None = None, comment: str | None = None
    ) -> None:
        colour = None if color is None else _colour(color)
        with self._write() as seq:
            pid = self._highlight_paper(highlight_id)
            if colour is not None:
                hl.set_colour(self._wconn, highlight_id, colour)
            if comment is not None:
                hl.set_comment(self._wconn, highlight_id, comment)
            q.touch(self._wconn, [pid], seq)
        self._index_changes()

    def remove_highlight(self, highlight_id: int) -> None:
        with self._write() as seq:
            pid = self._highlight_paper(highlight_id)
            hl.remove(self._wconn, highlight_id)
            q.touch(self._wconn, [pid], seq)
        self._index_changes()

    def delete_papers(self, ids: Iterable[str]) -> None:
        with self._write() as seq:
            ids = self._existing(ids)
            q.delete_papers(self._wconn, ids, seq)
            tg.drop_unused(self._wconn)
        self._index_changes()

    def snapshot(self, ids: Iterable[str]) -> list[Paper]:
        with self._store_lock:
            return q.papers_full(self._wconn, list(ids))

    def restore(self, snapshots: Sequence[Paper], *, remove_ids: Iterable[str] = ()) -> None:
        from .text import abstract_plain

        remove_ids = list(remove_ids)
        texts = [abstract_plain(snap.abstract) for snap in snapshots]
        with self._write() as seq:
            for snap, text in zip(snapshots, texts, strict=True):
                q.write_paper_state(self._wconn, snap, seq, text)
            present = q.existing_ids(self._wconn, remove_ids)
            if present:
                q.delete_papers(self._wconn, [i for i in remove_ids if i in present], seq)
            tg.drop_unused(self._wconn)
        self._index_changes()

    def save_search(self, name: str, query: str) -> int:
        name = " ".join(name.split())
        if not name or not query.strip():
            raise ReaderError("a saved search needs a name and a query")
        with self._write():
            return searches.save(self._wconn, name, query.strip())

    def rename_saved_search(self, search_id: int, name: str) -> None:
        name = " ".join(name.split())
        if not name:
            raise ReaderError("the new name is empty")
        with self._write():
            try:
                searches.rename(self._wconn, search_id, name)
            except Exception as exc:
                if "UNIQUE" in str(exc):
                    raise ReaderError(f"a saved search named {name!r} already exists") from exc
                raise

    def delete_saved_search(self, search_id: int) -> None:
        with self._write():
            searches.delete(self._wconn, search_id)

    # ------------------------------------------------------------------ import
    def import_files(
        self, paths: Iterable[str | Path], *, progress: Progress = None, cancelled: CancelCheck = None,
        index: bool = True,
    ) -> list[ImportSummary]:
        """Import each file in its own transaction; a rejected file writes nothing."""
        from .importers import display_name, parse_file

        files = [Path(p) for p in paths]
        summaries: list[ImportSummary] = []
        for n, path in enumerate(files):
            if cancelled and cancelled():
                break
            if progress:
                progress(n, len(files), f"Reading {path.name}")
            summary = ImportSummary(path=display_name(path))
            try:
                parsed = parse_file(path)
                summary.format = parsed.format
                self._store_parsed(parsed, summary, progress, cancelled)
            except ReaderError as exc:  # a bad file, or the library refusing the write: this file only
                summary.error = str(exc)
            except ImportCancelled:
                summary.error = f"{path}: import cancelled, nothing was added"
                summaries.append(summary)
                break
            except Exception as exc:  # a bug must not cost the other files their import or summary
                log.exception("import of %s failed", summary.path)
                summary.error = (f"{summary.path}: internal error ({type(exc).__name__}); "
                                 "nothing from this file was added")
            summaries.append(summary)
        if progress:
            progress(len(files), len(files), "Imported")
        if index:
            self.sync_index(progress, cancelled)
        return summaries

    def _store_parsed(self, parsed: ParseResult, summary: ImportSummary, progress: Progress, cancelled: CancelCheck) -> None:
        def check(done: int, total: int) -> None:
            if cancelled and cancelled():
                raise ImportCancelled()
            if progress and total > _IMPORT_PROGRESS_EVERY:
                progress(done, total, f"Importing {Path(parsed.path).name}")

        from .ingest import store_parsed

        bulk: list[BulkIndex] = []

        def start_index(prepare: Prepare) -> BulkIndex | None:
            found = self.upkeep.start_bulk(seq, prepare, q.count(self._wconn) == 0)
            if found is not None:
                bulk.append(found)
            return found

        try:
            with self._write() as seq:
                store_parsed(self._wconn, parsed, summary, seq, check, start_index)
        except BaseException:
            for b in bulk:
                b.cancel()
            raise
        for b in bulk:  # stored: now searchable too (index trouble is logged, never raised)
            if progress:
                progress(0, 0, f"Indexing {Path(parsed.path).name}")
            b.commit()
            # A write committed between the store's commit and the index's was skipped by
            # its after-commit update (the index was busy): catch it up now.
            self._index_changes()

    # ------------------------------------------------------------------ export
    def _export_papers(self, ids: Sequence[str] | None) -> list[Paper]:
        if ids is None:
            ids = self.paper_ids(View(), sort="added", descending=False)
        return self.papers(ids)

    def reading_list_markdown(
        self, ids: Sequence[str], *, title: str = "Reading list", group_by: GroupBy = None,
        with_abstracts: bool = False,
    ) -> str:
        from .exporters.markdown import reading_list
        from .text import abstract_markdown

        return reading_list(
            self._export_papers(ids), title=title, generated=datetime.now(), group_by=group_by,
            with_abstracts=with_abstracts, abstract_markdown=abstract_markdown,
        )

    def export_reading_list(
        self, path: str | Path, ids: Sequence[str], *, title: str = "Reading list",
        group_by: GroupBy = None, with_abstracts: bool = False,
    ) -> Path:
        text = self.reading_list_markdown(ids, title=title, group_by=group_by, with_abstracts=with_abstracts)
        return _write_text_atomic(Path(path), text)

    def export_per_paper(self, folder: str | Path, ids: Sequence[str], *, with_abstracts: bool = False) -> list[Path]:
        from .exporters.markdown import write_per_paper
        from .text import abstract_markdown

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        return write_per_paper(
            self._export_papers(ids), folder, with_abstracts=with_abstracts, abstract_markdown=abstract_markdown
        )

    def backup_data(self) -> dict:
        papers = [p.to_dict(highlight_ids=False) for p in self._export_papers(None)]
        return {
            "format": "reader-backup",
            "version": 1,
            "app_version": __version__,
            "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "papers": papers,
            "saved_searches": [{"name": s["name"], "query": s["query"]} for s in self.saved_searches()],
        }

    def export_json(self, path: str | Path) -> Path:
        text = json.dumps(self.backup_data(), ensure_ascii=False, indent=1)
        return _write_text_atomic(Path(path), text + "\n")

    # ------------------------------------------------------------------ listing
    def listing(self, query: str = "", view: View = ALL, sort: str = "added", descending: bool = True, *,
                search_sort: tuple[str, bool] | None = None, limit: int = SEARCH_LIMIT) -> Listing:
        """The ids a list shows (GUI table, `reader list`/`search`): see reader.listing.list_papers."""
        return list_papers(self, query, view, sort, descending, search_sort, limit)


def _colour(value: HighlightColour | str) -> HighlightColour:
    colour = HighlightColour.parse(value)
    if colour is None:
        names = ", ".join(c.value for c in HighlightColour)
        raise ReaderError(f"unknown highlight colour {value!r} (use one of {names})")
    return colour


def _write_text_atomic(path: Path, text: str) -> Path:
    """Write via a temp file and rename, so a failed export never leaves half a file."""
    if path.is_dir():
        raise ReaderError(f"{path} is a folder; give a file name")
    if not path.parent.is_dir():
        raise ReaderError(f"{path.parent}: no such folder")
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ReaderError(f"{path}: cannot write ({exc.strerror})") from exc
    return path


def summarize(summaries: Sequence[ImportSummary]) -> str:
    new = sum(s.new for s in summaries)
    dup = sum(s.duplicates for s in summaries)
    skipped = sum(len(s.skipped) for s in summaries)
    errors = sum(1 for s in summaries if s.error)
    return f"{new} new, {dup} duplicates, {skipped} skipped, {errors} files rejected"


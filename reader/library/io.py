"""The Library's imports (each file one transaction) and exports (Markdown, JSON backup)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from importlib.resources import as_file
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..errors import ReaderError
from ..events import Change
from ..index_upkeep import CancelCheck, Progress
from ..models import ExportKind, ImportSummary, Paper, ParseResult
from ..plural import count_noun
from ..store import changes
from ..store import papers as q
from ..store.sql import read_snapshot
from ..store.views import View, paper_ids
from .core import ImportCancelled, LibraryBase

if TYPE_CHECKING:
    from ..exporters.markdown import GroupBy

log = logging.getLogger(__name__)

_IMPORT_PROGRESS_EVERY = 1000
# A file this big almost surely holds ingest.PARALLEL_MIN papers (1,000: ~1 MB of abstracts):
# its index workers are started before it is parsed (~1 s of their start-up overlaps the parse).
STANDBY_BYTES = 2_000_000
_EXPORT_BATCH = 500  # papers read at a time by the citation exports


def _big_file(path: Path) -> bool:
    try:
        return path.stat().st_size >= STANDBY_BYTES
    except OSError:
        return False


EXPORT_PROGRESS_EVERY = 500  # papers between two progress reports of an export


class ExportCancelled(Exception):
    """An export stopped by the user: nothing was written in its place."""


class LibraryIO(LibraryBase):
    """Files in, Markdown and backups out (services.Library inherits them)."""

    def import_seeds(self, *, index: bool = True) -> list[ImportSummary]:
        from ..bundled import seed_files

        with ExitStack() as stack:  # as_file: a zipped install hands out temporary copies
            paths = [stack.enter_context(as_file(res)) for res in seed_files()]
            return self.import_files(paths, index=index)

    # ------------------------------------------------------------------ import
    def import_files(
        self, paths: Iterable[str | Path], *, progress: Progress = None, cancelled: CancelCheck = None,
        index: bool = True,
    ) -> list[ImportSummary]:
        """Import each file in its own transaction; a rejected file writes nothing. A folder
        stands for the paper files in it (not its sub-folders); its own summary, first, names
        what it passed over."""
        from ..importers import display_name, parse_file

        files, folder_notes = _expand_folders([Path(p) for p in paths])
        summaries: list[ImportSummary] = []
        for n, path in enumerate(files):
            if cancelled and cancelled():
                break
            summaries.extend(folder_notes.pop(n, []))  # a folder's summary stands in its place
            if progress:
                progress(n, len(files), f"Reading {path.name}")
            summary = ImportSummary(path=display_name(path))
            try:
                if _big_file(path):  # its index workers start while it is parsed
                    from ..ingest import prepare_new

                    self.upkeep.prestart_bulk(prepare_new)
                parsed = parse_file(path)
                summary.format = parsed.format
                self._store_parsed(parsed, summary, progress, cancelled)
            except ReaderError as exc:  # a bad file, or the library refusing the write: this file only
                summary.error = str(exc)
            except ImportCancelled:  # nothing was kept: the counts made before the cancel say no more
                summary = ImportSummary(path=summary.path, format=summary.format,
                                        error=f"{path}: import cancelled, nothing was added")
                summaries.append(summary)
                break
            except Exception as exc:  # a bug must not cost the other files their import or summary
                log.exception("import of %s failed", summary.path)
                summary.error = (f"{summary.path}: internal error ({type(exc).__name__}); "
                                 "nothing from this file was added")
            finally:
                self.upkeep.drop_standby()  # workers the file did not need (too few new papers)
            summaries.append(summary)
        if not (cancelled and cancelled()):
            summaries.extend(note for notes in folder_notes.values() for note in notes)  # folders at the end
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

        from ..ingest import plan_import, prepare_new, store_parsed

        name = Path(parsed.path).name
        with self.upkeep.bulk() as bulk:  # index workers alongside a big import: their segments
            with self._write() as seq:    # are added once the store has committed
                plan = plan_import(self._wconn, parsed, seq)
                workers = bulk.start(seq, prepare_new, plan.empty) if plan.parallel else None
                store_parsed(self._wconn, parsed, summary, seq, check, workers, plan)
                # Cancel pressed after the last batch (while the index workers finish, or the
                # rows are written): still before the commit, so nothing is kept or indexed.
                if cancelled and cancelled():
                    raise ImportCancelled()
            if bulk.index is not None and progress:
                progress(0, 0, f"Indexing {name}")
        kinds = {Change.IMPORT, Change.SEARCHES} if parsed.saved_searches else {Change.IMPORT}
        # The index is brought up by import_files' sync (or the caller's), not file by file.
        self._committed(kinds, changes.touched_at(self._reader(), seq), index=False)

    # ------------------------------------------------------------------ export
    def _export_papers(self, ids: Sequence[str] | None) -> list[Paper]:
        if ids is None:
            ids = self.paper_ids(View(), sort="added", descending=False)
        return self.papers(ids)

    def reading_list_markdown(
        self, ids: Sequence[str], *, title: str = "Reading list", group_by: GroupBy = None,
        with_abstracts: bool = False,
    ) -> str:
        from ..exporters.markdown import reading_list
        from ..text import abstract_markdown

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
        from ..exporters.markdown import write_per_paper
        from ..text import abstract_markdown

        return write_per_paper(  # it makes the folder, after checking what stands at its name
            self._export_papers(ids), Path(folder), with_abstracts=with_abstracts, abstract_markdown=abstract_markdown
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

    # ------------------------------------------------------------------ citing
    def _cited_papers(self, ids: Sequence[str] | None) -> Iterator[Paper]:
        """The papers of ids (all, in the order added, when None), read in batches inside one
        read transaction: the export sees one state of the library, however long it takes."""
        with read_snapshot(self._reader()) as conn:
            if ids is None:
                ids = paper_ids(conn, View(), "added", False)
            for start in range(0, len(ids), _EXPORT_BATCH):
                yield from q.papers_full(conn, ids[start:start + _EXPORT_BATCH])

    def citations_text(self, ids: Sequence[str], kind: ExportKind, *, with_notes: bool = False) -> str:
        """BibTeX, CSL-JSON or RIS for papers (Copy as BibTeX)."""
        from ..exporters.cite import chunks

        return "".join(chunks(kind, self._cited_papers(list(ids)), with_notes=with_notes))

    def export_citations(self, path: str | Path, ids: Sequence[str] | None, kind: ExportKind, *,
                         with_notes: bool = False, progress: Progress = None,
                         cancelled: CancelCheck = None) -> int:
        """Write a BibTeX, CSL-JSON or RIS file of papers (all when ids is None), streamed to a
        temporary file renamed into place; returns how many papers it holds. `cancelled`
        polled before each paper: ExportCancelled, and no file (nor temporary file) is left."""
        from ..exporters.cite import chunks

        written = 0
        total = len(ids) if ids is not None else 0

        def counted() -> Iterator[Paper]:
            nonlocal written
            for paper in self._cited_papers(None if ids is None else list(ids)):
                if cancelled is not None and cancelled():
                    raise ExportCancelled(f"export to {path} cancelled")
                if progress is not None and written % EXPORT_PROGRESS_EVERY == 0:
                    progress(written, total, "Exporting")
                written += 1
                yield paper

        _write_chunks_atomic(Path(path), chunks(kind, counted(), with_notes=with_notes))
        return written

    def export_json(self, path: str | Path) -> Path:
        text = json.dumps(self.backup_data(), ensure_ascii=False, indent=1)
        return _write_text_atomic(Path(path), text + "\n")


def _write_text_atomic(path: Path, text: str) -> Path:
    """Write via a temp file and rename, so a failed export never leaves half a file."""
    return _write_chunks_atomic(path, [text])


def _write_chunks_atomic(path: Path, chunks: Iterable[str]) -> Path:
    """Write text given in pieces via a uniquely named temp file and rename (a failed export
    leaves no file; never over a folder, FIFO or device; a symlink is written through)."""
    from ..output_files import write_chunks

    return write_chunks(path, chunks)


def _expand_folders(paths: list[Path]) -> tuple[list[Path], dict[int, list[ImportSummary]]]:
    """The files to import, each folder replaced by its paper files, and the summaries of the
    folders that passed something over (or held no paper file: then it is their error), by the
    index in the files of what comes after them."""
    from ..importers import display_name
    from ..importers.folders import paper_files

    files: list[Path] = []
    notes: dict[int, list[ImportSummary]] = {}
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        name = display_name(path)
        try:
            taken, passed = paper_files(path)
        except ReaderError as exc:
            notes.setdefault(len(files), []).append(ImportSummary(path=name, format="folder", error=str(exc)))
            continue
        if not taken:
            what = f" (passed over {count_noun(len(passed), 'file')})" if passed else ""
            notes.setdefault(len(files), []).append(ImportSummary(
                path=name, format="folder", error=f"{name}: no paper files in this folder{what}"))
        elif passed:
            notes.setdefault(len(files), []).append(ImportSummary(path=name, format="folder", passed_over=passed))
        files.extend(taken)
    return files, notes


def summarize(summaries: Sequence[ImportSummary]) -> str:
    new = sum(s.new for s in summaries)
    dup = sum(s.duplicates for s in summaries)
    skipped = sum(len(s.skipped) for s in summaries)
    bare = sum(s.without_abstract for s in summaries)
    errors = sum(1 for s in summaries if s.error)
    passed = sum(len(s.passed_over or ()) for s in summaries)
    return (f"{count_noun(sum(s.entries for s in summaries), 'entry')}: {new:,} new, "
            f"{count_noun(dup, 'duplicate')}, {bare:,} without abstract, {skipped:,} rejected, "
            f"{count_noun(errors, 'file')} refused" + (f", {passed:,} passed over" if passed else ""))

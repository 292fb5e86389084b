"""The Library's edits: star, read, tags, titles, notes, highlights, delete/restore and saved
searches, each one transaction that publishes what it changed once committed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..errors import ReaderError
from ..events import Change
from ..models import Highlight, HighlightColour, Paper, TitleSource
from ..store import highlights as hl
from ..store import notes, searches
from ..store import papers as q
from ..store import tags as tg
from ..store import venues as venue_store
from .core import LibraryBase

# What an undo's restore may have put back: any of a paper's state, or the paper itself.
_RESTORED = frozenset({Change.STAR, Change.READ, Change.SKIP, Change.TAG, Change.NOTE, Change.HIGHLIGHT,
                       Change.TITLE, Change.CITEKEY, Change.DELETE})


class Edits(LibraryBase):
    """The user's changes to papers and saved searches (services.Library inherits them)."""

    def _existing(self, ids: Iterable[str]) -> list[str]:
        ids = list(dict.fromkeys(ids))
        found = q.existing_ids(self._wconn, ids)
        missing = [i for i in ids if i not in found]
        if missing:
            raise ReaderError(f"no paper with id {missing[0]}")
        return ids

    def _flag(self, column: str, ids: Iterable[str], value: bool, kind: Change) -> None:
        with self._write() as seq:
            ids = self._existing(ids)
            q.set_flag(self._wconn, column, ids, value, seq)
        self._committed(kind, ids)

    def set_starred(self, ids: Iterable[str], value: bool) -> None:
        self._flag("starred", ids, value, Change.STAR)

    def set_read(self, ids: Iterable[str], value: bool) -> None:
        self._flag("read", ids, value, Change.READ)

    def set_skipped(self, ids: Iterable[str], value: bool, *, mark_read: bool = True) -> None:
        """"Not for me" (triage X) set or cleared; setting it marks the papers read too (one
        transaction: one decision, one undo step)."""
        with self._write() as seq:
            ids = self._existing(ids)
            q.set_flag(self._wconn, "skipped", ids, value, seq)
            if value and mark_read:
                q.set_flag(self._wconn, "read", ids, True, seq)
        self._committed([Change.SKIP, Change.READ] if value and mark_read else Change.SKIP, ids)

    def add_tags(self, ids: Iterable[str], tags: Iterable[str]) -> None:
        tags = tg.clean_tags(tags)
        if not tags:
            raise ReaderError("no tag given")
        with self._write() as seq:
            ids = self._existing(ids)
            for name in tags:
                tg.add(self._wconn, ids, name)
            q.touch(self._wconn, ids, seq)
        self._committed(Change.TAG, ids)

    def remove_tags(self, ids: Iterable[str], tags: Iterable[str]) -> None:
        tags = tg.clean_tags(tags)
        with self._write() as seq:
            ids = self._existing(ids)
            for name in tags:
                tg.remove(self._wconn, ids, name)
            tg.drop_unused(self._wconn)
            q.touch(self._wconn, ids, seq)
        self._committed(Change.TAG, ids)

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
        self._committed(Change.TAG, affected)

    def delete_tag(self, name: str) -> None:
        with self._write() as seq:
            tid = tg.tag_id(self._wconn, tg.clean_tag(name), create=False)
            if tid is None:
                raise ReaderError(f"no tag named {name!r}")
            affected = tg.papers_with(self._wconn, tid)
            tg.delete(self._wconn, tid)
            q.touch(self._wconn, affected, seq)
        self._committed(Change.TAG, affected)

    def set_title(self, paper_id: str, title: str) -> None:
        from ..text import derive_title

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
        self._committed(Change.TITLE, [pid])

    def set_citation_key(self, paper_id: str, key: str) -> str:
        """Give a paper a new citation key (checked: allowed characters, unique ignoring case);
        "" makes one from its authors, year and title again. Returns the key it now has."""
        from ..store import citekeys
        from ..text.citekeys import key_problem, unique_key

        key = key.strip()
        problem = key_problem(key) if key else None
        if problem:
            raise ReaderError(problem)
        with self._store_lock:
            pid = self._existing([paper_id])[0]
            current = citekeys.key_of(self._wconn, pid)
            if key and key == current:
                return key  # nothing to change: no transaction, no index work
            holder = citekeys.owner(self._wconn, key) if key else None
            if holder not in (None, pid):
                raise ReaderError(f"the citation key {key} is already used by another paper ({holder})")
            with self._write() as seq:
                if not key:
                    paper = q.papers_full(self._wconn, [pid])[0]
                    taken = citekeys.taken_keys(self._wconn) - {current.casefold()}
                    key = unique_key(citekeys.made_key(paper.authors, paper.year, paper.title, paper.method),
                                     taken)
                citekeys.set_key(self._wconn, pid, key)
                q.touch(self._wconn, [pid], seq)
        self._committed(Change.CITEKEY, [pid])
        return key

    def set_note(self, paper_id: str, text: str) -> None:
        with self._store_lock:
            pid = self._existing([paper_id])[0]
            if notes.body(self._wconn, pid) == (text if text.strip() else ""):
                return  # autosave of an unchanged note: no transaction, no index work
            with self._write() as seq:
                notes.set_note(self._wconn, pid, text)
                q.touch(self._wconn, [pid], seq)
        self._committed(Change.NOTE, [pid])

    def add_highlight(
        self, paper_id: str, start: int, end: int, color: HighlightColour | str = HighlightColour.YELLOW,
        comment: str = "",
    ) -> int:
        from ..text import abstract_plain

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
        self._committed(Change.HIGHLIGHT, [pid])
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
        self._committed(Change.HIGHLIGHT, [pid])

    def remove_highlight(self, highlight_id: int) -> None:
        with self._write() as seq:
            pid = self._highlight_paper(highlight_id)
            hl.remove(self._wconn, highlight_id)
            q.touch(self._wconn, [pid], seq)
        self._committed(Change.HIGHLIGHT, [pid])

    def delete_papers(self, ids: Iterable[str]) -> None:
        with self._write() as seq:
            ids = self._existing(ids)
            q.delete_papers(self._wconn, ids, seq)
            tg.drop_unused(self._wconn)
        self._committed(Change.DELETE, ids)

    def snapshot(self, ids: Iterable[str]) -> list[Paper]:
        with self._store_lock:
            return q.papers_full(self._wconn, list(ids))

    def restore(self, snapshots: Sequence[Paper], *, remove_ids: Iterable[str] = ()) -> None:
        from ..text import abstract_plain

        remove_ids = list(remove_ids)
        texts = [abstract_plain(snap.abstract) for snap in snapshots]
        with self._write() as seq:
            before = venue_store.stored(self._wconn, [snap.id for snap in snapshots])
            for snap, text in zip(snapshots, texts, strict=True):
                q.write_paper_state(self._wconn, snap, seq, text)
            present = q.existing_ids(self._wconn, remove_ids)
            gone = venue_store.stored(self._wconn, list(present))
            if present:
                q.delete_papers(self._wconn, [i for i in remove_ids if i in present], seq)
            tg.drop_unused(self._wconn)
            # A row is written with its spelling's own venue key; the key the library folds that
            # spelling into (an acronym, a full name) depends on the other papers. An undo of a
            # star, a tag or a "not for me" leaves every venue as it was: the rows keep their keys
            # (a refold reads the whole library's venues: at 100k, beside the window's own reads).
            moved = [snap for snap in snapshots if before.get(snap.id, ("", ""))[0] != snap.venue]
            if moved or any(venue for venue, _ in gone.values()):
                venue_store.refold(self._wconn)
            else:
                venue_store.keep_keys(self._wconn, {pid: key for pid, (venue, key) in before.items() if venue})
        self._committed(_RESTORED, [snap.id for snap in snapshots] + list(present))

    def save_search(self, name: str, query: str) -> int:
        name = " ".join(name.split())
        if not name or not query.strip():
            raise ReaderError("a saved search needs a name and a query")
        with self._write():
            search_id = searches.save(self._wconn, name, query.strip())
        self._committed(Change.SEARCHES, index=False)  # saved searches are not in the index
        return search_id

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
        self._committed(Change.SEARCHES, index=False)

    def delete_saved_search(self, search_id: int) -> None:
        with self._write():
            searches.delete(self._wconn, search_id)
        self._committed(Change.SEARCHES, index=False)


def _colour(value: HighlightColour | str) -> HighlightColour:
    colour = HighlightColour.parse(value)
    if colour is None:
        names = ", ".join(c.value for c in HighlightColour)
        raise ReaderError(f"unknown highlight colour {value!r} (use one of {names})")
    return colour

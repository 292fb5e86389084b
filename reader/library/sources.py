"""The Library's fetched papers (reader/sources): storing them (one transaction each) and the
followed arXiv feeds. Network work happens before, in the caller (reader.sources)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..events import Change
from ..index_upkeep import CancelCheck, Progress
from ..models import Record
from ..store import changes
from ..store import feeds as feed_store
from .core import ImportCancelled, LibraryBase

if TYPE_CHECKING:
    from .fetched import FetchResult

_PROGRESS_EVERY = 1000


class FetchedPapers(LibraryBase):
    """Papers from the services, and the feeds followed (services.Library inherits them)."""

    def add_fetched(self, records: Sequence[Record], *, collection: str, origin: str,
                    progress: Progress = None, cancelled: CancelCheck = None) -> FetchResult:
        """Store fetched records in one transaction: new papers join `collection`, papers held
        already take the service's metadata and keep the user's stars, tags, notes, highlights
        and citation keys (reader/fetched.py). `origin` names the fetch ("arxiv", "pmlr:v235")
        in the papers' sources and the import log. Counts: result.new / updated / unchanged."""
        return self._store_fetched(records, collection, origin, progress, cancelled, None)

    def _store_fetched(self, records: Sequence[Record], collection: str, origin: str, progress: Progress,
                       cancelled: CancelCheck, feed: tuple[int, str] | None) -> FetchResult:
        from .fetched import store_fetched

        def check(done: int, total: int) -> None:
            if cancelled and cancelled():
                raise ImportCancelled()
            if progress and total > _PROGRESS_EVERY:
                progress(done, total, f"Storing {origin}")

        with self.upkeep.bulk() as bulk:  # index workers beside a big fetch: their segments are
            with self._write() as seq:    # added once the store has committed
                result, _ = store_fetched(self._wconn, records, collection=collection, origin=origin, seq=seq,
                                          progress=check, bulk=bulk)
                if feed is not None:
                    feed_store.set_updated(self._wconn, feed[0], feed[1])
                if cancelled and cancelled():
                    raise ImportCancelled()
        kinds = {Change.IMPORT, Change.FEEDS} if feed is not None else {Change.IMPORT}
        self._committed(kinds, changes.touched_at(self._reader(), seq))
        return result

    # ------------------------------------------------------------------ feeds
    def follow_feed(self, source: str, category: str, query: str = "") -> tuple[feed_store.FeedRow, bool]:
        """Follow an arXiv category (and query); (the feed, whether it is new)."""
        with self._write():
            feed, created = feed_store.add(self._wconn, source, category, query,
                                           feed_store.collection_name(category, query))
        if created:
            self._committed(Change.FEEDS, index=False)
        return feed, created

    def unfollow_feed(self, feed_id: int) -> bool:
        with self._write():
            gone = feed_store.remove(self._wconn, feed_id)
        if gone:
            self._committed(Change.FEEDS, index=False)
        return gone

    def feeds(self) -> list[feed_store.FeedRow]:
        return feed_store.all_feeds(self._reader())

    def store_feed_update(self, feed_id: int, records: Sequence[Record], newest: str, *,
                          progress: Progress = None, cancelled: CancelCheck = None) -> FetchResult:
        """Store a feed update's papers in its collection and, in the same transaction, when it
        was updated and the newest submission seen (a killed update changes nothing)."""
        feed = feed_store.get(self._reader(), feed_id)
        if feed is None:
            from ..errors import ReaderError

            raise ReaderError(f"no feed {feed_id}")
        return self._store_fetched(records, feed.collection, f"{feed.source}:{feed.category}", progress,
                                   cancelled, (feed_id, newest))

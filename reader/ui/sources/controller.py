"""The window's fetching: Edit → Add by identifier…, Edit → Follow arXiv category…, Edit →
Update arXiv feeds, and the feeds' update when the window opens (if the last one is older than
a day). Fetches run on the task runner's network thread, their papers are stored by a write;
the sidebar's New view and the list follow the change events."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QInputDialog

from reader.errors import ReaderError
from reader.library import FeedRow

from ..pages import PageContext, add_window_action, menu_named
from ..tasks import Task

# reader.sources (urllib3, and every importer the feeds parse with) loads with a fetch or a
# dialog, on first use: the window's start never needs it.
if TYPE_CHECKING:
    from reader.sources.feeds import FeedFetch

    from .add_by_id import AddByIdDialog
    from .add_venue import AddVenueDialog

UPDATE_AFTER = timedelta(days=1)  # the window updates the feeds when it opens after this long
OPEN_DELAY_MS = 1500  # ... a moment after it opens (the list and index come first)


def due(feeds: list[FeedRow], now: datetime | None = None) -> bool:
    """A feed never updated, or last updated more than UPDATE_AFTER ago."""
    now = now or datetime.now(UTC)
    for f in feeds:
        try:
            last = datetime.fromisoformat(f.updated_at) if f.updated_at else None
        except ValueError:
            last = None
        if last is None or now - last > UPDATE_AFTER:
            return True
    return False


class SourcesController(QObject):
    """Owned by the window (`window.sources`)."""

    def __init__(self, ctx: PageContext) -> None:
        super().__init__(ctx.window)
        self.ctx = ctx
        self.library = ctx.library
        self.runner = ctx.runner
        self.dialog: AddByIdDialog | None = None
        self.update_task: Task | None = None
        self.last_update: list[tuple[str, Any]] = []  # (feed name, FetchResult) of the last update
        menu = menu_named(ctx, "&Edit")
        first = next((a for a in menu.actions() if a.objectName() == "saveSearchAction"), None)

        def action(text: str, name: str, slot: Callable[[], object], keys: str = "") -> QAction:
            a = QAction(text, ctx.window)
            a.setObjectName(name)
            if keys:
                a.setShortcut(QKeySequence(keys))
            a.triggered.connect(lambda _=False: slot())
            add_window_action(ctx, a, listed=bool(keys))
            menu.insertAction(first, a) if first is not None else menu.addAction(a)
            return a

        self.addAction = action("Add by &identifier…", "addByIdAction", self.ask_add, "Ctrl+Shift+I")
        self.followAction = action("&Follow arXiv category…", "followFeedAction", self.ask_follow)
        self.updateAction = action("Update arXiv &feeds", "updateFeedsAction", self.update_feeds)
        if first is not None:
            menu.insertSeparator(first)
        QTimer.singleShot(OPEN_DELAY_MS, self.update_if_due)

    def ask_add_venue(self) -> AddVenueDialog:
        """File → Add a conference…: the catalogue, fetched on the task runner (add_venue.py)."""
        from .add_venue import AddVenueDialog

        dialog = AddVenueDialog(self.ctx.window, self.library, self.runner)
        dialog.open()
        return dialog

    # ------------------------------------------------------------------ add by identifier
    def ask_add(self) -> AddByIdDialog:
        from .add_by_id import AddByIdDialog

        if self.dialog is None or not self.dialog.isVisible():
            self.dialog = AddByIdDialog(self.ctx.window, self.library, self.runner, on_added=self._added,
                                        on_error=self.ctx.on_error)
        self.dialog.show()
        self.dialog.activateWindow()
        return self.dialog

    def _added(self, ids: list[str]) -> None:
        self.ctx.notify(f"{len(ids)} {'paper' if len(ids) == 1 else 'papers'} from their identifiers", 4000)

    # ------------------------------------------------------------------ feeds
    def ask_follow(self) -> None:
        text, ok = QInputDialog.getText(self.ctx.window, "Follow arXiv category",
                                        "arXiv category (e.g. cs.LG, stat.ML, hep-th); its newest papers "
                                        "come to the New view:")
        if not ok or not text.strip():
            return
        from reader.sources.feeds import parse_spec

        try:
            source, category = parse_spec(text if text.strip().lower().startswith("arxiv:") else f"arxiv:{text}")
        except ReaderError as exc:
            self.ctx.on_error(exc)
            return
        self.runner.write(lambda: self.library.follow_feed(source, category), lambda _r: self.update_feeds(),
                          self.ctx.on_error)

    def update_if_due(self) -> None:
        if self.ctx.closing:
            return
        self.runner.read("feeds", self.library.feeds, lambda feeds: self.update_feeds() if due(feeds) else None,
                         self.ctx.on_error)

    def update_feeds(self) -> Task | None:
        """Fetch every feed's newest papers (network thread), then store them (one write each)."""
        if self.update_task is not None or self.ctx.closing:
            return self.update_task
        lib = self.library
        root = lib.paths.root

        def fetch(task: Task) -> list[tuple[FeedRow, FeedFetch]]:
            from reader.sources import Client
            from reader.sources.feeds import fetch_new

            out = []
            with Client(root, cancelled=task.cancelled) as client:
                for f in lib.feeds():
                    out.append((f, fetch_new(client, f.category, f.query, f.newest,
                                             progress=lambda n, m: task.progress(n, 0, m))))
            return out

        self.update_task = self.runner.network(fetch, self._fetched, self._failed,
                                               label="Updating arXiv feeds", with_task=True)
        return self.update_task

    def _fetched(self, fetched: list[tuple[FeedRow, FeedFetch]]) -> None:
        def store() -> list[tuple[str, Any]]:
            return [(f.name, self.library.store_feed_update(f.id, got.records, got.newest)) for f, got in fetched]

        self.runner.write(store, self._stored, self._failed, label="Adding the feeds' papers")

    def _stored(self, results: list[tuple[str, Any]]) -> None:
        self.update_task = None
        self.last_update = results
        new = sum(r.new for _, r in results)
        self.ctx.notify(f"arXiv feeds: {new} new {'paper' if new == 1 else 'papers'}", 6000)

    def _failed(self, exc: BaseException) -> None:
        from reader.sources import FetchCancelled

        self.update_task = None
        if isinstance(exc, FetchCancelled):
            return
        if isinstance(exc, ReaderError):
            self.ctx.notify(f"arXiv feeds not updated: {exc}", 10000)
            return
        self.ctx.on_error(exc)


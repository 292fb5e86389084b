"""View → Map (Ctrl+M): the current list's papers on the library's map, in place of the paper list.

The layout comes from reader.map.mapfile on the task runner (loaded, brought up to date, or laid
out anew with a progress and a cancel in the status bar); pictures are built off the GUI
thread and arrive by signal. The map follows the window: its list (all, a collection, a tag,
a saved search), the search box (hits lit as you type, the rest dimmed) and every committed
change (new papers placed, marks redrawn). Clicking a point selects it in the list, so the
paper pane shows it; a rubber band, a lasso or the keys (map_view.py) select many there, so the
list's actions (S, R, T, Ctrl+E, the buttons above the map) act on them. Triage on a selection
starts triage over exactly those papers; back from it, the map is as it was left (zoom, pan,
selection, years). Refit lays out only the list's papers (reader.map.subset, on the runner,
kept in memory per subset); the library's map stays as it is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QInputDialog

from reader.events import Change, Changes
from reader.listing import list_papers
from reader.plural import count_noun

from ..operations import papers
from ..pages import PageContext, TriageOpener, add_view_action, page_stack
from . import render as mr
from .page import MapPage

# reader.map (numpy, and Whoosh's analyser for the map's words) loads when the map is first
# opened, on the layout's worker: the window's start, whose first screen is the list, never does.
if TYPE_CHECKING:
    import numpy as np

    from reader.map import mapfile, subset
else:
    from ..widgets.lazy import numpy as np

REFRESH_MS = 400  # a burst of changes (an import, J-J-J) redraws once
HITS_LIMIT = 20_000
LIKE_LIMIT = 50


@dataclass(frozen=True)
class MapLoaded:
    """A layout job's result: the library's map and the picture of the papers shown."""

    data: mapfile.MapData
    picture: mr.MapPicture


class MapController(QObject):
    """Owns the map page and keeps it in step with the window's list and the library."""

    def __init__(self, ctx: PageContext, triage: TriageOpener, export: Callable[[], None]) -> None:
        """`triage`: the triage page (Triage on the selection); `export`: File → Export…."""
        super().__init__(ctx.window)
        self.ctx, self.triage, lst = ctx, triage, ctx.list
        self.library = ctx.library
        self.page = MapPage(ctx.window)
        self.canvas = self.page.canvas
        self.stack = page_stack(lst.table, "listStack")  # the list column: list or map
        self.stack.addWidget(self.page)
        self.data: mapfile.MapData | None = None
        self.picture: mr.MapPicture | None = None
        self.base_key: tuple | None = None
        self.hit_query = ""
        self.layout_task: Any = None
        self.pending = False  # a refresh asked for while a layout runs
        self.generation = 0  # bumped with each picture shown (tests wait on it)
        self._refits: subset.RefitCache | None = None  # made with the map's first refit
        self._fit_next = False  # the places change (refit on or off): fit the camera to them
        self._list_at_open: tuple = ()  # the list's query and view when the map opened

        self.action = QAction("&Map", ctx.window)
        self.action.setObjectName("mapAction")
        self.action.setShortcut(QKeySequence("Ctrl+M"))
        self.action.setCheckable(True)
        self.action.triggered.connect(lambda _=False: self.toggle())
        add_view_action(ctx, self.action)

        self._refresh = QTimer(self)
        self._refresh.setSingleShot(True)
        self._refresh.setInterval(REFRESH_MS)
        self._refresh.timeout.connect(self.reload)
        self.canvas.paperClicked.connect(self.open_paper)
        self.canvas.papersSelected.connect(self.select)
        self.page.years.rangeChanged.connect(self.set_years)
        self.page.fromYear.valueChanged.connect(lambda _v: self._years_typed())
        self.page.toYear.valueChanged.connect(lambda _v: self._years_typed())
        act = self.page.selection_actions  # the buttons' and the Selection menu's
        act["star"].triggered.connect(lambda: papers.set_starred(ctx.ops, self.selected_ids(), True))
        act["read"].triggered.connect(lambda: papers.set_read(ctx.ops, self.selected_ids(), True))
        act["tag"].triggered.connect(self.ask_tag)
        act["like"].triggered.connect(self.more_like_these)
        act["export"].triggered.connect(lambda: export())
        act["triage"].triggered.connect(self.open_in_triage)
        tools = self.page.tool_actions
        tools["refit"].toggled.connect(self._refit_toggled)
        tools["relayout"].triggered.connect(lambda: self.reload(full=True))
        lst.model.modelReset.connect(self._list_changed)
        lst.model.listingReplaced.connect(lambda _rows: self._list_changed())  # a typed key's, no reset
        ctx.changes.changed.connect(self._changed)
        triage.action.toggled.connect(self._triage_toggled)

    @property
    def refits(self) -> subset.RefitCache:
        """The refit subsets laid out so far (reader.map.subset), kept while the window lives."""
        if self._refits is None:
            from reader.map import subset

            self._refits = subset.RefitCache()
        return self._refits

    # ------------------------------------------------------------------ open / close
    @property
    def active(self) -> bool:
        return self.stack.currentWidget() is self.page

    def toggle(self) -> None:
        if self.active:
            self.close()
        else:
            self.open()

    def open(self) -> None:
        self._list_at_open = self._list_shown()
        self.stack.setCurrentWidget(self.page)
        self.action.setChecked(True)
        self.canvas.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.reload()

    def set_dark(self, dark: bool) -> None:
        self.canvas.dark = dark
        self.canvas.update()

    def _list_shown(self) -> tuple:
        """What the list holds: its query and view (its listing key's first two parts)."""
        key = self.ctx.list.model.listing_key
        return tuple(key[:2]) if key else ()

    def close(self) -> None:
        table = self.ctx.list.table
        if self._list_shown() != self._list_at_open:
            # A new result came while the map was shown (a search typed on it): the list starts
            # at its top. Qt scrolls a view shown again to its current row, which the map's
            # selection or triage moved while it was hidden (it came back at rank 38).
            auto = table.hasAutoScroll()
            table.setAutoScroll(False)
            self.stack.setCurrentWidget(table)
            table.setAutoScroll(auto)
            table.scrollToTop()
        self.stack.setCurrentWidget(table)
        self.action.setChecked(False)
        self.ctx.list.table.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # ------------------------------------------------------------------ what is shown
    def _base(self) -> tuple[tuple, list[str] | None]:
        """(key, ids) of the papers drawn: the list without its search words (those light up)."""
        w = self.ctx.list
        v = w.view()
        if v.ranked or not w.search_bar.query():
            return ("list", v, tuple(w.model.ids())), list(w.model.ids())
        return ("view", v), None  # the view's papers: read on the runner

    def reload(self, full: bool = False) -> None:
        """Bring the map up to date (a full layout if asked or due) and draw the current list."""
        if (not self.active and not full) or self.ctx.closing:
            return  # (a redraw due after the window closed: its runner is shut down)
        lib, root, ctx = self.library, self.library.paths.root, self.ctx
        key, ids = self._base()
        view_, known = ctx.list.view(), self.data
        refits = self.refits if self.refitting else None

        def job(task: Any) -> MapLoaded:
            from reader.map import mapfile, view
            from reader.map import marks as map_marks

            data = mapfile.current(lib, root, full=full, known=known, progress=task.progress,
                                 cancelled=task.cancelled)
            shown_ids = ids if ids is not None else lib.paper_ids(view_)
            conn = lib.read_connection()
            shown = (refits.get(data, conn, shown_ids, progress=task.progress, cancelled=task.cancelled)
                     if refits is not None else view.subset(data, shown_ids))
            return MapLoaded(data, mr.MapPicture(shown, map_marks.current(conn, root)))

        def done(out: MapLoaded) -> None:
            self.layout_task = None
            self.data, picture = out.data, out.picture
            # Another list (a tag, Starred, a collection), not a redraw of this one: fit it (a
            # list of 6 starred papers stayed at the whole library's zoom).
            other_list = key[:2] != (self.base_key or ())[:2]
            self.base_key = key
            self.show_picture(picture, fit=other_list)
            if self.pending:
                self._again()

        def failed(exc: BaseException) -> None:
            from reader.map.features import LayoutCancelled

            self.layout_task = None
            if self.pending and not isinstance(exc, LayoutCancelled):
                self._again()
            if isinstance(exc, LayoutCancelled):
                self.canvas.set_message("Map cancelled (View → Map to try again)")
                return
            ctx.on_error(exc)

        if self.layout_task is not None and not full:
            # Changes during a layout (another process importing) are brought in after it, not
            # by cancelling it: a layout restarted at every write would never finish.
            self.pending = True
            return
        if self.layout_task is not None:
            self.layout_task.cancel()
        self.pending = False
        self.canvas.set_message("Making the map…")
        # Tracked: its progress and a Cancel in the status bar (the 61 s first layout of 3,278 papers had none).
        self.layout_task = ctx.list.status.track(ctx.runner.layout(job, done, failed, label="Making the map", with_task=True))

    def _again(self) -> None:
        self.pending = False
        self.reload()

    def show_picture(self, picture: mr.MapPicture, *, fit: bool = False) -> None:
        """Show a new picture keeping the view: zoom and pan, selection, the years' range."""
        old = self.picture
        selected = set(self.selected_ids()) if old is not None else set()
        years = self._chosen_years() if old is not None else None
        self.picture = picture
        self.canvas.set_picture(picture, refit=old is None or len(old) == 0 or self._fit_next or fit)
        self._fit_next = False
        self.canvas.set_selected(np.array([pid in selected for pid in picture.ids], dtype=bool))
        self.page.set_selection_count(len(selected & set(picture.ids)))
        self.page.years.set_years(picture.year)
        self._reset_years(picture, years)
        n = len(picture)
        regions = sum(1 for s in picture.view.spots if s.level == 0 and s.label)
        missing = f" ({picture.view.missing} not placed yet)" if picture.view.missing else ""
        whole = self.data is not None and n + picture.view.missing >= len(self.data.ids)
        refit = (" · refit: the whole library is its own layout" if whole else " · refit: laid out on their own") \
            if self.refitting else ""
        self.page.summary.setText(f"{count_noun(n, 'paper')}{missing} · {count_noun(regions, 'labelled region')}{refit} · "
                                  "Shift/Ctrl+drag selects")
        self.generation += 1
        self.hit_query = ""
        self._update_hits()

    def _list_changed(self) -> None:
        if not self.active:
            return
        key, _ = self._base()
        if key != self.base_key:
            self._refresh.start()
        self._update_hits()

    def _changed(self, changes: Changes) -> None:
        if self.active and changes.kinds != {Change.INDEX}:
            self._refresh.start()

    # ------------------------------------------------------------------ search hits
    def _update_hits(self) -> None:
        pic, ctx, w = self.picture, self.ctx, self.ctx.list
        query = w.search_bar.query()
        if pic is None or ctx.closing:
            return
        if not query:
            self.hit_query = ""
            self.canvas.set_hits(None)
            return
        if w.view().ranked:
            return
        lib, view_ = self.library, w.view()
        self.hit_query = query
        # As the list searched it: while typed, the last word is a prefix ("bandit" said 88
        # results, L then selected the 79 that have the word itself).
        typing = w.search_bar.as_you_type()

        def job() -> list[str]:
            return list(list_papers(lib, query, view_, limit=HITS_LIMIT, as_you_type=typing).ids)

        def done(ids: list[str]) -> None:
            if self.picture is pic and self.hit_query == query:
                self.set_hits(ids)

        ctx.runner.read("map-hits", job, done, ctx.on_error)

    def set_hits(self, ids: list[str]) -> None:
        pic = self.picture
        if pic is None:
            return
        mask = np.zeros(len(pic), dtype=bool)
        rows = [pic.position[p] for p in ids if p in pic.position]
        mask[rows] = True
        self.canvas.set_hits(mask)

    # ------------------------------------------------------------------ years
    def _reset_years(self, pic: mr.MapPicture, kept: tuple[int, int] | None = None) -> None:
        """The year boxes span the picture's years; a range chosen before (`kept`) stays
        where it still fits (a redraw after a change is not a new list)."""
        known = pic.year[pic.year > 0]
        low, high = (int(known.min()), int(known.max())) if len(known) else (0, 0)
        for box, value in ((self.page.fromYear, low), (self.page.toYear, high)):
            box.blockSignals(True)
            box.setRange(low, high) if len(known) else box.setRange(0, 0)
            box.setSpecialValueText("" if len(known) else "—")  # no years: "—", not "From 0 to 0"
            box.setEnabled(bool(len(known)))
            box.setValue(value)
            box.blockSignals(False)
        self.page.years.set_range(low, high)
        self.canvas.set_visible_points(None)
        if kept is not None and len(known) and (low, high) != kept and low <= kept[0] <= kept[1] <= high:
            self.set_years(*kept)

    def _chosen_years(self) -> tuple[int, int] | None:
        """The range the user narrowed the years to, or None while it is the whole span (then
        papers added with later years must show, not be cut off at the old span's end)."""
        low, high = self.page.fromYear.value(), self.page.toYear.value()
        if (low, high) == (self.page.fromYear.minimum(), self.page.toYear.maximum()):
            return None
        return low, high

    def set_years(self, low: int, high: int) -> None:
        for box, value in ((self.page.fromYear, low), (self.page.toYear, high)):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)
        self._apply_years(low, high)

    def _years_typed(self) -> None:
        low, high = self.page.fromYear.value(), self.page.toYear.value()
        self._apply_years(min(low, high), max(low, high))

    def _apply_years(self, low: int, high: int) -> None:
        pic = self.picture
        if pic is None:
            return
        self.page.years.set_range(low, high)
        known = pic.year[pic.year > 0]
        whole = not len(known) or (low <= known.min() and high >= known.max())
        # Papers without a year stay while the range is the whole span, as the list shows them.
        visible = None if whole else (pic.year >= low) & (pic.year <= high)
        self.canvas.set_visible_points(visible)

    # ------------------------------------------------------------------ selection
    def step(self, step: int) -> bool:
        """J/K on the map with several papers selected (a lasso, a rectangle): the next or previous
        of those, in the list's order, the selection kept (J after leaving triage jumped to the
        list's next paper, outside the lasso). False when that is not the case (the list moves)."""
        chosen = self.selected_ids() if self.active else []
        if len(chosen) < 2:
            return False
        w = self.ctx.list
        rows = {pid: w.model.row_of(pid) for pid in chosen}
        order = [pid for _, pid in sorted((r, pid) for pid, r in rows.items() if r >= 0)]
        order += [pid for pid in chosen if rows[pid] < 0]
        here = w.paper_on()  # (the paper being read for the pane, after a quick J)
        if here in order:
            target = order[min(max(order.index(here) + step, 0), len(order) - 1)]
        else:
            target = order[0 if step > 0 else -1]
        if rows[target] >= 0:
            w.table.reselect(target, [pid for pid in order if rows[pid] >= 0], rows[target])
        if w.paper_on() != target:  # (the reselect may have asked for it already)
            w.load_paper(target)
        return True

    def selected_ids(self) -> list[str]:
        pic, sel = self.picture, self.canvas.marks.selected
        if pic is None or sel is None or len(sel) != len(pic):
            return []
        return [pic.ids[i] for i in np.flatnonzero(sel)]

    def open_paper(self, pid: str) -> None:
        self.select([pid])

    def select(self, ids: list[str]) -> None:
        """Select `ids` on the map and in the list (the list's actions then act on them)."""
        pic = self.picture
        if pic is None:
            return
        wanted = set(ids)
        self.canvas.set_selected(np.array([pid in wanted for pid in pic.ids], dtype=bool))
        self.page.set_selection_count(len(wanted))
        w = self.ctx.list
        if not ids:
            return
        rows = [r for r in (w.model.row_of(pid) for pid in ids) if r >= 0]
        if rows:
            index = w.table.reselect(ids[0], list(ids), rows[0])
            if index is not None and w.paper_on() != w.model.id_at(index.row()):
                w.load_paper(w.model.id_at(index.row()))
        elif w.paper_on() != ids[0]:
            w.load_paper(ids[0])
        n = len(wanted)
        self.ctx.notify(f"{n:,} papers selected on the map" if n > 1 else "", 4000)

    # ------------------------------------------------------------------ triage, refit
    def open_in_triage(self) -> None:
        """Triage exactly the selected papers (in the map's order, or best first as triage is set)."""
        ids = self.selected_ids()
        if ids:
            self.triage.open(ids)

    def _triage_toggled(self, on: bool) -> None:
        if not on and self.active:  # back from triage: to the map, as it was left
            QTimer.singleShot(0, lambda: self.canvas.setFocus(Qt.FocusReason.OtherFocusReason))

    @property
    def refitting(self) -> bool:
        return self.page.tool_actions["refit"].isChecked()

    def _refit_toggled(self, _on: bool) -> None:
        self._fit_next = True  # other places: fit them
        self.reload()

    def ask_tag(self) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        tag, ok = QInputDialog.getText(self.ctx.window, "Tag the selected papers", f"Tag for {len(ids):,} papers:")
        if ok and tag.strip():
            papers.add_tags(self.ctx.ops, ids, [tag.strip()])

    def more_like_these(self) -> None:
        """Light up the papers most like the selection (ranked by the search index)."""
        ids, lib, ctx = self.selected_ids(), self.library, self.ctx
        if not ids:
            return

        def job() -> list[str]:
            return [pid for pid, _ in lib.more_like(ids, limit=LIKE_LIMIT)]

        def done(found: list[str]) -> None:
            self.set_hits(found)
            ctx.notify(f"Lit: the {len(found)} papers most like the {len(ids)} selected", 6000)

        ctx.runner.read("map-like", job, done, ctx.on_error)


"""A triage step sets on screen only what the new card changes (issue 31): the tag legend, the
star and the links line are rich or styled labels whose setText parses and relays them out
(and a live label re-derives its accessible name); the old code set them again on every card."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reader.ui.window.main_window import MainWindow

from .test_triage_view import open_triage, press, settle

K = Qt.Key


def test_j_sets_only_the_labels_a_card_changes(qtbot, window: MainWindow, monkeypatch) -> None:
    ctl = open_triage(qtbot, window)
    settle(qtbot, window)
    view = ctl.view
    calls: Counter[str] = Counter()
    for name in ("legendLabel", "linksLabel", "starLabel"):
        label = getattr(view, name)
        real = label.setText
        monkeypatch.setattr(label, "setText", lambda text, _n=name, _r=real: calls.update([_n]) or _r(text))
    monkeypatch.setattr(view.starLabel, "setStyleSheet",
                        lambda css, _r=view.starLabel.setStyleSheet: calls.update(["starStyle"]) or _r(css))
    links_seen, legends_seen = [view.linksLabel.text()], [view.legendLabel.text()]
    for _ in range(8):
        press(qtbot, ctl, K.Key_J)
        QApplication.processEvents()
        assert view.card is not None and not view.card.starred
        links_seen.append(view.linksLabel.text())
        legends_seen.append(view.legendLabel.text())
    changes = lambda texts: sum(a != b for a, b in zip(texts, texts[1:], strict=False))  # noqa: E731
    assert calls["legendLabel"] == changes(legends_seen) < 8, (calls, legends_seen)  # the old code: 8
    assert calls["linksLabel"] == changes(links_seen), (calls, links_seen)
    assert calls["starLabel"] == 0 and calls["starStyle"] == 0, calls  # none starred: the old code 8 each
    press(qtbot, ctl, K.Key_S)  # a star shows at once
    assert view.starLabel.text() == "★" and calls["starLabel"] == 1
    assert view.starLabel.accessibleName() == "Starred"
    press(qtbot, ctl, K.Key_J)
    assert view.starLabel.text() == "☆" and view.starLabel.accessibleName() == "Not starred"
    press(qtbot, ctl, K.Key_T)
    qtbot.keyClicks(view.tagEditor.input, "fresh")
    qtbot.keyClick(view.tagEditor.input, K.Key_Return)
    qtbot.waitUntil(lambda: "fresh" in view.legendLabel.text())  # the new tag takes a key
    assert view.legendLabel.accessibleName().startswith("Tags: 1")


def test_a_card_is_laid_out_once_not_copied_to_measure_it(qtbot, window: MainWindow, monkeypatch) -> None:
    """The abstract's height came from a copy of its document laid out again beside a scroll
    bar, at each of its size changes (~6 per card, ~5 ms each at 100k's bench): it wraps beside
    the bar's room now, and its own layout gives the height."""
    from PySide6.QtGui import QTextDocument

    ctl = open_triage(qtbot, window)
    settle(qtbot, window)
    copies: list[int] = []
    real = QTextDocument.clone
    monkeypatch.setattr(QTextDocument, "clone", lambda doc, *a: copies.append(1) or real(doc, *a))
    view = ctl.view
    for _ in range(6):
        press(qtbot, ctl, K.Key_J)
        QApplication.processEvents()
        text = view.abstractView.document().size().height()
        assert view.abstractView.maximumHeight() == int(text) + 2  # as tall as its text
    assert copies == []
    bar = view.abstractView.verticalScrollBar().sizeHint().width()
    assert view.abstractView.lineWrapColumnOrWidth() == view.abstractView.width() - bar

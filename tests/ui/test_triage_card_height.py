"""The triage card at 1600 x 1000: a short abstract is as tall as its text, not a window-high white
box (it left ~350 px of empty white under the text); a long one takes the room and scrolls."""

from __future__ import annotations

from reader.ui.window.main_window import MainWindow

from .test_triage_view import open_triage


def test_the_abstract_is_as_tall_as_its_text_and_the_note_follows(qtbot, window: MainWindow) -> None:
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600)
    ctl = open_triage(qtbot, window)
    view = ctl.view
    abstract = view.abstractView
    qtbot.wait(50)
    text_height = abstract.document().size().height()
    assert text_height < 600  # the seeds' abstracts are short at this width
    assert abstract.height() <= text_height + 30, (abstract.height(), text_height)  # a line of slack at most
    sb = abstract.verticalScrollBar()
    assert not sb.isVisible(), (abstract.height(), abstract.maximumHeight(), text_height, sb.maximum(),
                                abstract.viewport().height(), abstract.frameWidth())
    gap = view.noteEdit.y() - (abstract.y() + abstract.height())
    assert gap <= 8 + view.linksLabel.height() + 8, gap  # the links, then the note, right under the text
    keys = view.keysLabel
    assert keys.y() - (view.noteEdit.y() + view.noteEdit.height()) <= 8 + view.legendLabel.height() + 8 + 2
    window.resize(1024, 640)  # little room: the abstract takes what there is and scrolls
    qtbot.waitUntil(lambda: window.width() == 1024)
    qtbot.wait(50)
    assert abstract.height() >= 100
    if abstract.document().size().height() > abstract.height() + 8:
        assert abstract.verticalScrollBar().maximum() > 0

"""FoldRow: side by side while its items fit at their minimum widths, one above the other below."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton, QWidget

from reader.ui.widgets.fold_row import FoldRow


def test_a_row_folds_when_narrower_than_its_items(qtbot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    row = FoldRow(host, spacing=10, column_spacing=3)
    first, second = QPushButton("A first button", host), QPushButton("and a second one", host)
    row.addWidget(first)
    row.addWidget(second)
    need = first.minimumSizeHint().width() + 10 + second.minimumSizeHint().width()
    assert row.row_width() == need
    assert row.minimumSize().width() == max(first.minimumSizeHint().width(), second.minimumSizeHint().width())
    host.show()
    for width, folded in ((need + 40, False), (need - 1, True), (need, False)):
        host.resize(width, 200)
        qtbot.waitUntil(lambda f=folded: row.folded() == f and (second.y() > first.y()) == f)
        assert not first.geometry().intersects(second.geometry())
        assert row.spacing() == (3 if folded else 10)

"""Check boxes and radio buttons show their box in the dark theme (widgets/theme.py)."""

from __future__ import annotations

from PySide6.QtGui import QImage, QPalette
from PySide6.QtWidgets import QApplication, QCheckBox, QRadioButton, QStyle, QStyleOptionButton

from reader.library import Library
from reader.ui.sources.add_venue import AddVenueDialog
from reader.ui.tasks import TaskRunner
from reader.ui.widgets.theme import apply_theme


def _box_contrast(widget: QCheckBox | QRadioButton) -> int:
    """How far the drawn box's most distinct pixel is from the window colour behind it (0-765)."""
    option = QStyleOptionButton()
    option.initFrom(widget)
    element = (QStyle.SubElement.SE_CheckBoxIndicator if isinstance(widget, QCheckBox)
               else QStyle.SubElement.SE_RadioButtonIndicator)
    box = widget.style().subElementRect(element, option, widget)
    image: QImage = widget.grab().toImage()
    behind = QApplication.palette().color(QPalette.ColorRole.Window).getRgb()[:3]
    return max(sum(abs(a - b) for a, b in zip(image.pixelColor(x, y).getRgb()[:3], behind, strict=True))
               for x in range(box.left(), box.right() + 1) for y in range(box.top(), box.bottom() + 1))


def test_fetch_anew_and_every_check_box_show_their_box_in_the_dark(qtbot, tmp_path):
    """Dark: Fusion drew the box a shade from the window (outline 29,30,32 and fill 28,29,31 on
    37,38,41): "Fetch anew" read as a bare line of text."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    runner = TaskRunner()
    try:
        apply_theme(app, "dark")
        dialog = AddVenueDialog(None, lib, runner)
        qtbot.addWidget(dialog)
        radio = QRadioButton("radio")
        qtbot.addWidget(radio)
        dialog.show()
        radio.show()
        qtbot.waitExposed(dialog)
        for widget in (dialog.refreshCheck, radio):
            assert _box_contrast(widget) >= 150, widget.text()
        dialog.refreshCheck.setChecked(True)
        assert _box_contrast(dialog.refreshCheck) >= 150
        apply_theme(app, "light")  # the light theme puts back the standard palette for them
        assert QCheckBox().palette().color(QPalette.ColorRole.Base) == app.palette().color(QPalette.ColorRole.Base)
        dialog.reject()
    finally:
        apply_theme(app, "light")
        runner.shutdown(wait=True)
        lib.close()

"""A GUI test's waits are limits on a hang, not budgets: beside busy processes (issue 30,
scripts/check_fresh_debian.sh --busy 2) pytest-qt's 5 s default failed tests whose work had just
not had its turn yet. tests/conftest.py's qtbot waits HANG_MS unless a test names a limit."""

from __future__ import annotations

import inspect

from PySide6.QtCore import QObject, QTimer, Signal

from tests.conftest import HANG_MS


def test_every_wait_of_qtbot_defaults_to_the_hang_limit(qtbot) -> None:
    assert HANG_MS >= 60_000
    for name in ("waitUntil", "waitSignal", "waitSignals", "waitExposed", "waitActive", "waitCallback",
                 "wait_until", "wait_signal", "wait_signals", "wait_exposed", "wait_active"):
        default = inspect.signature(getattr(qtbot, name)).parameters["timeout"].default
        assert default == HANG_MS, name


def test_the_waits_still_end_on_the_state(qtbot) -> None:
    class Emitter(QObject):
        done = Signal(int)

    emitter = Emitter()
    got: list[int] = []
    emitter.done.connect(got.append)
    with qtbot.waitSignal(emitter.done) as blocker:
        QTimer.singleShot(0, lambda: emitter.done.emit(7))
    assert blocker.args == [7]
    qtbot.waitUntil(lambda: got == [7])

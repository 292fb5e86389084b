"""Shared pytest setup: Qt runs offscreen, GUI tests are auto-marked `gui`; `lib` is a library of
the bundled seeds, indexed (tests/vault has its own, not indexed); `bare_lib` an empty one."""

from __future__ import annotations

import os

# Before anything imports Qt: no display needed, and crash dialogs only log.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")
# A CLI command run by a test starts no detached daily backup (tests/store/test_daily.py does).
os.environ.setdefault("READER_DAILY_MAINTENANCE", "off")
# One BLAS thread, as reader/__init__.py sets for the app: it must be set before numpy loads, and
# in a test process a test module (or a plugin) may import numpy before anything imports reader,
# which then leaves OpenBLAS with a thread per core: other rounding, other map layouts and regions
# than in production, and BLAS threads fighting the busy machine. Subprocesses inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis's wall-clock checks (a 200 ms deadline per example, the too_slow health check) fail
# tests on a busy machine for no fault of the code: off for every property test. Linear cost is
# checked on CPU seconds (tests/importers/test_linear.py, tests/vault/test_linear.py).
settings.register_profile("reader", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("reader")

GUI_FIXTURES = {"qapp", "qtbot"}
# How long a GUI test waits for a state (qtbot.waitUntil, waitSignal, waitExposed, ...) when it
# names no time: only a limit on a hang, never a budget. The tests run beside busy processes
# (scripts/check_fresh_debian.sh --busy 2, a machine at load 20): pytest-qt's own 5 s made tests
# fail there whose work had simply not been scheduled yet. A test waits on state, never on time.
HANG_MS = 120_000
# The offscreen platform plugin warns about a feature it lacks; not a problem of the app.
OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints"


# The files that take longest (tens of seconds each, see --durations), handed out first when
# the suite runs in worker processes (scripts/test.sh: --dist loadfile --no-loadscope-reorder),
# so that no worker is left alone with one of them at the end.
SLOW_FILES = (
    "tests/exporters/test_citations.py", "tests/triage/test_ranking_corpus.py", "tests/test_frozen_bundle.py",
    "tests/vault/test_fault.py", "tests/vault/test_property.py", "tests/search/test_fastpath.py",
    "tests/test_packaging.py", "tests/test_cli.py", "tests/test_concurrent_writers.py",
    "tests/test_import_libraries.py", "tests/store/test_health.py",
    "tests/map/test_labels.py",  # lays out four real pools
    "tests/ui/test_tasks_typed.py",  # one mypy run over reader.ui.tasks and PySide6's stubs
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if GUI_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.gui)
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker sorts alike: the same collection
        rank = {name: n for n, name in enumerate(SLOW_FILES)}
        items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


_patient_qtbot: type | None = None


def patient_qtbot_class() -> type:
    """pytest-qt's QtBot whose waits default to HANG_MS (imported on first use: Qt loads then)."""
    global _patient_qtbot
    if _patient_qtbot is None:
        from pytestqt.qtbot import QtBot

        class PatientQtBot(QtBot):
            def waitActive(self, widget, *, timeout=HANG_MS):
                return super().waitActive(widget, timeout=timeout)

            def waitExposed(self, widget, *, timeout=HANG_MS):
                return super().waitExposed(widget, timeout=timeout)

            def waitSignal(self, signal, *, timeout=HANG_MS, **kwargs):
                return super().waitSignal(signal, timeout=timeout, **kwargs)

            def waitSignals(self, signals, *, timeout=HANG_MS, **kwargs):
                return super().waitSignals(signals, timeout=timeout, **kwargs)

            def waitUntil(self, callback, *, timeout=HANG_MS):
                return super().waitUntil(callback, timeout=timeout)

            def waitCallback(self, *, timeout=HANG_MS, **kwargs):
                return super().waitCallback(timeout=timeout, **kwargs)

        _patient_qtbot = PatientQtBot
    return _patient_qtbot


@pytest.fixture
def qtbot(qapp, request):
    """pytest-qt's qtbot, its waits bounded by HANG_MS unless a test names a longer limit."""
    return patient_qtbot_class()(request)


@pytest.fixture()
def lib(tmp_path):
    from reader.library import Library

    library = Library.open(tmp_path / "lib")
    library.sync_index()
    yield library
    library.close()


@pytest.fixture()
def bare_lib(tmp_path):
    """An empty library (no seeds imported), closed after the test."""
    from reader.library import Library

    library = Library.open(tmp_path / "lib", seed_if_empty=False)
    yield library
    library.close()

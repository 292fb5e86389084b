"""Shared pytest setup: Qt runs offscreen, GUI tests are auto-marked `gui`; `lib` is a library of
the bundled seeds, indexed (tests/vault has its own, not indexed); `bare_lib` an empty one."""

from __future__ import annotations

import os

# Before anything imports Qt: no display needed, and crash dialogs only log.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")
# A CLI command run by a test starts no detached daily backup (tests/store/test_daily.py does).
os.environ.setdefault("READER_DAILY_MAINTENANCE", "off")

import pytest

GUI_FIXTURES = {"qapp", "qtbot"}
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

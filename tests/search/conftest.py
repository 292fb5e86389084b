"""The search tests run twice: with the Whoosh fast path (bulk writer, raw segment reads) and
with it forced off (READER_FAST_PATH=0: Whoosh's public API), so both must give the same
results; tests of the fast path itself are marked `fast_path_only`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reader.search.segments import fastpath

MODES = {"fast": "1", "public": "0"}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fast_path_only: checks the fast path itself (skipped with it off)")


@pytest.fixture(scope="module", autouse=True, params=list(MODES))
def fast_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """"fast" or "public", for the whole module (module-scoped indexes are built per mode)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(fastpath.ENV, MODES[request.param])
        fastpath.reset()
        assert fastpath.enabled() == (request.param == "fast")
        yield request.param
    fastpath.reset()


@pytest.fixture(autouse=True)
def _skip_fast_only(request: pytest.FixtureRequest, fast_path: str) -> None:
    if fast_path == "public" and request.node.get_closest_marker("fast_path_only"):
        pytest.skip("checks the fast path itself")

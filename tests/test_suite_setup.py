"""What the whole suite runs with (tests/conftest.py), so that results never depend on the load:
numpy's BLAS on one thread as in the app (reader/__init__.py; set where the suite starts, since a
test module may load numpy before reader), and no wall-clock deadline in property tests."""

from __future__ import annotations

import ctypes
import glob
import os

import numpy  # before anything from reader, as many test modules do
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _openblas() -> ctypes.CDLL:
    libs = os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs")
    found = sorted(glob.glob(os.path.join(libs, "libscipy_openblas*.so*"))
                   + glob.glob(os.path.join(libs, "libopenblas*.so*")))
    assert found, f"numpy's OpenBLAS not found in {libs}"
    return ctypes.CDLL(found[0])


def test_numpy_blas_uses_one_thread_in_the_tests_as_in_the_app() -> None:
    assert os.environ.get("OPENBLAS_NUM_THREADS") == "1"
    blas = _openblas()
    for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                 "openblas_get_num_threads"):
        if hasattr(blas, name):
            assert getattr(blas, name)() == 1
            return
    raise AssertionError("numpy's OpenBLAS has no get_num_threads")


def test_property_tests_have_no_wall_clock_deadline() -> None:
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


@settings(max_examples=3)
@given(st.integers())
def test_a_slow_example_is_not_a_failure(n: int) -> None:
    """250 ms of CPU per example: over Hypothesis's default 200 ms deadline, as a plain example
    can be beside busy processes."""
    import time

    end = time.process_time() + 0.25
    while time.process_time() < end:
        pass

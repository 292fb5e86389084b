"""The tests run numpy's BLAS on one thread, as the app does (reader/__init__.py): set where the
suite starts (tests/conftest.py), since a test module or a plugin may load numpy before reader."""

from __future__ import annotations

import ctypes
import glob
import os

import numpy  # before anything from reader, as many test modules do


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

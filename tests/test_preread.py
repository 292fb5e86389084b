"""reader/preread.py: a package's libraries read into the file cache before its first import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reader.preread import library_files, preread


def _package(root: Path) -> None:
    pkg = root / "fakepkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (pkg / "sub" / "_ext.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF" + b"x" * 3000)
    (pkg / "plain.py").write_text("")
    libs = root / "fakepkg.libs"
    libs.mkdir()
    (libs / "libblas-1234.so.0.3").write_bytes(b"y" * 5000)
    os.mkfifo(pkg / "trap.so")  # read, it would block for ever


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_the_libraries_are_read_without_importing_and_a_fifo_is_left_alone(tmp_path: Path, monkeypatch) -> None:
    _package(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    names = [os.path.relpath(p, tmp_path) for p in library_files("fakepkg")]
    assert names == ["fakepkg.libs/libblas-1234.so.0.3", "fakepkg/sub/_ext.cpython-311-x86_64-linux-gnu.so",
                     "fakepkg/trap.so"]
    assert preread("fakepkg") == 3004 + 5000  # the FIFO skipped, nothing imported (it would raise)
    assert "fakepkg" not in sys.modules


def test_an_imported_missing_or_single_file_module_is_not_read(tmp_path: Path, monkeypatch) -> None:
    assert preread("json") == 0 and json  # imported already
    assert library_files("no_such_package_here") == [] and preread("no_such_package_here") == 0
    (tmp_path / "single.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert library_files("single") == []


def test_numpy_is_read_in_a_fresh_process_and_not_imported() -> None:
    code = ("import sys; from reader.preread import preread; n = preread('numpy'); "
            "print(n, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) > 1_000_000 and out[1] == "False"

"""`reader map --png` writes like every export (reader/output_files.py, issue 30): never over a
FIFO, a device node or a folder, through a symlink to its file, atomically under a unique name."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from reader.library import Library


def _png(library: Library, out: Path, capsys) -> tuple[int, str]:
    from reader.__main__ import main

    code = main(["--data-dir", str(library.paths.root), "map", "--png", str(out), "--size", "120x90"])
    return code, capsys.readouterr().err


def test_a_fifo_at_the_png_path_is_refused_without_blocking(tmp_path: Path, library: Library, capsys):
    fifo = tmp_path / "map.png"
    os.mkfifo(fifo)
    result: list[tuple[int, str]] = []
    t = threading.Thread(target=lambda: result.append(_png(library, fifo, capsys)), daemon=True)
    t.start()
    t.join(120)  # only a backstop for the old code, which blocked opening the FIFO for writing
    if t.is_alive():
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # let the old code's write finish
        os.close(fd)
        pytest.fail("writing the PNG blocked on a FIFO")
    code, err = result[0]
    assert code != 0 and f"{fifo} is a FIFO" in err and len(err.strip().splitlines()) == 1
    assert fifo.exists() and not fifo.is_file()


def test_a_folder_at_the_png_path_is_refused_in_one_line(tmp_path: Path, library: Library, capsys):
    folder = tmp_path / "map.png"
    folder.mkdir()
    code, err = _png(library, folder, capsys)
    assert code != 0 and "is a folder" in err and len(err.strip().splitlines()) == 1
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_the_png_is_written_through_a_symlink_and_leaves_no_temporary_file(tmp_path: Path, library: Library,
                                                                           capsys):
    real = tmp_path / "pictures" / "real.png"
    real.parent.mkdir()
    real.write_bytes(b"old picture")
    link = tmp_path / "map.png"
    link.symlink_to(real)
    code, _ = _png(library, link, capsys)
    assert code == 0 and link.is_symlink()
    image = QImage(str(real))
    assert (image.width(), image.height()) == (120, 90)
    assert not [p for p in (*tmp_path.iterdir(), *real.parent.iterdir()) if p.name.endswith(".tmp")]

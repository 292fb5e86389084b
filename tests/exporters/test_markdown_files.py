"""Per-paper Markdown files: written atomically, only inside the folder, never through a symlink."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from reader.exporters import write_per_paper
from reader.models import Paper

ABSTRACT = "We study a problem and propose a method that works well on benchmarks."


def _paper(title: str) -> Paper:
    return Paper(id="p1", title=title, abstract=ABSTRACT)


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_symlink_in_the_folder_is_replaced_not_followed(tmp_path):
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me", encoding="utf-8")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "Target.md").symlink_to(outside)
    (path,) = write_per_paper([_paper("Target")], folder)
    assert outside.read_text(encoding="utf-8") == "keep me"
    assert path == folder.resolve() / "Target.md"
    assert not path.is_symlink() and "Target" in path.read_text(encoding="utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_dangling_symlink_is_not_followed(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "Target.md").symlink_to(tmp_path / "created-outside.md")
    write_per_paper([_paper("Target")], folder)
    assert not (tmp_path / "created-outside.md").exists()


def test_files_stay_in_the_folder_and_no_temp_files_remain(tmp_path):
    titles = ["../escape", "/abs", "a/b", "..", "Normal"]
    paths = write_per_paper([_paper(t) for t in titles], tmp_path / "out")
    root = (tmp_path / "out").resolve()
    assert all(p.parent == root and p.is_file() for p in paths)
    assert sorted(os.listdir(root)) == sorted(p.name for p in paths)  # no .tmp left behind
    assert sorted(os.listdir(tmp_path)) == ["out"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_files_get_normal_permissions(tmp_path):
    (path,) = write_per_paper([_paper("Perm")], tmp_path)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_existing_folder_with_the_name_is_an_error_and_nothing_is_left(tmp_path):
    (tmp_path / "Clash.md").mkdir()
    with pytest.raises(OSError):
        write_per_paper([_paper("Clash")], tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["Clash.md"]

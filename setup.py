"""Package list and data folders for setuptools.

reader/ and every subpackage under it are found, not listed: a new folder cannot silently drop out of
the wheel. seeds/ and resources/ stay at the repository root (the design names them there); build_py
copies them into the wheel as reader/seeds and reader/resources. Nothing is mapped from another folder,
so an editable install is a plain .pth entry for the checkout (setuptools then needs no meta-path
finder and prints no "Editable installation" notice); reader.bundled finds the two folders beside the
package in a checkout.
"""

import shutil
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
DATA_FOLDERS = ("seeds", "resources")
CODE = find_namespace_packages(include=["reader", "reader.*"], exclude=["*__pycache__*"])


class BuildPyWithData(build_py):
    """build_py, plus the top-level data folders copied under reader/ (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # the checkout itself is on sys.path; reader.bundled reads the folders in place
        for name in DATA_FOLDERS:
            target = Path(self.build_lib, "reader", name)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(ROOT / name, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(packages=CODE, cmdclass={"build_py": BuildPyWithData})

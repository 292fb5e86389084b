"""Package list for setuptools: reader and every subpackage under it, plus the two data packages."""

from setuptools import find_namespace_packages, setup

# Found, not listed: a new folder under reader/ cannot silently drop out of the wheel.
# pyproject.toml maps the data packages to the top-level seeds/ and resources/ folders.
CODE = find_namespace_packages(include=["reader", "reader.*"], exclude=["*__pycache__*"])
DATA = ["reader.seeds", "reader.resources"]

setup(packages=CODE + DATA)

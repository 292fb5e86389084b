"""The map of the library: papers placed in 2-D by the similarity of their words (no Qt here).

features.py (reduced TF-IDF) → neighbours.py (kNN) → layout.py (the 2-D optimisation) →
clusters.py (regions and their words) → store.py (the derived `map.npz`, kept up to date) →
view.py (what one list of papers shows of it)."""

from __future__ import annotations

# OpenBLAS runs on one thread: set by reader/__init__.py, before any module imports numpy.

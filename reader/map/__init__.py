"""The map of the library: papers placed in 2-D by the similarity of their words (no Qt here).

features.py (reduced TF-IDF) → neighbours.py (kNN) → layout.py (the 2-D optimisation) →
clusters.py (regions and their words) → store.py (the derived `map.npz`, kept up to date) →
view.py (what one list of papers shows of it)."""

from __future__ import annotations

import os
import sys

# OpenBLAS threads fight each other on a busy 2-core machine (a 4,000 x 80 QR 25x slower than
# on one thread, measured); the layout runs beside the GUI thread and needs only one core.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

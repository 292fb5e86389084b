"""Reader: read, triage and annotate research-paper abstracts."""

import os as _os
import sys as _sys

__version__ = "0.1.0"
APP_NAME = "Reader"
APP_ID = "org.reader.Reader"

# One BLAS thread, set before any of Reader's modules imports numpy: OpenBLAS threads fight each
# other on a busy 2-core machine (a 4,000 x 80 QR 25x slower than on one thread, measured), and a
# matrix product's rounding depends on how many threads split it, so the map's layout and regions
# came out differently in a window, a CLI run and a benchmark that imported numpy in another order.
if "numpy" not in _sys.modules:
    _os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

"""PySide6's import hook, without reading each module through `inspect` (issue 31).

Once PySide6 is loaded, every module imported after it passes through shibokensupport's
`feature_imported`, which asks `_mod_uses_pyside(module)`: "does its source hold the string
PySide6?", answered with `inspect.getsource` (linecache, an encoding sniff by tokenize, the file
split into lines and joined again). The window imports Whoosh, numpy and the search, triage and
map modules on workers after its first list: ~450 modules, 70-80 ms of CPU in that check alone
(225 ms with a cold file cache) on a worker holding the GIL while the window starts; a sampled
100 ms stall at start was in it.

The same question is answered here from the file's bytes (the same answer on all 755 modules of
a window that has opened every screen; a test compares them), and by PySide's own function for
anything else: a module without a readable `.py` file (built in, frozen, a zip). If a PySide
release renames or drops the hook, nothing is replaced."""

from __future__ import annotations

import sys
from types import ModuleType

MARK = "_reader_bytes_check"


def install() -> bool:
    """Replace shibokensupport.feature's `_mod_uses_pyside` (once); True if it is replaced now."""
    feature = sys.modules.get("shibokensupport.feature")
    upstream = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or not callable(upstream) or getattr(upstream, MARK, False):
        return False

    def _mod_uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            try:
                with open(path, "rb") as source:
                    return b"PySide6" in source.read()
            except OSError:
                pass
        return bool(upstream(module))

    setattr(_mod_uses_pyside, MARK, True)
    _mod_uses_pyside.upstream = upstream  # type: ignore[attr-defined]
    feature._mod_uses_pyside = _mod_uses_pyside  # type: ignore[attr-defined]
    return True

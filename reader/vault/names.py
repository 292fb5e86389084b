"""Names for new vault files: safe on every OS (exporters.filenames) and linkable from Obsidian.

Obsidian's wikilinks cannot hold `#` (heading), `^` (block), `[`/`]`, `|` (alias), and `$`
starts maths in some plugins' names; they become spaces. A name never starts with a dot (a
hidden file), is at most 80 characters and at most MAX_BYTES bytes in UTF-8, so the name plus
any suffix Reader adds (" (2)", the trash's numbering) fits the 255 bytes every file system allows;
the temporary name a write uses is derived from a hash and always fits. Existing files are
never renamed: only new files get names.
"""

from __future__ import annotations

import re

from ..exporters.filenames import safe_filename

MAX_BYTES = 200
_UNLINKABLE = re.compile(r"[#^\[\]|$]")


def _fits(name: str) -> bool:
    return len(name.encode("utf-8")) <= MAX_BYTES


def new_name(title: str, taken: set[str]) -> str:
    """A free file name for a new paper file (recorded in `taken`, case-folded)."""
    clean = " ".join(_UNLINKABLE.sub(" ", title or "").split())
    while True:
        name = safe_filename(clean, taken)
        if _fits(name):
            return name
        taken.discard(name.casefold())
        clean = clean[: max(1, len(clean) * 3 // 4)]  # shorter until it fits (multi-byte text)

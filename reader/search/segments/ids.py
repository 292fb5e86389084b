"""Segment names that never repeat within a process.

Whoosh names each new segment from the global `random` module. Anything that seeds it (hypothesis
does before each example; a user script may) makes two indexes built in one process draw the same
names, and the per-process read caches (postings, lexicons, lengths, typo tables), which are keyed
by segment id because a segment never changes, would then serve one index's data to the other.
The operating system's randomness is never reseeded.
"""

from __future__ import annotations

import secrets

from whoosh.codec.base import Segment
from whoosh.util import IDCHARS


def _os_random_id(cls: type, size: int = 16) -> str:
    return "".join(secrets.choice(IDCHARS) for _ in range(size))


Segment._random_id = classmethod(_os_random_id)

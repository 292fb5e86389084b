"""What a sync is about to write, kept in the vault until its commit: a crash in between loses nothing.

Files are written before Reader's side commits. After a kill -9 there, a file holds the merge of
the vault's parts (V) with Reader's (R), but the sync state still holds the old base: the next
sync would take every part Reader contributed to the file for an edit made in the vault, and a
change made in Reader after the crash (say, unstarring again) would lose against it. So before
writing, a sync saves per paper the base it merged against, the vault parts it merged (V) and
hashes of what it writes (M). The next sync, for a file whose base is still that base, reads a
part that still equals M as V (the user has not touched it since) — exactly as if the crashed
sync had never written — and a part that differs from M as the user's edit. A file the crashed
sync created (no base, all Reader's) gets M as its base. The journal is removed after the commit.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import files
from .document import Parts, digest, tag_key
from .merge import Base

JOURNAL = ".reader-sync.journal"
_BYTES = 256 << 20


@dataclass(frozen=True)
class JournalEntry:
    base: list[Any] | None  # the base merged against (None: a file the sync created)
    vault: list[Any] | None  # the vault parts merged (title, note, tags, starred, read)
    # Hashes of the parts (title, note, tag key, starred, read) the file may hold from Reader: what
    # the sync writes, and for a sync that itself recovered from a crash, what the file held when it
    # read it (a second crash before this sync's write leaves that there).
    written: list[list[Any]]

    def to_json(self) -> dict[str, Any]:
        return {"base": self.base, "vault": self.vault, "written": self.written}


def base_key(base: Base | None) -> list[Any] | None:
    if base is None:
        return None
    return [base.title_hash, base.note_hash, list(tag_key(base.tags)), base.starred, base.read]


def written_key(parts: Parts) -> list[Any]:
    return [digest(parts.title), digest(parts.note), list(tag_key(parts.tags)), parts.starred, parts.read]


def entry(base: Base | None, vault: Parts | None, final: Parts, held: Parts | None = None) -> JournalEntry:
    v = None if vault is None else [vault.title, vault.note, list(vault.tags), vault.starred, vault.read]
    return JournalEntry(base_key(base), v, [written_key(final)] + ([written_key(held)] if held is not None else []))


def load(root: Path) -> dict[str, JournalEntry]:
    """The journal a crashed sync left (empty when there is none or it cannot be read)."""
    if not os.path.lexists(root / JOURNAL):  # the usual case: not even an open
        return {}
    try:
        data = json.loads(files.read_bytes(root / JOURNAL, _BYTES)[0].decode("utf-8"))
        return {str(pid): JournalEntry(e["base"], e["vault"], e["written"]) for pid, e in data.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def save(root: Path, entries: dict[str, JournalEntry]) -> None:
    tmp, _ = files._write_tmp(root / JOURNAL, json.dumps({k: e.to_json() for k, e in entries.items()}).encode())
    os.replace(tmp, root / JOURNAL)


def clear(root: Path) -> None:
    (root / JOURNAL).unlink(missing_ok=True)


def recover(e: JournalEntry | None, base: Base | None, vault: Parts) -> tuple[Base | None, Parts]:
    """The base and vault parts to merge, given what a crashed sync wrote into this file."""
    if e is None or e.base != base_key(base):
        return base, vault  # no crash, or its sync committed after all
    if e.vault is None:  # a file the crashed sync created: all of it was Reader's
        w_title, w_note, w_tags, w_star, w_read = e.written[0]
        return Base(w_title, w_note, tuple(w_tags), bool(w_star), bool(w_read)), vault
    v_title, v_note, v_tags, v_star, v_read = e.vault
    now = written_key(vault)
    ours = [[w[i] for w in e.written] for i in range(5)]  # per part, the values Reader may have put there
    tags = vault.tags
    for w_tags in e.written:
        if now[2] == w_tags:
            tags = tuple(v_tags)
            break
    else:
        tags = _tags(v_tags, e.written[0][2], vault.tags)
    return base, Parts(
        title=v_title if now[0] in ours[0] else vault.title,
        note=v_note if now[1] in ours[1] else vault.note,
        tags=tags,
        starred=bool(v_star) if vault.starred in ours[3] else vault.starred,
        read=bool(v_read) if vault.read in ours[4] else vault.read,
    )


def _tags(before: list[str], written: list[str], now: tuple[str, ...]) -> tuple[str, ...]:
    """The vault's tags before the crashed write, with what the user changed since applied to them."""
    written_keys, now_keys = set(written), {t.casefold() for t in now}
    removed = written_keys - now_keys
    out = {t.casefold(): t for t in before if t.casefold() not in removed}
    out.update({t.casefold(): t for t in now if t.casefold() not in written_keys})
    return tuple(sorted(out.values(), key=str.casefold))

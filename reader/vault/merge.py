"""Three-way merge of one paper's synced parts: the vault's, Reader's, and what the last sync wrote."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .document import Parts, digest, normalize_note, tag_key

# A note edited on both sides keeps both texts between these lines (plain Markdown, so they read
# well in Obsidian, in Reader's note editor and in any CommonMark renderer).
CONFLICT_HEAD = ("⚠️ **Sync conflict**: this note was changed in Reader and in the vault. "
                 "Keep what you want, then delete the three lines that start with ⚠️.")
_READER_LINE = "⚠️ **In Reader**"
_VAULT_LINE = "⚠️ **In the vault**"
_CONFLICT_LINE = re.compile(r"^⚠\ufe0f? \*\*(?:Sync conflict|In Reader|In the vault)\*\*.*$", re.M)
_SECTIONS = re.compile(
    r"\A⚠\ufe0f? \*\*Sync conflict\*\*[^\n]*\n+⚠\ufe0f? \*\*In Reader\*\*[^\n]*\n(.*?)\n"
    r"⚠\ufe0f? \*\*In the vault\*\*[^\n]*\n(.*)\Z", re.S)


@dataclass(frozen=True)
class Base:
    """What the last sync wrote, as stored: hashes for text, values for tags and flags."""

    title_hash: str
    note_hash: str
    tags: tuple[str, ...]
    starred: bool
    read: bool


def has_conflict(note: str) -> bool:
    return _CONFLICT_LINE.search(note) is not None


def conflict_note(reader: str, vault: str, reader_when: str, vault_when: str) -> str:
    return (f"{CONFLICT_HEAD}\n\n{_READER_LINE} ({reader_when}):\n\n{reader}\n\n"
            f"{_VAULT_LINE} ({vault_when}):\n\n{vault}")


def _reader_side_of(note: str) -> str | None:
    """The Reader text inside a conflict note this sync would write; None for any other note."""
    m = _SECTIONS.match(note)
    return normalize_note(m.group(1)) if m else None


def retype_reader_side(note: str, old: str, new: str) -> str | None:
    """A conflict note whose Reader text is `old`, with `new` in its place (headers kept); else None.

    For an editor whose user kept typing while a sync wrote the conflict: their newer text
    replaces the one the sync saw, and the vault's text stays."""
    m = _SECTIONS.match(note)
    if m is None or normalize_note(m.group(1)) != normalize_note(old):
        return None
    old_text = m.group(1)
    lead = old_text[: len(old_text) - len(old_text.lstrip("\n"))]  # the blank lines around it stay
    trail = old_text[len(old_text.rstrip("\n")):]
    return note[: m.start(1)] + lead + new.strip("\n") + trail + note[m.end(1):]


@dataclass(frozen=True)
class Merged:
    parts: Parts
    conflict: bool  # the note now holds both texts


def _pick(base_hash: str | None, vault: str, reader: str, vault_newer: bool) -> str:
    if vault == reader:
        return vault
    if base_hash is not None:
        if digest(vault) == base_hash:
            return reader
        if digest(reader) == base_hash:
            return vault
    return vault if vault_newer else reader


def _pick_flag(base: bool | None, vault: bool, reader: bool, vault_newer: bool) -> bool:
    if vault == reader:
        return vault
    if base is not None:
        return vault if reader == base else reader
    return vault if vault_newer else reader


def merge_tags(base: tuple[str, ...] | None, vault: tuple[str, ...], reader: tuple[str, ...]) -> tuple[str, ...]:
    """A set merge: added on either side stays, removed on one side (and kept on the other) goes."""
    if tag_key(vault) == tag_key(reader):
        return reader
    if base is None:
        names = {t.casefold(): t for t in vault}
        names.update({t.casefold(): t for t in reader})
        return tuple(sorted(names.values(), key=str.casefold))
    base_keys = set(tag_key(base))
    vault_keys = set(tag_key(vault))
    result = {t.casefold(): t for t in reader}
    for t in vault:
        if t.casefold() not in base_keys:
            result.setdefault(t.casefold(), t)
    for key in base_keys - vault_keys:
        result.pop(key, None)
    return tuple(sorted(result.values(), key=str.casefold))


def merge_note(base_hash: str | None, vault: str, reader: str, reader_when: str, vault_when: str) -> str:
    if vault == reader:
        return vault
    if _reader_side_of(vault) == reader:
        return vault  # a conflict an interrupted sync already wrote into the file
    if base_hash is None:
        if not vault or not reader:
            return vault or reader
        return conflict_note(reader, vault, reader_when, vault_when)
    if digest(vault) == base_hash:
        return reader
    if digest(reader) == base_hash:
        return vault
    return conflict_note(reader, vault, reader_when, vault_when)


def merge(base: Base | None, vault: Parts, reader: Parts, *, vault_newer: bool,
          reader_when: str, vault_when: str) -> Merged:
    """Each part: the side that changed wins; both changed: tags as a set, note keeps both, else newer."""
    note = merge_note(base.note_hash if base else None, vault.note, reader.note, reader_when, vault_when)
    parts = Parts(
        title=_pick(base.title_hash if base else None, vault.title, reader.title, vault_newer) or reader.title,
        note=note,
        tags=merge_tags(base.tags if base else None, vault.tags, reader.tags),
        starred=_pick_flag(base.starred if base else None, vault.starred, reader.starred, vault_newer),
        read=_pick_flag(base.read if base else None, vault.read, reader.read, vault_newer),
    )
    return Merged(parts, has_conflict(note))

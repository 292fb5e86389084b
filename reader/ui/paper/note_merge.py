"""A note being typed meets a note changed elsewhere (a vault sync, another process): keep both.

When a change the user did not make replaces the stored note of a paper whose note is being
typed, the editor keeps the typed text and `NoteMerges` remembers what the editor was typed
from. The next save of that note (on the writer) then merges instead of overwriting: the typed
text replaces its own section of an earlier merge, appends on both sides are joined, and
anything else becomes a note holding both texts between marked lines, as the vault does."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime

OUTSIDE_HEAD = ("⚠️ **Note changed elsewhere**: another program changed this note while you typed. "
                "Keep what you want, then delete the three lines that start with ⚠️.")
_TYPED_LINE = "⚠️ **Typed here**"
_OUTSIDE_LINE = "⚠️ **Changed elsewhere**"
_OUTSIDE_SECTIONS = re.compile(
    r"\A⚠\ufe0f? \*\*Note changed elsewhere\*\*[^\n]*\n+⚠\ufe0f? \*\*Typed here\*\*[^\n]*\n(.*?)\n"
    r"⚠\ufe0f? \*\*Changed elsewhere\*\*[^\n]*\n(.*)\Z", re.S)

MERGE_VAULT, MERGE_OUTSIDE = "vault", "outside"


def utc_when(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def outside_conflict(typed: str, outside: str, typed_when: str, outside_when: str) -> str:
    return (f"{OUTSIDE_HEAD}\n\n{_TYPED_LINE} ({typed_when}):\n\n{typed}\n\n"
            f"{_OUTSIDE_LINE} ({outside_when}):\n\n{outside}")


def retype_typed_side(note: str, old: str, new: str) -> str | None:
    """An outside-conflict note whose typed text is `old`, with `new` in its place; else None."""
    # Here, as below: the vault's modules (YAML) load with a note's first merge, not at the start.
    from reader.vault.document import normalize_note

    m = _OUTSIDE_SECTIONS.match(note)
    if m is None or normalize_note(m.group(1)) != normalize_note(old):
        return None
    old_text = m.group(1)
    lead = old_text[: len(old_text) - len(old_text.lstrip("\n"))]
    trail = old_text[len(old_text.rstrip("\n")):]
    return note[: m.start(1)] + lead + new.strip("\n") + trail + note[m.end(1):]


def merge_outside(typed_from: str, stored: str, typed: str, when: datetime) -> str:
    """The note to store when `typed` (typed from `typed_from`) meets `stored`, written elsewhere."""
    again = retype_typed_side(stored, typed_from, typed)
    if again is not None:  # typing on after an earlier merge: only the typed section changes
        return again
    if not typed_from:  # both wrote a first note: one after the other
        return f"{stored.rstrip()}\n\n{typed.lstrip()}"
    if typed.startswith(typed_from):  # the user only added at the end: add it to the other text
        return stored + typed[len(typed_from):]
    if stored.startswith(typed_from):  # the other side only added at the end (a script's line)
        return typed + stored[len(typed_from):]
    return outside_conflict(typed, stored, utc_when(datetime.now(UTC)), utc_when(when))


def merge_vault(typed_from: str, stored: str, typed: str, when: datetime) -> str:
    from reader.vault.merge import conflict_note, retype_reader_side

    merged = retype_reader_side(stored, typed_from, typed)
    if merged is None:
        merged = conflict_note(typed, stored, utc_when(datetime.now(UTC)), utc_when(when))
    return merged


MERGES: dict[str, Callable[[str, str, str, datetime], str]] = {MERGE_VAULT: merge_vault, MERGE_OUTSIDE: merge_outside}


@dataclass(frozen=True)
class Retyped:
    typed_from: str  # the note the editor was typed from
    stored: str  # the note written elsewhere meanwhile
    when: datetime
    source: str  # MERGE_VAULT or MERGE_OUTSIDE: how the two are merged


class NoteMerges:
    """Per paper: the note changed under the editor, until the editor's text is stored (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[str, Retyped] = {}
        self._sent: dict[str, str] = {}  # GUI thread: the newest note text handed to the writer, per paper

    def base_for(self, pid: str, shown_note: str | None, text: str) -> str | None:
        """GUI thread, as a save of `text` is queued: the note it was typed from.

        That is the text of an earlier save still on its way to the writer, else the stored note
        the pane shows (None when the pane shows another paper: no check)."""
        base = self._sent.get(pid, shown_note)
        self._sent[pid] = text
        return base

    def sent_done(self, pid: str, text: str) -> None:
        """GUI thread: the save of `text` finished (stored or failed)."""
        if self._sent.get(pid) == text:
            del self._sent[pid]

    def changed_under_editor(self, pid: str, typed_from: str, stored: str, source: str) -> None:
        """`stored` replaced `typed_from` while the editor held unsaved text for `pid`."""
        if stored == typed_from:
            return
        with self._lock:
            earlier = self._records.get(pid)
            base = earlier.typed_from if earlier is not None and earlier.stored == typed_from else typed_from
            self._records[pid] = Retyped(base, stored, datetime.now(UTC), source)

    def pending(self, pid: str) -> bool:
        with self._lock:
            return pid in self._records

    def store(self, pid: str, text: str, current: str | None, write: Callable[[str], None],
              base: str | None = None) -> str:
        """On the writer: store the typed `text` (merged when needed); returns the note stored.

        `current` is the note stored now, `base` the one the text was typed from (when known).
        A note changed elsewhere since `base` (before the window even noticed) is merged. With a
        record, when the note changed again since it (an undo, another save), the typed text is
        the newer and is stored as typed."""
        from reader.vault.document import normalize_note

        with self._lock:
            record = self._records.get(pid)
        if record is None and base is not None and current is not None and current != base \
                and normalize_note(current) != normalize_note(text):
            record = Retyped(base, current, datetime.now(UTC), MERGE_OUTSIDE)
        if record is None:
            write(text)
            return text
        if current != record.stored or normalize_note(text) == normalize_note(record.stored):
            with self._lock:
                self._records.pop(pid, None)
            write(text)
            return text
        if normalize_note(text) == normalize_note(record.typed_from):
            return record.stored  # nothing new typed: the editor takes the other text
        merged = MERGES[record.source](record.typed_from, record.stored, text, record.when)
        write(merged)
        with self._lock:
            self._records[pid] = Retyped(text, merged, record.when, record.source)
        return merged

    def settle(self, unsaved: Collection[str]) -> None:
        """Forget the records of notes the editor shows as stored (nothing typed is pending)."""
        with self._lock:
            for pid in [p for p in self._records if p not in unsaved]:
                del self._records[pid]

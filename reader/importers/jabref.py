"""JabRef groups: the `@comment{jabref-meta: groupstree:|grouping: ...}` block of a .bib file.

A group is a collection the user made inside the file. JabRef 2.x lists an explicit group's
entry keys in the block (`ExplicitGroup:Name\\;0\\;key1\\;key2\\;;`); JabRef 3+ names static
groups there and puts the membership in each entry's `groups = {A, B}` field; a keyword group
holds the entries whose field contains a word. Nested groups are named "Parent / Child".
JabRef wraps the block's lines at a fixed width, mid-word, so its line breaks are dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADER = re.compile(r"^\s*jabref-meta:\s*(groupstree|grouping)\s*:", re.IGNORECASE)
_GROUP = re.compile(r"(\d+) ([A-Za-z]+):(.*?)(?<!\\);(?=\d+ [A-Za-z]+:|\s*$)", re.DOTALL)
_SPLIT = re.compile(r"(?<!\\)\\;")
MAX_GROUPS = 5_000


@dataclass
class GroupTree:
    """The file's groups: explicit members by entry key, keyword rules, names for `groups`."""

    members: dict[str, list[str]] = field(default_factory=dict)  # entry key -> group names
    keywords: list[tuple[str, str, str]] = field(default_factory=list)  # (group, field, word)
    named: dict[str, str] = field(default_factory=dict)  # folded leaf name -> full group name

    def merge(self, other: GroupTree) -> None:
        for key, names in other.members.items():
            self.members.setdefault(key, []).extend(names)
        self.keywords.extend(other.keywords)
        self.named.update(other.named)

    def groups_of(self, key: str, fields: dict[str, str]) -> list[str]:
        """The groups an entry is in: listed by key, by its `groups` field, or by keyword."""
        out = list(self.members.get(key, ()))
        for name in (fields.get("groups") or "").split(","):
            name = name.strip()
            if name:
                out.append(self.named.get(name.casefold(), name))
        for group, fname, word in self.keywords:
            if word and word.casefold() in (fields.get(fname) or "").casefold():
                out.append(group)
        return list(dict.fromkeys(out))


def parse_groups(comment: str) -> GroupTree:
    """The groups of one @comment block (empty unless it is JabRef's groups block)."""
    tree = GroupTree()
    header = _HEADER.match(comment)
    if not header:
        return tree
    body = comment[header.end():].replace("\r", "").replace("\n", "")
    path: list[str] = []
    for count, match in enumerate(_GROUP.finditer(body)):
        if count >= MAX_GROUPS:
            break
        level, kind, rest = int(match.group(1)), match.group(2), match.group(3)
        parts = [p.replace("\\;", ";").replace("\\\\", "\\") for p in _SPLIT.split(rest)]
        if level == 0 or not parts or not parts[0].strip():
            continue  # AllEntriesGroup: the whole file, already its collection
        del path[level - 1:]
        path.append(parts[0].strip())
        name = " / ".join(path)
        tree.named[parts[0].strip().casefold()] = name
        if kind == "ExplicitGroup":
            for key in parts[2:]:
                if key.strip():
                    tree.members.setdefault(key.strip(), []).append(name)
        elif kind == "KeywordGroup" and len(parts) >= 4:
            tree.keywords.append((name, parts[2].strip().lower(), parts[3].strip()))
    return tree

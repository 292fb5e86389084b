"""A reading group without a server (issue 29): members share their decisions through a folder
any file-sync tool keeps in step (Syncthing, a cloud folder, a git repository).

Each member writes only under `FOLDER/<name>/` (one writer per file), append-only JSON lines
ordered by the member's own sequence numbers; every member reads every folder and merges per
member, paper key and field by the highest sequence number, so the merged view is the same
whatever order the files arrive in. No Qt here: the window and the CLI both call `sync`."""

from .engine import Group, GroupError, GroupStatus, GroupSyncReport

__all__ = ["Group", "GroupError", "GroupStatus", "GroupSyncReport"]

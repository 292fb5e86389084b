"""Vault sync against a real library and a real folder: both directions, merges, moves, deletions."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import time
from pathlib import Path

import frontmatter
import pytest
from markdown_it import MarkdownIt

from reader.cli import run as cli_run
from reader.store import vault_state
from reader.vault import DEFAULT_QUERY, sync
from reader.vault import files as vault_files
from reader.vault import snapshot as vault_snapshot
from reader.vault.document import parse


def _files(vault: Path) -> dict[str, Path]:
    """Reader files in the vault by paper id (asserting no id is in two files)."""
    out: dict[str, Path] = {}
    for path in vault.rglob("*.md"):
        if ".trash" in path.relative_to(vault).parts:
            continue
        post = frontmatter.load(path)
        pid = post.get("id")
        if pid:
            assert pid not in out, f"duplicate files for {pid}: {out[pid]}, {path}"
            out[str(pid)] = path
    return out


def _note_of(path: Path) -> str:
    vf = parse(path.read_text(encoding="utf-8"))
    assert vf is not None
    return vf.block("note").strip()


def _set_note(path: Path, note: str) -> None:
    text = path.read_text(encoding="utf-8")
    new = re.sub(r"(<!-- reader:note -->\n).*?(<!-- /reader:note -->)", lambda m: f"{m.group(1)}\n{note}\n\n{m.group(2)}",
                 text, flags=re.S)
    assert new != text or note in text
    _save(path, new)


def _save(path: Path, text: str) -> None:
    """Save like an editor would, a moment later (so the file's mtime is newer than Reader's change)."""
    path.write_text(text, encoding="utf-8")
    future = time.time() + 2
    os.utime(path, (future, future))


def _fm_set(path: Path, key: str, value_text: str) -> None:
    text = path.read_text(encoding="utf-8")
    new, n = re.subn(rf"^{key}:.*(?:\n  - .*)*$", f"{key}: {value_text}", text, count=1, flags=re.M)
    assert n == 1
    _save(path, new)


def test_first_sync_writes_one_file_per_touched_paper(lib, vault, ids):
    lib.set_starred(ids[:2], True)
    lib.add_tags([ids[2]], ["ml"])
    lib.set_note(ids[3], "a note")
    lib.add_highlight(ids[4], 0, 5, "#ffe066", "why")
    report = sync(lib, vault)
    assert report.query == DEFAULT_QUERY
    assert sorted(_files(vault)) == sorted(ids[:5])
    assert len(report.written) == 5 and all(w["new"] for w in report.written)
    again = sync(lib, vault)
    assert again.written == [] and again.taken_from_vault == [] and again.unchanged == 5
    json.dumps(again.to_json())  # the report is JSON-serialisable


def test_note_edited_in_the_file_reaches_reader(lib, vault, ids):
    lib.set_note(ids[0], "first thoughts")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    _set_note(path, "first thoughts\n\n## Later\n\nedited in **Obsidian** with $x^2$")
    report = sync(lib, vault)
    assert [t["parts"] for t in report.taken_from_vault] == [["note"]]
    assert lib.paper(ids[0]).note == "first thoughts\n\n## Later\n\nedited in **Obsidian** with $x^2$"
    assert sync(lib, vault).written == []


def test_star_tag_and_title_in_reader_reach_the_file(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    lib.add_tags([ids[0]], ["to read", "ml"])
    lib.set_read([ids[0]], True)
    lib.set_title(ids[0], 'A title: with "quotes" # and a hash')
    report = sync(lib, vault)
    assert [w["path"] for w in report.written] == [path.name]  # never renamed
    post = frontmatter.load(path)
    assert post["tags"] == ["ml", "to read"] and post["read"] is True and post["starred"] is True
    assert post["title"] == 'A title: with "quotes" # and a hash'
    assert "# A title: with \"quotes\" \\# and a hash" in post.content


def test_starred_and_tags_edited_in_the_file_reach_reader(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    lib.add_tags([ids[0]], ["a"])
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    _fm_set(path, "tags", "[a, b, c]")
    _fm_set(path, "read", "true")
    sync(lib, vault)
    p = lib.paper(ids[0])
    assert p.tags == ["a", "b", "c"] and p.read is True


def test_a_note_edited_on_both_sides_keeps_both_and_is_reported_until_resolved(lib, vault, ids):
    lib.set_note(ids[0], "base")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    lib.set_note(ids[0], "base + reader's line")
    _set_note(path, "base + vault's line")
    report = sync(lib, vault)
    assert [c["id"] for c in report.conflicts] == [ids[0]]
    note = lib.paper(ids[0]).note
    assert "base + reader's line" in note and "base + vault's line" in note and "Sync conflict" in note
    assert _note_of(path) == note  # the same marked text in both places
    assert [c["id"] for c in sync(lib, vault).conflicts] == [ids[0]]  # still listed
    _set_note(path, "base + reader's line + vault's line")  # the user merges and removes the markers
    report = sync(lib, vault)
    assert report.conflicts == []
    assert lib.paper(ids[0]).note == "base + reader's line + vault's line"


def test_tags_merge_as_a_set_and_the_newer_title_wins(lib, vault, ids):
    lib.add_tags([ids[0]], ["keep", "drop-in-vault", "drop-in-reader"])
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    lib.add_tags([ids[0]], ["new-in-reader"])
    lib.remove_tags([ids[0]], ["drop-in-reader"])
    lib.set_starred([ids[0]], True)
    lib.set_title(ids[0], "Title from Reader")
    _fm_set(path, "tags", "[keep, drop-in-reader, new-in-vault]")
    _fm_set(path, "title", "Title from the vault")  # saved later than Reader's edit: the vault wins
    sync(lib, vault)
    p = lib.paper(ids[0])
    assert p.tags == ["keep", "new-in-reader", "new-in-vault"]
    assert p.starred is True  # changed on one side only
    assert p.title == "Title from the vault"
    assert "# Title from the vault" in path.read_text(encoding="utf-8")
    assert frontmatter.load(path)["tags"] == ["keep", "new-in-reader", "new-in-vault"]


USER_TOP = """---
aliases: [my paper]   # a comment the user wrote
id: {id}
cssclasses:
- wide
rating:   4
---
Intro line the user wrote before Reader's blocks.

"""
USER_MIDDLE = "\n\n## My own heading\n\nSee [[Other note]] and status:: reading\n\n\n"
USER_END = "\n\nTrailing text with **bold**.\n\n\n"


def test_user_text_outside_managed_parts_survives_ten_syncs_byte_for_byte(lib, vault, ids):
    lib.set_note(ids[0], "note 0")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    vf = parse(path.read_text(encoding="utf-8"))
    assert vf is not None
    # Rebuild the file the way a user might: own keys and text around Reader's blocks.
    text = vf.text
    head_end = vf.fm.body_start
    fm_lines = [ln for ln in text[:head_end].splitlines() if ln not in ("---",) and not ln.startswith("id:")]
    user = USER_TOP.format(id=ids[0]).replace("rating:   4\n", "rating:   4\n" + "\n".join(fm_lines) + "\n")
    body = text[head_end:]
    body = body.replace("<!-- reader:highlights -->", USER_MIDDLE.strip("\n") + "\n\n<!-- reader:highlights -->")
    _save(path, user + body.strip("\n") + USER_END)
    kept = [USER_TOP.split("id:")[0], "cssclasses:\n- wide\nrating:   4\n", "Intro line the user wrote before Reader's blocks.\n",
            USER_MIDDLE.strip("\n"), USER_END]
    for i in range(10):
        if i % 2:
            lib.set_note(ids[0], f"note {i} from Reader")
            lib.set_starred([ids[0]], i % 4 == 1)
            lib.add_tags([ids[0]], [f"t{i}"])
        else:
            _set_note(path, f"note {i} from the vault")
        sync(lib, vault)
        text = path.read_text(encoding="utf-8")
        for piece in kept:
            assert piece in text, (i, piece)
        assert text.endswith(USER_END)
    post = frontmatter.load(path)
    assert post["aliases"] == ["my paper"] and post["rating"] == 4 and post["cssclasses"] == ["wide"]
    assert lib.paper(ids[0]).note == "note 9 from Reader"


def test_unchanged_keys_keep_the_users_formatting(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    lib.add_tags([ids[0]], ["a", "b"])
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    text = path.read_text(encoding="utf-8").replace("tags:\n  - a\n  - b\n", "tags: [b, a]  # mine\n")
    _save(path, text)
    lib.set_read([ids[0]], True)
    sync(lib, vault)
    new = path.read_text(encoding="utf-8")
    assert "tags: [b, a]  # mine\n" in new and "read: true" in new


def test_a_moved_and_renamed_file_is_still_matched(lib, vault, ids):
    lib.set_starred(ids[:2], True)
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    (vault / "Papers" / "2025").mkdir(parents=True)
    moved = vault / "Papers" / "2025" / "my name.md"
    path.rename(moved)
    lib.set_note(ids[0], "after the move")
    report = sync(lib, vault)
    assert report.recreated == [] and [w["path"] for w in report.written] == ["Papers/2025/my name.md"]
    assert _note_of(moved) == "after the move"
    assert _files(vault)[ids[0]] == moved
    _set_note(moved, "edited after the move")
    sync(lib, vault)
    assert lib.paper(ids[0]).note == "edited after the move"


def test_a_paper_deleted_in_reader_moves_its_file_to_trash(lib, vault, ids):
    lib.set_starred(ids[:2], True)
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    lib.delete_papers([ids[0]])
    report = sync(lib, vault)
    assert [t["id"] for t in report.trashed] == [ids[0]]
    assert not path.exists() and (vault / ".trash" / path.name).is_file()
    assert sorted(_files(vault)) == [ids[1]]
    assert sync(lib, vault).trashed == []


def test_a_file_deleted_in_the_vault_deletes_nothing_and_is_written_again(lib, vault, ids):
    lib.set_note(ids[0], "keep me")
    lib.set_starred([ids[1]], True)
    sync(lib, vault)
    files = _files(vault)
    files[ids[0]].unlink()
    report = sync(lib, vault)
    assert [r["id"] for r in report.recreated] == [ids[0]]
    assert lib.paper(ids[0]).note == "keep me"
    assert _note_of(_files(vault)[ids[0]]) == "keep me"
    # A paper that left the query is not written again (its file, edited so it was kept).
    _save(files[ids[1]], files[ids[1]].read_text(encoding="utf-8") + "\nmy own line\n")
    lib.set_starred([ids[1]], False)
    assert [k["id"] for k in sync(lib, vault).kept] == [ids[1]]
    files[ids[1]].unlink()
    report = sync(lib, vault)
    assert report.recreated == [] and ids[1] not in _files(vault)
    assert any(s["id"] == ids[1] for s in report.skipped)


@pytest.mark.parametrize("damage", [
    ("<!-- reader:note -->\n", "<!-- reader:note -->\n<!-- reader:note -->\n"),  # duplicated marker
    ("<!-- /reader:note -->", ""),  # unbalanced
    ("starred: true", "starred: [true"),  # unparsable YAML
    ("starred: true", "starred: maybe"),  # not a flag
])
def test_a_damaged_file_is_reported_and_left_alone(lib, vault, ids, damage):
    lib.set_starred([ids[0]], True)
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    text = path.read_text(encoding="utf-8")
    assert damage[0] in text
    broken = text.replace(damage[0], damage[1], 1)
    _save(path, broken)
    lib.set_note(ids[0], "written in Reader meanwhile")
    report = sync(lib, vault)
    assert [d["path"] for d in report.damaged] == [path.name]
    assert path.read_text(encoding="utf-8") == broken
    assert report.written == [] and report.recreated == []  # no second file for the paper
    assert len(list(vault.glob("*.md"))) == 1


def test_a_file_whose_id_was_removed_is_reported_not_duplicated(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    broken = re.sub(r"^id: .*\n", "", path.read_text(encoding="utf-8"), flags=re.M)
    _save(path, broken)
    report = sync(lib, vault)
    assert [d["path"] for d in report.damaged] == [path.name]
    assert path.read_text(encoding="utf-8") == broken and len(list(vault.glob("*.md"))) == 1


def test_files_without_a_reader_id_are_never_touched(lib, vault, ids):
    other = {
        "plain.md": "# Just my note\n",
        "with-id.md": "---\nid: 20231130-zettel\ntags: [x]\n---\nmine\n",
        "bad-yaml.md": "---\ntitle: [oops\n---\nmine\n",
        "unknown.md": "---\nid: 0123456789abcdef\n---\nnot in this library\n",
    }
    for name, text in other.items():
        (vault / name).write_text(text, encoding="utf-8")
    stamps = {n: (vault / n).stat().st_mtime_ns for n in other}
    lib.set_starred([ids[0]], True)
    report = sync(lib, vault)
    assert report.damaged == []
    for name, text in other.items():
        assert (vault / name).read_text(encoding="utf-8") == text
        assert (vault / name).stat().st_mtime_ns == stamps[name]
    assert len(report.written) == 1


def test_front_matter_parses_to_exactly_what_reader_holds(lib, vault, ids):
    tricky = ["yes", "3D: a title", "'quoted' and \"double\"", "#hashtag start", "null", "- dash",
              "Ünïcödé ∑ title", "trailing colon:", "[brackets] and {braces}"]
    for pid, title in zip(ids, tricky, strict=False):
        lib.set_title(pid, title)
        lib.add_tags([pid], ["ml", "to read"])
    lib.add_highlight(ids[0], 0, 10, "#ffe066", "a *comment*")
    sync(lib, vault)
    files = _files(vault)
    assert len(files) == len(tricky)
    for pid, path in files.items():
        p = lib.paper(pid)
        post = frontmatter.load(path)
        assert post.metadata == {
            "id": pid, "title": p.title, "authors": p.authors, "venue": p.venue or None,
            "year": p.year, "tags": p.tags, "starred": p.starred, "read": p.read,
            "code": p.code_links, "links": p.links, "added": dt.date.fromisoformat(p.added_at[:10]),
        }


def _visible_text(html: str) -> str:
    return re.sub(r"<!--.*?-->", "", html, flags=re.S)


def test_the_body_renders_with_commonmark_without_stray_markers(lib, vault, ids):
    lib.set_note(ids[0], "- a list item\n\n> a quote\n\n```\ncode\n```")
    lib.add_highlight(ids[0], 0, 12, "#ffe066", "my comment")
    lib.add_tags([ids[1]], ["x"])
    lib.set_note(ids[2], "base")
    sync(lib, vault)
    lib.set_note(ids[2], "reader side")
    _set_note(_files(vault)[ids[2]], "vault side")
    sync(lib, vault)
    md = MarkdownIt("commonmark")
    for path in _files(vault).values():
        body = frontmatter.load(path).content
        html = md.render(body)
        visible = _visible_text(html)
        assert "reader:" not in visible and "--&gt;" not in visible and "&lt;!--" not in visible, path
        assert "<h1>" in html
    html = md.render(frontmatter.load(_files(vault)[ids[0]]).content)
    assert "<li>a list item</li>" in html and "<blockquote>" in html and "my comment" in html
    conflict = md.render(frontmatter.load(_files(vault)[ids[2]]).content)
    assert "<strong>Sync conflict</strong>" in conflict and "<h" not in conflict.split("Sync conflict")[1]


def test_dry_run_changes_nothing(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    report = sync(lib, vault, dry_run=True)
    assert len(report.written) == 1 and list(vault.iterdir()) == []  # not even the marker file
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    _set_note(path, "from vault")
    before = path.read_text(encoding="utf-8")
    report = sync(lib, vault, dry_run=True)
    assert [t["parts"] for t in report.taken_from_vault] == [["note"]]
    assert lib.paper(ids[0]).note == "" and path.read_text(encoding="utf-8") == before


def test_the_query_is_stored_with_the_vault(lib, vault, ids):
    lib.add_tags(ids[:2], ["ml"])
    lib.set_starred([ids[5]], True)
    report = sync(lib, vault, query="tag:ml")
    assert sorted(_files(vault)) == sorted(ids[:2])
    lib.add_tags([ids[3]], ["ml"])
    report = sync(lib, vault)
    assert report.query == "tag:ml" and sorted(_files(vault)) == sorted([ids[0], ids[1], ids[3]])


def test_an_unchanged_sync_reads_no_file(lib, vault, ids, monkeypatch):
    lib.set_starred(ids[:10], True)
    sync(lib, vault)
    reads = []
    real = vault_files.read_bytes
    monkeypatch.setattr(vault_files, "read_bytes", lambda p, *a: reads.append(Path(p)) or real(p, *a))
    report = sync(lib, vault)
    assert [p.name for p in reads] == [".reader-vault"] and report.unchanged == 10


def test_a_sync_killed_before_its_commit_ends_like_an_uninterrupted_one(lib, vault, ids, monkeypatch):
    lib.set_note(ids[0], "base")
    lib.set_starred(ids[1:3], True)
    sync(lib, vault)
    files = _files(vault)
    lib.set_note(ids[0], "reader edit")
    _set_note(files[ids[0]], "vault edit")
    _fm_set(files[ids[1]], "tags", "[from-vault]")
    lib.add_tags([ids[2]], ["from-reader"])
    lib.set_starred([ids[3]], True)  # a new file

    class Killed(Exception):
        pass

    def die(_library):
        raise Killed()
        yield  # pragma: no cover

    from contextlib import contextmanager
    monkeypatch.setattr(vault_snapshot, "write_transaction", contextmanager(die))
    with pytest.raises(Killed):
        sync(lib, vault)  # every file written, nothing committed
    monkeypatch.undo()
    sync(lib, vault)
    files = _files(vault)
    assert sorted(files) == sorted(ids[:4])
    note = lib.paper(ids[0]).note
    assert note.count("Sync conflict") == 1 and "reader edit" in note and "vault edit" in note
    assert _note_of(files[ids[0]]) == note
    assert lib.paper(ids[1]).tags == ["from-vault"]
    assert frontmatter.load(files[ids[2]])["tags"] == ["from-reader"]
    assert sync(lib, vault).written == []


def test_the_cli_syncs_and_reports_json(lib, vault, ids, tmp_path, capsys):
    lib.set_starred(ids[:3], True)
    lib.close()
    assert cli_run(["--data-dir", str(tmp_path / "lib"), "vault", "status", str(vault), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["dry_run"] is True and len(status["written"]) == 3 and list(vault.iterdir()) == []
    assert cli_run(["--data-dir", str(tmp_path / "lib"), "vault", "sync", str(vault), "--query", "is:starred"]) == 0
    assert "wrote 3 files (3 new)" in capsys.readouterr().out
    assert len(list(vault.glob("*.md"))) == 3


def test_sync_state_is_in_the_library(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    sync(lib, vault)
    conn = vault_snapshot.read_connection(lib)
    key = json.loads((vault / ".reader-vault").read_text())["id"]
    row = vault_state.get_vault(conn, key)
    assert row is not None and row.query == DEFAULT_QUERY and row.root == str(vault.resolve())
    assert list(vault_state.load_states(conn, row.id)) == [ids[0]]


def test_a_moved_vault_keeps_its_sync_state(lib, vault, ids, tmp_path):
    lib.set_note(ids[0], "base")
    sync(lib, vault)
    moved = tmp_path / "elsewhere"
    vault.rename(moved)
    lib.set_note(ids[0], "from Reader")
    report = sync(lib, moved)
    assert report.conflicts == [] and _note_of(_files(moved)[ids[0]]) == "from Reader"


def test_a_windows_file_keeps_its_crlf_line_ends(lib, vault, ids):
    lib.set_note(ids[0], "base")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    crlf = path.read_text(encoding="utf-8").replace("\n", "\r\n").replace("\r\nbase\r\n", "\r\nfrom Windows\r\n")
    path.write_bytes(crlf.encode("utf-8"))
    lib.add_tags([ids[0]], ["win"])
    sync(lib, vault)
    data = path.read_bytes().decode("utf-8")
    assert "\n" not in data.replace("\r\n", "")
    assert lib.paper(ids[0]).note == "from Windows" and "  - win\r\n" in data


def test_on_apply_names_the_papers_about_to_change_inside_the_transaction(lib, vault, ids):
    lib.set_note(ids[0], "base")
    lib.set_starred([ids[1]], True)
    sync(lib, vault)
    _set_note(_files(vault)[ids[0]], "from the vault")
    seen: list[tuple[list[str], str]] = []
    sync(lib, vault, on_apply=lambda changing: seen.append((changing, lib.snapshot(changing)[0].note)))
    assert seen == [([ids[0]], "base")]  # the state before, for one undo step


def test_a_note_holding_a_marker_line_is_not_written(lib, vault, ids):
    lib.set_note(ids[0], "text\n<!-- /reader:note -->\nmore")
    lib.set_starred([ids[1]], True)
    report = sync(lib, vault)
    assert [s["id"] for s in report.skipped] == [ids[0]] and sorted(_files(vault)) == [ids[1]]


def test_dry_run_names_the_files_it_would_create(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    planned = sync(lib, vault, dry_run=True).written[0]["path"]
    assert sync(lib, vault).written[0]["path"] == planned and (vault / planned).is_file()


def test_links_are_never_written_through_and_permissions_stay(lib, vault, ids, tmp_path):
    lib.set_starred(ids[:2], True)
    sync(lib, vault)
    files = _files(vault)
    outside = tmp_path / "outside.md"
    outside.write_text(files[ids[0]].read_text(encoding="utf-8"), encoding="utf-8")
    files[ids[0]].unlink()
    files[ids[0]].symlink_to(outside)  # a link in the vault: not followed, not replaced
    files[ids[1]].chmod(0o600)
    before = outside.read_text(encoding="utf-8")
    lib.add_tags(ids[:2], ["x"])
    sync(lib, vault)
    assert outside.read_text(encoding="utf-8") == before and files[ids[0]].is_symlink()
    assert len(list(vault.glob("*.md"))) == 2  # and no second file for the linked paper
    assert (files[ids[1]].stat().st_mode & 0o777) == 0o600
    assert frontmatter.load(files[ids[1]])["tags"] == ["x"]


def test_a_nul_in_a_vault_title_or_note_is_not_stored_and_the_backup_keeps_the_paper(lib, vault, ids, tmp_path):
    # Issue 30: YAML's "\0" in a vault title reached the store; Reader's
    # own backup then dropped the whole paper on restore ("1 rejected"), its star and tags too.
    lib.set_starred([ids[0]], True)
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    _fm_set(path, "title", '"Title with a \\\\0 nul\\\\a"')  # YAML escapes (doubled for re.sub)
    sync(lib, vault)
    p = lib.paper(ids[0])
    assert p.title == "Title with a nul" and p.starred
    backup = tmp_path / "backup.json"
    lib.export_json(backup)
    assert cli_run(["--data-dir", str(tmp_path / "restored"), "import", str(backup)]) == 0
    with type(lib).open(tmp_path / "restored", seed_if_empty=False) as restored:
        assert restored.paper(ids[0]).title == "Title with a nul" and restored.paper(ids[0]).starred


def test_a_control_character_in_a_vault_title_is_never_written_into_the_file(lib, vault, ids):
    # YAML's "\0", "\a", "\e" in the title: the store kept the title without them, but the sync
    # wrote the vault's raw title into the file's heading: a NUL byte in a Markdown file.
    lib.set_starred([ids[0]], True)
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    _fm_set(path, "title", '"Heading \\\\0 with \\\\a bell \\\\e esc \\\\x01 one"')  # YAML escapes (doubled for re.sub)
    sync(lib, vault)
    assert lib.paper(ids[0]).title == "Heading with bell esc one"
    body = path.read_bytes().split(b"\n---\n", 1)[1]
    assert b"# Heading with bell esc one" in body
    assert not re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", body)


# ---- a paper that leaves the vault's query (issue 30: star then undo left `starred: false`)

def _trashed(vault: Path) -> list[Path]:
    return sorted((vault / ".trash").glob("*.md")) if (vault / ".trash").is_dir() else []


def test_star_then_undo_moves_the_untouched_file_to_trash(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    assert len(sync(lib, vault, query="is:starred").written) == 1
    lib.set_starred([ids[0]], False)  # the undo, well within a second
    report = sync(lib, vault, query="is:starred")
    assert _files(vault) == {}, "a file with `starred: false` stayed in an is:starred vault"
    [moved] = _trashed(vault)
    assert frontmatter.load(moved)["id"] == ids[0]
    assert [(t["id"], t["reason"]) for t in report.trashed] == [(ids[0], "no longer in the vault's query")]
    assert "no longer in the vault's query, file moved" in report.describe()
    again = sync(lib, vault, query="is:starred")
    assert again.trashed == [] and again.written == [] and again.kept == []
    lib.set_starred([ids[0]], True)  # back in the query: a new file
    assert [w["new"] for w in sync(lib, vault, query="is:starred").written] == [True]
    assert list(_files(vault)) == [ids[0]]


def test_a_file_rewritten_by_reader_alone_still_goes_to_trash(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    sync(lib, vault, query="is:starred")
    lib.set_note(ids[0], "written in Reader")  # Reader rewrites the file: still only Reader's
    assert len(sync(lib, vault, query="is:starred").written) == 1
    lib.set_starred([ids[0]], False)
    sync(lib, vault, query="is:starred")
    assert _files(vault) == {} and len(_trashed(vault)) == 1


def test_a_file_edited_in_the_vault_is_kept_when_its_paper_leaves_the_query(lib, vault, ids):
    lib.set_starred([ids[0]], True)
    sync(lib, vault, query="is:starred")
    path = _files(vault)[ids[0]]
    _set_note(path, "my own words")
    lib.set_starred([ids[0]], False)
    report = sync(lib, vault, query="is:starred")
    assert list(_files(vault)) == [ids[0]] and _trashed(vault) == []
    assert [k["id"] for k in report.kept] == [ids[0]] and "kept" in report.describe()
    assert lib.paper(ids[0]).note == "my own words" and not lib.paper(ids[0]).starred
    # Reader rewrote it (starred: false) but it stays the user's file on every later sync.
    later = sync(lib, vault, query="is:starred")
    assert list(_files(vault)) == [ids[0]] and _trashed(vault) == [] and [k["id"] for k in later.kept] == [ids[0]]


def test_a_file_saved_right_before_the_move_is_not_trashed(lib, vault, ids, monkeypatch):
    lib.set_starred([ids[0]], True)
    sync(lib, vault, query="is:starred")
    path = _files(vault)[ids[0]]
    lib.set_starred([ids[0]], False)
    real = vault_files.to_trash

    def user_saves_first(*args, **kwargs):
        _save(path, path.read_text(encoding="utf-8") + "\nmine\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(vault_files, "to_trash", user_saves_first)
    report = sync(lib, vault, query="is:starred")
    assert report.trashed == [] and _trashed(vault) == [] and "mine" in path.read_text(encoding="utf-8")
    monkeypatch.undo()
    assert [k["id"] for k in sync(lib, vault, query="is:starred").kept] == [ids[0]]
    assert list(_files(vault)) == [ids[0]]


def test_star_then_undo_from_the_cli_leaves_no_file(lib, vault, ids, tmp_path, capsys):
    lib.close()
    data = ["--data-dir", str(tmp_path / "lib")]
    assert cli_run([*data, "star", ids[0]]) == 0
    assert cli_run([*data, "vault", "sync", str(vault), "--query", "is:starred"]) == 0
    assert cli_run([*data, "unstar", ids[0]]) == 0
    capsys.readouterr()
    assert cli_run([*data, "vault", "sync", str(vault), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(t["id"], t["reason"]) for t in report["trashed"]] == [(ids[0], "no longer in the vault's query")]
    assert _files(vault) == {} and len(_trashed(vault)) == 1


@pytest.mark.parametrize("kind", ["fifo", "file"])
def test_a_vault_path_that_is_not_a_folder_is_named_for_what_it_is(lib, tmp_path, kind):
    """A FIFO given as the vault was called "a file" (issue 30's campaign)."""
    from reader.errors import ReaderError

    target = tmp_path / "notes"
    os.mkfifo(target) if kind == "fifo" else target.write_text("x", encoding="utf-8")
    with pytest.raises(ReaderError, match="a FIFO" if kind == "fifo" else "is a file, not a vault folder"):
        sync(lib, target)

"""The vault against concurrent saves and hostile folders (issue 19): each test names its defect."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import frontmatter
import pytest

from reader.cli import run as cli_run
from reader.vault import files as vault_files
from reader.vault import sync
from reader.vault.document import parse


def _files(vault: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in vault.rglob("*.md"):
        if ".trash" in path.relative_to(vault).parts or path.is_symlink() or not path.is_file():
            continue
        pid = frontmatter.loads(path.read_bytes().decode("utf-8", "replace")).get("id")
        if pid:
            assert pid not in out, f"two files for {pid}"
            out[str(pid)] = path
    return out


def _with_note(text: str, note: str) -> str:
    nl = "\r\n" if "\r\n" in text else "\n"
    return re.sub(r"(<!-- reader:note -->\r?\n).*?(<!-- /reader:note -->)",
                  lambda m: f"{m.group(1)}{nl}{note}{nl}{nl}{m.group(2)}", text, flags=re.S)


def _with_tags(text: str, tags: str) -> str:
    return re.sub(r"^tags:.*(?:\n  - .*)*$", f"tags: {tags}", text, count=1, flags=re.M)


def _later(path: Path) -> None:
    future = time.time() + 2
    os.utime(path, (future, future))


def _note(path: Path) -> str:
    vf = parse(path.read_text(encoding="utf-8"))
    assert vf is not None
    return vf.block("note").strip()


# --- 1 and 5: a save during the sync's write ---------------------------------------------------

def test_1_a_save_while_the_sync_writes_the_file_keeps_both_edits(lib, vault, ids, monkeypatch):
    lib.set_note(ids[0], "base")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    lib.set_note(ids[0], "reader edit")  # the sync will rewrite the file for this
    real = vault_files._write_tmp
    saved: list[bool] = []

    def write_tmp_then_user_saves(target, *args, **kwargs):
        out = real(target, *args, **kwargs)
        if Path(target) == path and not saved:  # the user saves while the copy is written
            saved.append(True)
            path.write_text(_with_tags(path.read_text(encoding="utf-8"), "[from-vault]"), encoding="utf-8")
        return out

    monkeypatch.setattr(vault_files, "_write_tmp", write_tmp_then_user_saves)
    sync(lib, vault)
    monkeypatch.undo()
    sync(lib, vault)
    assert saved
    assert lib.paper(ids[0]).tags == ["from-vault"] == frontmatter.load(path)["tags"]
    assert _note(path) == "reader edit" == lib.paper(ids[0]).note
    assert sync(lib, vault).written == []


def test_5_a_save_right_after_the_rename_is_not_taken_for_the_syncs_own_write(lib, vault, ids, monkeypatch):
    lib.set_note(ids[0], "base")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    lib.add_tags([ids[0]], ["from-reader"])
    real = os.replace
    saved: list[bool] = []

    def replace_then_user_saves(src, dst, *args, **kwargs):
        real(src, dst, *args, **kwargs)
        if Path(dst) == path and not saved:
            saved.append(True)
            path.write_text(_with_note(path.read_text(encoding="utf-8"), "saved just after the sync wrote"),
                            encoding="utf-8")

    monkeypatch.setattr(os, "replace", replace_then_user_saves)
    sync(lib, vault)
    monkeypatch.undo()
    report = sync(lib, vault)
    assert saved and [t["parts"] for t in report.taken_from_vault] == [["note"]]
    assert lib.paper(ids[0]).note == "saved just after the sync wrote"
    assert lib.paper(ids[0]).tags == ["from-reader"]


# --- 2: devices, FIFOs and links in the vault ------------------------------------------------------

def _cli_sync(tmp_path: Path, vault: Path, command: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a child with a memory cap and a timeout: a sync reading /dev/zero must not hang us."""
    def cap() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    return subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(tmp_path / "lib"), "vault", command,
                           str(vault), "--json"], capture_output=True, text=True, timeout=300, preexec_fn=cap)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX devices and FIFOs")
@pytest.mark.parametrize("command", ["sync", "status"])
def test_2_links_to_devices_and_fifos_never_hang_a_sync(lib, vault, ids, tmp_path, command):
    lib.set_starred(ids[:2], True)
    sync(lib, vault)
    lib.close()
    os.mkfifo(vault / "pipe.md")
    os.mkfifo(vault / ".hidden-pipe")
    (vault / "zero.md").symlink_to("/dev/zero")
    (vault / "random.md").symlink_to("/dev/urandom")
    (vault / "to-pipe.md").symlink_to(vault / ".hidden-pipe")
    (vault / "sub").mkdir()
    (vault / "sub" / "zero.md").symlink_to("/dev/zero")
    done = _cli_sync(tmp_path, vault, command)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["damaged"] == [] and report["files"] == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX devices and FIFOs")
@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_2_a_marker_linked_to_a_device_gives_one_line_not_a_hang(lib, vault, ids, tmp_path, target):
    lib.set_starred(ids[:1], True)
    lib.close()
    if target == "fifo":
        os.mkfifo(vault / ".reader-vault")
    else:
        (vault / ".reader-vault").symlink_to(target)
    for command in ("status", "sync"):
        done = _cli_sync(tmp_path, vault, command)
        assert done.returncode == 1 and ".reader-vault" in done.stderr and "Traceback" not in done.stderr


# --- 3: long names, and one failing file ------------------------------------------------------------

def test_3_long_non_ascii_titles_fit_and_do_not_wedge_the_vault(lib, vault, ids):
    lib.set_title(ids[0], "😀" * 60)
    lib.set_title(ids[1], "長い題名" * 40)
    lib.set_starred(ids[:4], True)
    report = sync(lib, vault)
    assert len(report.written) == 4 and report.skipped == []
    assert sorted(_files(vault)) == sorted(ids[:4])
    for path in vault.glob("*.md"):
        assert len(os.fsencode(path.name)) <= 255
    assert sync(lib, vault).written == []  # the state was saved


def test_3_a_file_that_cannot_be_written_does_not_stop_the_others(lib, vault, ids, monkeypatch):
    lib.set_starred(ids[:3], True)
    sync(lib, vault)
    files = _files(vault)
    lib.add_tags(ids[:3], ["x"])
    real = os.replace

    def disk_full_for_one(src, dst, *args, **kwargs):
        if Path(dst) == files[ids[1]]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", disk_full_for_one)
    report = sync(lib, vault)
    monkeypatch.undo()
    assert [s["id"] for s in report.skipped] == [ids[1]] and "No space left" in report.skipped[0]["reason"]
    assert not [p for p in vault.iterdir() if p.name.endswith(vault_files.TMP_SUFFIX)]
    again = sync(lib, vault)
    assert [w["id"] for w in again.written] == [ids[1]]  # only the one that failed


# --- 4: a file renamed to a name that is not UTF-8 ----------------------------------------------------

def test_4_a_file_with_a_non_utf8_name_still_syncs_and_is_reported_escaped(lib, vault, ids, tmp_path, capsys):
    lib.set_note(ids[0], "base")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    odd = os.path.join(os.fsencode(vault), b"caf\xe9.md")
    os.rename(path, odd)
    with open(odd, "rb") as fh:
        text = fh.read().decode("utf-8")
    with open(odd, "wb") as fh:
        fh.write(_with_note(text, "edited under an odd name").encode("utf-8"))
    report = sync(lib, vault)
    assert lib.paper(ids[0]).note == "edited under an odd name"
    assert [t["path"] for t in report.taken_from_vault] == ["caf\\xe9.md"]
    json.dumps(report.to_json(), ensure_ascii=False).encode("utf-8")
    lib.set_note(ids[0], "from Reader")
    assert [w["path"] for w in sync(lib, vault).written] == ["caf\\xe9.md"]
    lib.close()
    assert cli_run(["--data-dir", str(tmp_path / "lib"), "vault", "status", str(vault)]) == 0
    capsys.readouterr()


# --- 6: housekeeping never follows links out of the vault -----------------------------------------------

def test_6_a_trash_linked_outside_receives_nothing(lib, vault, ids, tmp_path):
    lib.set_starred(ids[:2], True)
    sync(lib, vault)
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault / ".trash").symlink_to(outside, target_is_directory=True)
    path = _files(vault)[ids[0]]
    lib.delete_papers([ids[0]])
    report = sync(lib, vault)
    assert list(outside.iterdir()) == [] and path.exists()
    assert [s["id"] for s in report.skipped] == [ids[0]] and ".trash" in report.skipped[0]["reason"]
    (vault / ".trash").unlink()
    assert [t["id"] for t in sync(lib, vault).trashed] == [ids[0]]


def test_6_a_dangling_lock_link_creates_nothing_outside(lib, vault, ids, tmp_path):
    lib.set_starred(ids[:1], True)
    target = tmp_path / "made-outside"
    (vault / ".reader-sync.lock").symlink_to(target)
    sync(lib, vault)
    assert not target.exists() and not os.path.lexists(target)
    assert len(_files(vault)) == 1


# --- 7: BOM, line ends, UTF-16 -----------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["utf-8-bom", "cr", "crlf-bom", "utf-16", "utf-16-le"])
def test_7_a_file_saved_in_another_form_syncs_and_keeps_its_form(lib, vault, ids, form):
    lib.set_note(ids[0], "base")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    text = _with_note(path.read_text(encoding="utf-8"), "edited elsewhere")
    encode = {
        "utf-8-bom": lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"),
        "cr": lambda t: t.replace("\n", "\r").encode("utf-8"),
        "crlf-bom": lambda t: b"\xef\xbb\xbf" + t.replace("\n", "\r\n").encode("utf-8"),
        "utf-16": lambda t: t.encode("utf-16"),  # with its BOM
        "utf-16-le": lambda t: t.encode("utf-16-le"),  # without one
    }[form]
    path.write_bytes(encode(text))
    _later(path)
    report = sync(lib, vault)
    assert report.damaged == []
    assert lib.paper(ids[0]).note == "edited elsewhere"
    lib.add_tags([ids[0]], ["kept"])
    sync(lib, vault)
    data = path.read_bytes()
    after = _with_tags(text, "[kept]")
    assert frontmatter.loads(after)["tags"] == ["kept"]
    assert data.startswith(encode(""))  # the BOM, if it had one
    decoded = {"utf-16": "utf-16", "utf-16-le": "utf-16-le"}.get(form, "utf-8-sig")
    got = data.decode(decoded)
    if form == "cr":
        assert "\n" not in got
        got = got.replace("\r", "\n")
    if form == "crlf-bom":
        assert "\n" not in got.replace("\r\n", "")
        got = got.replace("\r\n", "\n")
    assert frontmatter.loads(got)["tags"] == ["kept"] and "edited elsewhere" in got
    assert sync(lib, vault).written == []


def test_7_a_latin1_file_is_reported_as_not_utf8_never_as_a_missing_id(lib, vault, ids):
    lib.set_note(ids[0], "base")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    path.write_bytes(_with_note(path.read_text(encoding="utf-8"), "café crème").encode("latin-1", "replace"))
    report = sync(lib, vault)
    assert len(report.damaged) == 1 and "UTF-8" in report.damaged[0]["reason"]
    assert "id" not in report.damaged[0]["reason"]


# --- 11: names Obsidian can link to --------------------------------------------------------------------------

def test_11_new_names_have_nothing_that_breaks_a_wikilink_and_old_names_stay(lib, vault, ids):
    titles = ["Narrative extraction, #BlackPantherSoLit, [draft] a|b ^x $5", ".hidden start", "#^[]|$"]
    for pid, title in zip(ids, titles, strict=False):
        lib.set_title(pid, title)
    lib.set_starred(ids[:3], True)
    sync(lib, vault)
    names = sorted(p.name for p in vault.glob("*.md"))
    assert len(names) == 3
    for name in names:
        assert not set(name) & set("#^[]|$") and not name.startswith(".") and len(name) <= 80
    mine = vault / "My #1 [paper].md"
    _files(vault)[ids[0]].rename(mine)
    lib.set_title(ids[0], "A new title")
    sync(lib, vault)
    assert mine.is_file() and frontmatter.load(mine)["title"] == "A new title"


# --- kill -9 between the file writes and the commit (found by test_property.py) ------------------------

def test_a_reader_edit_after_a_crashed_sync_is_not_lost_to_what_the_crash_wrote(lib, vault, ids, monkeypatch):
    from contextlib import contextmanager

    from reader.vault import snapshot as vault_snapshot

    lib.set_note(ids[0], "base")
    sync(lib, vault)
    path = _files(vault)[ids[0]]
    lib.set_read([ids[0]], True)
    lib.add_tags([ids[0]], ["reader-tag"])

    class Killed(BaseException):
        pass

    def die(_library):
        raise Killed()
        yield  # pragma: no cover

    monkeypatch.setattr(vault_snapshot, "write_transaction", contextmanager(die))
    with pytest.raises(Killed):
        sync(lib, vault)  # the file now says read: true; the sync state does not know
    monkeypatch.undo()
    assert frontmatter.load(path)["read"] is True
    lib.set_read([ids[0]], False)  # changed back in Reader after the crash
    path.write_text(_with_note(path.read_text(encoding="utf-8"), "vault edit after the crash"), encoding="utf-8")
    sync(lib, vault)
    p = lib.paper(ids[0])
    assert p.read is False and frontmatter.load(path)["read"] is False
    assert p.note == "vault edit after the crash" == _note(path) and p.tags == ["reader-tag"]
    assert not (vault / ".reader-sync.journal").exists() and sync(lib, vault).written == []

"""Black-box through the CLI (issue 29's acceptance): three libraries that imported the same real
papers in different orders join one folder; stars, skips, tags and un-skips show in the others'
starred-by:/skipped-by:/tagged-by:/group:agree/group:split queries after syncs; a half-written record
in a member's file and a kill -9 in the middle of a sync (a real process) change nothing but delay."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from reader.cli import run

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"
PAPERS = 12


@pytest.fixture(scope="module")
def records():
    if not CORPUS.is_file():
        pytest.skip("the shared corpus is not here")
    out = []
    with CORPUS.open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("venue") == "ICML" and rec.get("year") == 2019:
                out.append(rec)
                if len(out) == PAPERS:
                    break
    return out


def cli(capsys, data_dir: Path, *args: str) -> tuple[int, str, str]:
    code = run(["--data-dir", str(data_dir), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def ids_of(capsys, data_dir: Path, query: str) -> set[str]:
    code, out, err = cli(capsys, data_dir, "search", query, "--json", "--limit", "100")
    assert code == 0, err
    return {item["title"] for item in json.loads(out)}


@pytest.fixture()
def three(tmp_path, records, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    libs = {}
    for n, name in enumerate(("ada", "bob", "cy")):
        order = list(records)
        random.Random(n).shuffle(order)  # each imported the papers in another order
        src = tmp_path / f"{name}.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in order), encoding="utf-8")
        lib = tmp_path / name
        assert cli(capsys, lib, "import", str(src))[0] == 0
        code, out, err = cli(capsys, lib, "group", "join", str(shared), "--as", name)
        assert code == 0, err
        libs[name] = lib
    return shared, libs


def paper_id(capsys, data_dir: Path, title: str) -> str:
    code, out, _ = cli(capsys, data_dir, "search", f'title:"{title}"', "--json")
    found = [item["id"] for item in json.loads(out) if item["title"] == title]
    assert len(found) == 1
    return found[0]


def sync_all(capsys, libs: dict[str, Path]) -> None:
    for lib in libs.values():
        code, _out, err = cli(capsys, lib, "group", "sync")
        assert code == 0, err


def test_decisions_meet_across_libraries_through_the_cli(three, records, capsys):
    shared, libs = three
    t = [r["title"] for r in records]
    cli(capsys, libs["ada"], "star", paper_id(capsys, libs["ada"], t[0]), paper_id(capsys, libs["ada"], t[1]))
    cli(capsys, libs["bob"], "star", paper_id(capsys, libs["bob"], t[0]))
    cli(capsys, libs["bob"], "skip", paper_id(capsys, libs["bob"], t[1]), paper_id(capsys, libs["bob"], t[2]))
    cli(capsys, libs["cy"], "tag", paper_id(capsys, libs["cy"], t[3]), "group/discuss", "mine-only")
    sync_all(capsys, libs)
    sync_all(capsys, libs)
    for name, lib in libs.items():
        assert ids_of(capsys, lib, "starred-by:ada") == {t[0], t[1]}, name
        assert ids_of(capsys, lib, "skipped-by:bob") == {t[1], t[2]}, name
        assert ids_of(capsys, lib, "tagged-by:cy") == {t[3]}, name
        assert ids_of(capsys, lib, "group:agree") == {t[0]}, name
        assert ids_of(capsys, lib, "group:split") == {t[1]}, name
        assert t[5] in ids_of(capsys, lib, "group:undecided") and t[0] not in ids_of(capsys, lib, "group:undecided")
    # Un-skip: just a newer record.
    cli(capsys, libs["bob"], "unskip", paper_id(capsys, libs["bob"], t[1]))
    sync_all(capsys, libs)
    assert ids_of(capsys, libs["cy"], "skipped-by:bob") == {t[2]}
    assert ids_of(capsys, libs["cy"], "group:split") == set()
    # Every tag is shared by default (--tags group keeps the others private: test_group.py).
    assert "mine-only" in (shared / "cy").joinpath("snapshot-1.jsonl").read_text() + \
        (shared / "cy").joinpath("log-1.jsonl").read_text()
    code, out, _ = cli(capsys, libs["ada"], "group", "show", "--json")
    shown = json.loads(out)
    assert (shown["tags"], shown["tags_shared"]) == ("all", "all tags")  # the setting, stated
    _code, text, _ = cli(capsys, libs["ada"], "group", "show")
    assert "tags: all (all tags shared)" in text
    assert [m["name"] for m in shown["members"]] == ["ada", "bob", "cy"]
    assert {m["name"]: m["starred"] for m in shown["members"]} == {"ada": 2, "bob": 1, "cy": 0}


def test_a_half_written_record_and_a_kill_mid_sync_only_delay(three, records, capsys, tmp_path):
    shared, libs = three
    t = [r["title"] for r in records]
    sync_all(capsys, libs)
    # A half-written record (a sync tool still copying bob's log): bob's star waits, nothing breaks.
    cli(capsys, libs["bob"], "star", paper_id(capsys, libs["bob"], t[4]))
    cli(capsys, libs["bob"], "group", "sync")
    log = shared / "bob" / "log-1.jsonl"
    whole = log.read_bytes()
    log.write_bytes(whole[:-9])
    code, _out, err = cli(capsys, libs["ada"], "group", "sync")
    assert code == 0 and err == ""
    assert ids_of(capsys, libs["ada"], "starred-by:bob") == set()
    log.write_bytes(whole)
    cli(capsys, libs["ada"], "group", "sync")
    assert ids_of(capsys, libs["ada"], "starred-by:bob") == {t[4]}
    # kill -9 at each step of a sync of ada's (a real process), then a sync: as if never killed.
    cli(capsys, libs["ada"], "star", paper_id(capsys, libs["ada"], t[6]))
    env = dict(os.environ)
    for step in ("before-read", "append-half", "after-export", "before-commit"):
        env["READER_GROUP_TEST_STOP"] = step
        proc = subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(libs["ada"]), "group", "sync"],
                              env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == -9, (step, proc.stderr)
    sync_all(capsys, libs)
    sync_all(capsys, libs)
    for lib in libs.values():
        assert ids_of(capsys, lib, "starred-by:ada") == {t[6]}
    states = []
    for lib in libs.values():
        code, out, _ = cli(capsys, lib, "group", "show", "--json")
        states.append({m["name"]: (m["starred"], m["skipped"], m["read"]) for m in json.loads(out)["members"]})
    assert states[0] == states[1] == states[2]

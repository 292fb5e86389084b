"""`reader skip|unskip` and `reader triage next` (reader/cli/triage.py), run in-process on the seeds."""

from __future__ import annotations

import json

import pytest

from reader.cli import run
from reader.library import Library, View


@pytest.fixture
def data_dir(tmp_path):
    Library.open(tmp_path).close()  # the seeds
    return tmp_path


def cli(capsys, data_dir, *args: str) -> tuple[int, str]:
    code = run(["--data-dir", str(data_dir), *args])
    return code, capsys.readouterr().out


def test_skip_unskip_and_is_skipped(capsys, data_dir) -> None:
    with Library.open(data_dir) as lib:
        ids = lib.paper_ids(View())
    assert cli(capsys, data_dir, "skip", ids[0][:8], ids[1])[0] == 0
    with Library.open(data_dir) as lib:
        lib.sync_index()
        assert set(lib.search("is:skipped").ids) == {ids[0], ids[1]}
        assert ids[0] not in lib.search("is:unskipped").ids and len(lib.search("is:unskipped").ids) == 54
        assert lib.paper(ids[0]).read and lib.paper(ids[0]).skipped
    assert cli(capsys, data_dir, "unskip", ids[0])[0] == 0
    with Library.open(data_dir) as lib:
        lib.sync_index()
        assert lib.search("is:skipped").ids == [ids[1]]
    assert run(["--data-dir", str(data_dir), "skip", "zzz"]) == 1  # a bad id: one line, exit 1


def test_triage_next_leaves_out_decided_papers_and_says_why(capsys, data_dir) -> None:
    with Library.open(data_dir) as lib:
        ids = lib.paper_ids(View())
        lib.set_starred(ids[:2], True)
        lib.add_tags([ids[2]], ["rl"])
        lib.set_skipped(ids[3:6], True)
        lib.set_read([ids[6]], True)
    code, out = cli(capsys, data_dir, "triage", "next", "--limit", "60", "--json")
    assert code == 0
    items = json.loads(out)
    shown = [it["id"] for it in items]
    assert len(shown) == 56 - 7 and not set(shown) & set(ids[:7])
    assert {it["interest"] for it in items[:10]} == {"starred", "rl"}  # both interests in the next 10
    assert all(it["why"] for it in items[:10])
    with Library.open(data_dir) as lib:
        titles = [lib.paper(i).title[:20] for i in ids[:3]]
    assert any(t in items[0]["why"] for t in titles)
    code, out = cli(capsys, data_dir, "triage", "next", "--order", "listed", "--limit", "3")
    assert code == 0 and len(out.strip().splitlines()) == 3
    assert (data_dir / "triage_features.npz").exists()  # the word counts, kept for the next run
    code, out = cli(capsys, data_dir, "triage", "next", "--limit", "10", "--ask-every", "5", "--json")
    items = json.loads(out)
    assert [it["asked"] for it in items].count(True) == 2 and items[4]["asked"] and items[9]["asked"]
    assert items[4]["why"].startswith("asked: the model is unsure")

"""`reader map`: the JSON is the stored map, a tag's map keeps the library's places, bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reader.cli import run
from reader.library import Library


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    with Library.open(folder) as lib:  # the 56 seed papers
        ids = lib.paper_ids()
        lib.add_tags(ids[:5], ["picked"])
    return folder


def test_json_of_the_library_and_of_a_tag(root: Path, tmp_path: Path, capsys):
    whole, tagged = tmp_path / "all.json", tmp_path / "tag.json"
    assert run(["--data-dir", str(root), "map", "--json", str(whole)]) == 0
    assert "56 papers on the map" in capsys.readouterr().out
    assert run(["--data-dir", str(root), "map", "--tag", "picked", "--json", str(tagged)]) == 0
    full, part = json.loads(whole.read_text()), json.loads(tagged.read_text())
    assert len(full["papers"]) == 56 and len(part["papers"]) == 5
    places = {p["id"]: (p["x"], p["y"], p["cluster"]) for p in full["papers"]}
    for p in part["papers"]:
        assert places[p["id"]] == (p["x"], p["y"], p["cluster"])
    assert all(isinstance(c["label"], str) and c["size"] > 0 for c in full["clusters"])
    assert sum(c["size"] for c in part["clusters"]) == 5


def test_json_to_stdout(root: Path, capsys):
    assert run(["--data-dir", str(root), "map", "--starred", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == {"papers": [], "clusters": []}


def test_a_bad_size_is_one_line(root: Path, capsys):
    with pytest.raises(SystemExit):
        run(["--data-dir", str(root), "map", "--png", "x.png", "--size", "huge"])
    assert "not a size like 1280x800" in capsys.readouterr().err


def test_png_without_the_gui_renderer_says_so(root: Path, tmp_path: Path, capsys):
    from reader.cli import map as cli_map

    cli_map.set_png_renderer(None)
    assert run(["--data-dir", str(root), "map", "--png", str(tmp_path / "m.png")]) != 0
    assert "needs the GUI toolkit" in capsys.readouterr().err
    assert not (tmp_path / "m.png").exists()


def test_refit_json_lays_out_only_the_tag(root: Path, tmp_path: Path):
    whole, kept, refit = tmp_path / "all.json", tmp_path / "kept.json", tmp_path / "refit.json"
    assert run(["--data-dir", str(root), "map", "--json", str(whole)]) == 0
    assert run(["--data-dir", str(root), "map", "--query", "learning", "--json", str(kept)]) == 0
    assert run(["--data-dir", str(root), "map", "--query", "learning", "--refit", "--json", str(refit)]) == 0
    library_places = {p["id"]: (p["x"], p["y"]) for p in json.loads(whole.read_text())["papers"]}
    same, fitted = json.loads(kept.read_text()), json.loads(refit.read_text())
    assert set(fitted) == {"papers", "clusters"}
    assert [p["id"] for p in fitted["papers"]] == [p["id"] for p in same["papers"]] and len(same["papers"]) > 4
    assert all(set(p) == {"id", "x", "y", "cluster"} for p in fitted["papers"])
    assert all(set(c) == {"id", "label", "size", "x", "y"} for c in fitted["clusters"])
    assert sum(c["size"] for c in fitted["clusters"]) == len(fitted["papers"])
    assert any((p["x"], p["y"]) != library_places[p["id"]] for p in fitted["papers"])
    assert run(["--data-dir", str(root), "map", "--json", str(whole)]) == 0  # the library's map is as it was
    assert {p["id"]: (p["x"], p["y"]) for p in json.loads(whole.read_text())["papers"]} == library_places

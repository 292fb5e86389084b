"""`reader venue list [--json]` and `reader venue add NAME YEAR [--refresh]`, black-box as a user
runs them (a `python -m reader` process, the base URL set by READER_SOURCE_PMLR_URL) against the
local replay server serving the REAL AISTATS 2018 PMLR volume. Never the network."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .replay import Fault, ReplayServer, closed_port
from .venue_fixtures import CORPORA

V84 = CORPORA / "bibtex" / "pmlr_v84_aistats2018.bib"
QUICK = {"READER_SOURCE_RETRIES": "2", "READER_SOURCE_BACKOFF": "0.05", "READER_SOURCE_DEADLINE": "60",
         "READER_SOURCE_PACE_SCALE": "0"}


def reader(data_dir, *args, **env):
    full = dict(os.environ, READER_DATA_DIR=str(data_dir), **QUICK, **env)
    return subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True, text=True, env=full,
                          cwd=data_dir.parent, timeout=300)


def test_venue_list_json_names_years_and_sources(tmp_path):
    proc = reader(tmp_path / "lib", "venue", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    items = json.loads(proc.stdout)
    assert {"name": "icml", "year": 2025, "sources": ["pmlr", "openreview"]}.items() <= next(
        i for i in items if (i["name"], i["year"]) == ("icml", 2025)).items()
    for name, year in (("aistats", 2018), ("acl", 2024), ("cvpr", 2024), ("iclr", 2025)):
        assert any((i["name"], i["year"]) == (name, year) and i["sources"] for i in items)
    text = reader(tmp_path / "lib", "venue", "list")
    assert text.returncode == 0 and "icml" in text.stdout and "pmlr" in text.stdout


def test_venue_add_aistats_2018_then_again_then_offline(tmp_path):
    if not V84.exists():
        pytest.skip("bibtex corpus not available")
    lib = tmp_path / "lib"
    with ReplayServer() as server:
        server.add("/v84/assets/bib/bibliography.bib", V84.read_bytes())
        first = reader(lib, "venue", "add", "aistats", "2018", READER_SOURCE_PMLR_URL=server.url)
        assert first.returncode == 0, first.stderr
        assert first.stdout.startswith("AISTATS 2018: 216 papers from pmlr — 216 new, 0 updated, 0 unchanged")
        listed = json.loads(reader(lib, "list", "--json").stdout)
        assert len(listed) == 216  # no sample papers came along
        star = reader(lib, "star", listed[0]["id"])
        assert star.returncode == 0, star.stderr
        again = reader(lib, "venue", "add", "aistats", "2018", READER_SOURCE_PMLR_URL=server.url)
        assert "216 papers from pmlr — 0 new" in again.stdout
        assert server.requests and all(r.user_agent.startswith("Reader/") for r in server.requests)
    offline = reader(lib, "venue", "add", "aistats", "2018", READER_SOURCE_PMLR_URL=f"http://127.0.0.1:{closed_port()}")
    assert offline.returncode == 0 and offline.stderr == "" and "0 new" in offline.stdout
    assert json.loads(reader(lib, "show", listed[0]["id"], "--json").stdout)["starred"]


def test_venue_add_not_served_is_one_line_exit_1(tmp_path):
    with ReplayServer() as server:
        server.fault("/notes", Fault.status_code(403))
        proc = reader(tmp_path / "lib", "venue", "add", "icml", "2027", READER_SOURCE_OPENREVIEW_URL=server.url)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("reader: icml 2027: not available yet; tried openreview http://127.0.0.1:")
    assert "ICML.cc%2F2027%2FConference" in proc.stderr and "(403 Forbidden)" in proc.stderr


def test_venue_add_503_is_one_line_and_writes_nothing(tmp_path):
    lib = tmp_path / "lib"
    with ReplayServer() as server:
        server.fault("/v84/assets/bib/bibliography.bib", *[Fault.status_code(503)] * 4)
        proc = reader(lib, "venue", "add", "aistats", "2018", READER_SOURCE_PMLR_URL=server.url)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "503" in proc.stderr
    from reader.library import Library

    opened = Library.open(lib, seed_if_empty=False)  # `reader list` would seed an empty library
    try:
        assert opened.counts().total == 0
    finally:
        opened.close()


def test_unknown_venue_and_bad_year_are_usage_errors(tmp_path):
    proc = reader(tmp_path / "lib", "venue", "add", "nope", "2024")
    assert proc.returncode == 2 and "unknown venue 'nope'" in proc.stderr


def test_reader_sources_lists_the_venue_sources(tmp_path):
    proc = reader(tmp_path / "lib", "sources", "--json", READER_SOURCE_CVF_URL="http://127.0.0.1:9")
    by_name = {i["name"]: i for i in json.loads(proc.stdout)}
    assert by_name["pmlr"]["url"] == "https://proceedings.mlr.press"
    assert by_name["acl"]["url"] == "https://raw.githubusercontent.com/acl-org/acl-anthology/master"
    assert by_name["cvf"]["url"] == "http://127.0.0.1:9" and "openreview" in by_name
    assert not any(i["needs_key"] for i in by_name.values())


def test_progress_lines_on_a_terminal(tmp_path, monkeypatch, capsys):
    """On a TTY, `venue add` writes progress lines to stderr (redrawn with \\r), then clears them."""
    if not V84.exists():
        pytest.skip("bibtex corpus not available")
    from reader.cli import run

    for name, value in QUICK.items():
        monkeypatch.setenv(name, value)
    with ReplayServer() as server:
        server.add("/v84/assets/bib/bibliography.bib", V84.read_bytes())
        monkeypatch.setenv("READER_SOURCE_PMLR_URL", server.url)
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
        code = run(["--data-dir", str(tmp_path / "lib"), "venue", "add", "aistats", "2018"])
    out, err = capsys.readouterr()
    assert code == 0 and out.startswith("AISTATS 2018: 216 papers from pmlr")
    assert "\rPMLR volume 84" in err and "1/1" in err and err.endswith("\r")

"""`reader export bibtex|csljson|ris` and `reader citekey` in subprocesses (reader/cli/cite.py)."""

from __future__ import annotations

import json

import bibtexparser
import rispy

from tests.test_cli import run


def test_export_each_format_with_a_selection(tmp_path) -> None:
    lib = tmp_path / "lib"
    ids = [p["id"] for p in json.loads(run(lib, "list", "--json").stdout)]
    run(lib, "tag", ids[0], "cite-me")
    run(lib, "tag", ids[1], "cite-me")
    run(lib, "note", ids[0], "--text", "read 100% of it & more")
    out = run(lib, "export", "bibtex", str(tmp_path / "t.bib"), "--tag", "cite-me", "--with-notes").stdout
    assert "(2 papers)" in out
    parsed = bibtexparser.parse_file(str(tmp_path / "t.bib"))
    assert len(parsed.entries) == 2 and not parsed.failed_blocks
    notes = [e.fields_dict["annote"].value for e in parsed.entries if "annote" in e.fields_dict]
    assert notes == ["read 100\\% of it \\& more"]
    assert all(e.fields_dict["keywords"].value == "cite-me" for e in parsed.entries)
    run(lib, "export", "ris", str(tmp_path / "all.ris"))
    with (tmp_path / "all.ris").open(encoding="utf-8") as f:
        assert len(rispy.load(f)) == 56
    run(lib, "export", "csljson", str(tmp_path / "s.json"), "--starred")
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8")) == []


def test_citekey_shows_sets_and_refuses(tmp_path) -> None:
    lib = tmp_path / "lib"
    first, second = [p["id"] for p in json.loads(run(lib, "list", "--json").stdout)][:2]
    original = run(lib, "citekey", first).stdout.strip()
    assert original and run(lib, "citekey", first, "mine2025").stdout.strip() == "mine2025"
    assert "citation key: mine2025" in run(lib, "show", first).stdout
    refused = run(lib, "citekey", second, "Mine2025", check=False)
    assert refused.returncode == 1 and "already used" in refused.stderr
    bad = run(lib, "citekey", second, "no spaces", check=False)
    assert bad.returncode == 1 and "contains ' '" in bad.stderr and len(bad.stderr.splitlines()) == 1
    assert run(lib, "citekey", first, "").stdout.strip() == original

"""The `reader` CLI end to end in subprocesses: exit codes, JSON output, show, export."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys

import pytest


def run(data_dir, *args, check=True):
    env = dict(os.environ, READER_DATA_DIR=str(data_dir))
    proc = subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True, text=True, env=env,
                          timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"{args}: {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    run(d, "stats")
    return d


def _ids(data_dir):
    return [p["id"] for p in json.loads(in_process(data_dir, "list", "--json"))]


def test_list_json_shape(tmp_path):
    # A library of its own: other tests import into the module's shared one, in any order.
    items = json.loads(run(tmp_path / "lib", "list", "--json").stdout)
    assert len(items) == 56  # the bundled sample: 57 abstracts, one in two files
    assert {"id", "title", "venue", "year", "starred", "read", "tags", "method"} <= set(items[0])


def in_process(data_dir, *args) -> str:
    """What `reader ARGS` prints, run by `cli.run` in this process (exit status 0 checked)."""
    from reader import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.run(["--data-dir", str(data_dir), *args])
    assert code == 0, (args, code)
    return out.getvalue()


def test_show_every_seed_paper_is_clean(data_dir):
    # In one process (56 subprocesses took 90 s); `reader show` itself runs as a subprocess above.
    for pid in _ids(data_dir):
        text = in_process(data_dir, "show", pid[:8])
        assert pid[:8] in text or text.strip(), pid
        for raw in ("$", "\\mathbf", "\\textit", "\\%", "**"):
            assert raw not in text, (pid, raw, text)


def test_search_star_tag_note_flow(data_dir, tmp_path):
    # In one process, as `cli.run` (16 subprocesses took most of a minute); the commands run as
    # subprocesses in the other tests of this file.
    hits = json.loads(in_process(data_dir, "search", "sparse attention", "--json"))
    pid = hits[0]["id"]
    assert "score" in hits[0] and hits[0]["method"] == "SpargeAttn"
    in_process(data_dir, "star", pid[:6])
    in_process(data_dir, "tag", pid[:6], "attention", "to-read")
    in_process(data_dir, "note", pid[:6], "--text", "Read the kernel section.")
    in_process(data_dir, "read", pid[:6])
    assert [h["id"] for h in json.loads(in_process(data_dir, "search", "is:starred", "--json"))] == [pid]
    assert [h["id"] for h in json.loads(in_process(data_dir, "search", "tag:to-read", "--json"))] == [pid]
    assert [h["id"] for h in json.loads(in_process(data_dir, "search", "note:kernel", "--json"))] == [pid]
    starred = json.loads(in_process(data_dir, "list", "--starred", "--json"))
    assert [s["id"] for s in starred] == [pid] and starred[0]["tags"] == ["attention", "to-read"]
    out = tmp_path / "list.md"
    in_process(data_dir, "export", "markdown", str(out), "--starred", "--with-abstracts")
    text = out.read_text(encoding="utf-8")
    assert "★" in text and "Read the kernel section." in text and "to-read" in text
    folder = tmp_path / "per"
    in_process(data_dir, "export", "markdown", str(folder), "--tag", "attention", "--per-paper")
    assert len(list(folder.glob("*.md"))) == 1
    related = json.loads(in_process(data_dir, "related", pid[:8], "--json"))
    assert related and pid not in [r["id"] for r in related]
    in_process(data_dir, "unstar", pid)
    assert json.loads(in_process(data_dir, "search", "is:starred", "--json")) == []


def test_user_errors_exit_1_with_one_line(data_dir, tmp_path):
    for args in (("show", "ffffffffffff"), ("import", str(tmp_path / "nope.txt")), ("star", "xyz")):
        proc = run(data_dir, *args, check=False)
        assert proc.returncode == 1, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_usage_errors_exit_2(data_dir):
    proc = run(data_dir, "frobnicate", check=False)
    assert proc.returncode == 2
    proc = run(data_dir, "note", "abc", check=False)
    assert proc.returncode == 2


def test_malformed_query_does_not_crash(data_dir):
    proc = run(data_dir, "search", "title:(", check=False)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr


def test_import_summary_and_reimport(data_dir, tmp_path):
    path = tmp_path / "papers.csv"
    path.write_text(
        'Title,Summary,Author,Year\n"A, quoted title","An abstract that spans\nseveral lines, with commas, '
        'and is long enough.",Grace Hopper,2019\n', encoding="utf-8")
    out = run(data_dir, "import", str(path)).stdout
    assert "papers.csv: 1 entry: 1 new, 0 duplicates, 0 rejected" in out
    out = run(data_dir, "import", str(path)).stdout
    assert "0 new, 1 duplicate," in out


def test_data_dir_option_overrides_env(tmp_path):
    other = tmp_path / "other"
    env = dict(os.environ, READER_DATA_DIR=str(tmp_path / "env"))
    subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(other), "stats"], check=True, env=env,
                   capture_output=True)
    assert (other / "library.sqlite3").exists() and not (tmp_path / "env").exists()


def test_open_with_paths_goes_to_the_gui(tmp_path):
    from reader.cli.main import _split_open_paths, build_parser

    f = tmp_path / "a.txt"
    f.write_text("x", encoding="utf-8")
    parser = build_parser()
    assert _split_open_paths(parser, ["--data-dir", "d", str(f)]) == (["--data-dir", "d"], [str(f)])
    assert _split_open_paths(parser, ["import", str(f)]) == (["import", str(f)], [])
    # a typo'd command is not a file: argparse reports it as a usage error
    assert _split_open_paths(parser, ["lsit"]) == (["lsit"], [])


def test_environment_problems_are_one_line(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    proc = run(afile, "list", check=False)
    assert proc.returncode == 1 and "is a file" in proc.stderr and "Traceback" not in proc.stderr


def test_export_into_a_missing_folder_is_a_user_error(data_dir, tmp_path):
    proc = run(data_dir, "export", "json", str(tmp_path / "nope" / "x.json"), check=False)
    assert proc.returncode == 1 and "no such folder" in proc.stderr


def test_limit_must_be_positive(data_dir):
    assert run(data_dir, "search", "x", "--limit", "0", check=False).returncode == 2


def test_import_into_a_new_library_does_not_add_the_samples(data_dir, tmp_path):
    backup = tmp_path / "b.json"
    ids = _ids(data_dir)
    fresh = tmp_path / "fresh"
    run(data_dir, "export", "json", str(backup))
    run(fresh, "import", str(backup))
    assert sorted(_ids(fresh)) == sorted(ids)


def test_unrecognised_text_file_is_refused(data_dir, tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# My notes\n\nSome paragraph that is long enough to look like an abstract.\n", encoding="utf-8")
    proc = run(data_dir, "import", str(path), check=False)
    assert proc.returncode == 1 and "unrecognised format" in proc.stderr


def test_a_negated_query_is_a_query_not_an_unknown_option(tmp_path):
    """`-is:starred` (and any word after one dash) is the query's negation, as a positional
    query or an option's value: argparse alone refused both."""
    d = tmp_path / "lib"
    ids = [p["id"] for p in json.loads(in_process(d, "list", "--json"))]
    in_process(d, "star", ids[0])
    every = {h["id"] for h in json.loads(in_process(d, "search", "--json", "--limit", "100", "-is:starred"))}
    assert ids[0] not in every and len(every) == len(ids) - 1
    assert {h["id"] for h in json.loads(in_process(d, "search", "-is:starred", "--limit", "100", "--json"))} == every
    some = json.loads(in_process(d, "search", "--json", "-is:starred -learning"))
    assert some and len(some) < len(every)
    assert json.loads(in_process(d, "search", "--json", "--limit", "100", "--", "-is:starred")) != []
    proc = run(d, "search", "-x", check=False)  # two characters: still an option, refused in one line
    assert proc.returncode == 2 and proc.stderr.count("error:") == 1


def test_search_json_has_snippets(data_dir):
    hits = json.loads(run(data_dir, "search", "sparse attention", "--json").stdout)
    assert "sparse" in hits[0]["snippet"].lower() and "<b>" not in hits[0]["snippet"]


def test_highlight_colour_by_name_or_old_hex(data_dir):
    pid = _ids(data_dir)[0]
    in_process(data_dir, "highlight", pid, "0", "4", "--color", "green")
    in_process(data_dir, "highlight", pid, "5", "9", "--color", "#ffe066")  # the old default still works
    shown = json.loads(in_process(data_dir, "show", pid, "--json"))
    assert [h["color"] for h in shown["highlights"]][:2] == ["green", "yellow"]
    bad = run(data_dir, "highlight", pid, "0", "4", "--color", "red", check=False)
    assert bad.returncode == 2 and "unknown colour 'red'" in bad.stderr


def test_every_subcommand_has_a_handler():
    import argparse

    from reader.cli.main import COMMANDS, build_parser

    parser = build_parser()
    names = {name for action in parser._actions if isinstance(action, argparse._SubParsersAction)
             for name in action.choices}
    assert names - {"doctor"} == set(COMMANDS)  # doctor runs before a library is opened

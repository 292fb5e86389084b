"""CLI start-up: a command imports only what it needs (its heavy packages and subcommand modules
load inside the command that uses them), with the same output and index upkeep as before.

No timing here: each command runs in a fresh interpreter and the test asserts which modules it
left loaded (benchmarks/bench_cli_start.py prints the times)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reader.library import Library, View

# Runs `reader ARGS...` through the real entry point, then records what it imported.
PROBE = """
import json, sys
from reader.__main__ import main
report, argv = sys.argv[1], sys.argv[2:]
try:
    code = main(argv)
except SystemExit as exc:
    code = exc.code
with open(report, "w", encoding="utf-8") as f:
    json.dump({"code": code, "modules": sorted(sys.modules)}, f)
"""

# Never needed to star, unstar, list or count papers: numpy (sqlite-utils imports it only for
# column types from numpy values), the learner, the map, the importers and their parsers, the
# citation exporters, the vault, the abstract renderer (Markdown) and the extraction rules.
NOT_FOR_A_WRITE = ("numpy", "pandas", "reader.triage", "reader.map", "reader.importers", "reader.exporters",
                   "reader.vault", "bibtexparser", "rispy", "markdown", "reader.text.render", "reader.text.extract")
RENDERING = ("markdown", "reader.text.render")  # `reader show` renders the abstract
# The search index, opened only by what uses it (a search, a sync, an index write).
NOT_FOR_A_READ = ("whoosh", "reader.search.index", "reader.search.segment_ids")
# A help only formats text: no store, no index, no numpy (the import formats' line does read
# the importers, which is what it prints).
NOT_FOR_HELP = ("numpy", "sqlite_utils", "whoosh", "reader.library", "reader.store", "reader.search",
                "reader.triage", "reader.map", "reader.vault", "multiprocessing")


def probe(tmp_path: Path, *args: str) -> tuple[int, set[str], str]:
    report = tmp_path / "probe.json"
    env = {k: v for k, v in os.environ.items() if k != "READER_DATA_DIR"}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(report), *args], capture_output=True, text=True,
                          env=env, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert report.exists(), proc.stderr
    found = json.loads(report.read_text(encoding="utf-8"))
    return found["code"], set(found["modules"]), proc.stdout


def loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("start") / "lib"
    with Library.open(root) as lib:  # the bundled sample
        return root, lib.paper_ids(View())[0]


def test_help_loads_no_store_index_or_numpy(tmp_path) -> None:
    from reader.importers import import_help

    code, modules, out = probe(tmp_path, "--help")
    assert code == 0 and loaded(modules, NOT_FOR_HELP) == []
    assert import_help() in " ".join(out.split())  # the import formats' line is still there, filled in


def test_subcommand_help_texts_filled_only_when_printed(tmp_path) -> None:
    from reader.importers import import_help
    from reader.triage.interests import ASK_EVERY

    code, modules, out = probe(tmp_path, "triage", "next", "--help")
    assert code == 0 and f"default {ASK_EVERY})" in " ".join(out.split())
    code, modules, out = probe(tmp_path, "import", "--help")
    assert code == 0 and import_help() in " ".join(out.split()) and loaded(modules, ("numpy", "whoosh")) == []


def test_star_imports_only_what_a_write_needs_and_keeps_the_index_in_step(tmp_path, library) -> None:
    root, pid = library
    code, modules, _ = probe(tmp_path, "--data-dir", str(root), "star", pid)
    assert code == 0 and loaded(modules, NOT_FOR_A_WRITE) == []
    with Library.open(root) as lib:
        assert lib.paper(pid).starred
        assert not lib.index_needs_sync()  # the CLI brought the derived index up to date itself
        assert lib.search("is:starred").ids == [pid]
    code, modules, _ = probe(tmp_path, "--data-dir", str(root), "unstar", pid)
    assert code == 0 and loaded(modules, NOT_FOR_A_WRITE) == []
    with Library.open(root) as lib:
        assert not lib.index_needs_sync() and lib.search("is:starred").ids == []


@pytest.mark.parametrize("command", [["list"], ["stats"], ["show", "{pid}"], ["search", "diffusion", "--limit", "5"]])
def test_reads_import_only_what_they_need(tmp_path, library, command) -> None:
    root, pid = library
    code, modules, out = probe(tmp_path, "--data-dir", str(root), *[a.format(pid=pid) for a in command])
    needs = RENDERING if command[0] == "show" else ()
    assert code == 0 and out.strip()
    assert [m for m in loaded(modules, NOT_FOR_A_WRITE) if not loaded({m}, needs)] == []
    # Only a search opens the index: the others read the store alone, without Whoosh.
    assert bool(loaded(modules, NOT_FOR_A_READ)) == (command[0] == "search")


@pytest.mark.parametrize("command", [["list", "--starred"], ["list", "--tag", "x", "--json"], ["stats"], ["show", "{pid}"]])
def test_store_reads_leave_a_damaged_index_alone_and_a_search_repairs_it(tmp_path, library, command) -> None:
    root, pid = library
    with Library.open(root) as lib:
        lib.set_starred([pid], True)
    damaged = {}
    for f in (root / "index").iterdir():
        if f.suffix == ".seg":
            f.write_bytes(b"garbage")
        damaged[f.name] = f.read_bytes()
    code, modules, out = probe(tmp_path, "--data-dir", str(root), *[a.format(pid=pid) for a in command])
    assert code == 0 and loaded(modules, NOT_FOR_A_READ) == []
    assert {f.name: f.read_bytes() for f in (root / "index").iterdir()} == damaged  # never opened
    code, _, out = probe(tmp_path, "--data-dir", str(root), "search", "is:starred", "--json")
    assert code == 0 and [p["id"] for p in json.loads(out)] == [pid]  # reset at open, rebuilt by the sync
    with Library.open(root) as lib:
        assert not lib.index_needs_sync() and lib.search("is:starred").ids == [pid]
        lib.set_starred([pid], False)


def test_numpy_still_loads_for_the_commands_that_need_it(tmp_path, library) -> None:
    # sqlite-utils was imported without numpy by the first command; triage's learner then imports
    # numpy itself in the same process.
    root, _ = library
    code = ("import sys\nfrom reader.cli import run\n"
            f"assert run(['--data-dir', {str(root)!r}, 'stats']) == 0\n"
            "assert 'numpy' not in sys.modules and 'sqlite_utils' in sys.modules\n"
            f"assert run(['--data-dir', {str(root)!r}, 'triage', 'next', '--limit', '2', '--json']) == 0\n"
            "import numpy, sqlite_utils.db\n"
            "assert sys.modules['numpy'] is numpy and sqlite_utils.db.np is None\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stderr
    stats, _, queue = proc.stdout.partition("\n")
    assert stats.startswith("56 papers") and len(json.loads(queue)) == 2

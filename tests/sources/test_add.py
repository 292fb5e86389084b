"""Adding fetched papers to a library: Library.add_fetched (one transaction, counts, updates that
keep the user's work) and `reader add` / `reader sources` end to end against the replay server
(real arXiv recordings; Crossref/OpenReview fixtures built from their schemas, fixtures.py)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from reader.library import Library
from reader.models import Record

from .fixtures import CROSSREF_BODY, CROSSREF_DOI, OPENREVIEW_BODY, OPENREVIEW_ID
from .replay import ARXIV_API, Fault, ReplayServer, closed_port, load_arxiv_recordings

needs_corpus = pytest.mark.skipif(not ARXIV_API.is_dir(), reason="corpora not present")
AEW10 = "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications"


def cli(data_dir, *args) -> tuple[int, str, str]:
    """`reader ARGS` in this process: (exit status, stdout, stderr)."""
    from reader import cli as reader_cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = reader_cli.run(["--data-dir", str(data_dir), *args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def fast(monkeypatch):
    """Short budgets (the defaults are checked in their own tests)."""
    for name, value in (("READER_SOURCE_RETRIES", "2"), ("READER_SOURCE_BACKOFF", "0.05"),
                        ("READER_SOURCE_PACE_SCALE", "0"), ("READER_SOURCE_DEADLINE", "60")):
        monkeypatch.setenv(name, value)


@pytest.fixture()
def server(monkeypatch):
    with ReplayServer() as srv:
        if ARXIV_API.is_dir():
            load_arxiv_recordings(srv)
        srv.add(f"/works/{CROSSREF_DOI}", CROSSREF_BODY)
        srv.add(f"/notes?id={OPENREVIEW_ID}", OPENREVIEW_BODY)
        for name in ("ARXIV", "CROSSREF", "OPENREVIEW"):
            monkeypatch.setenv(f"READER_SOURCE_{name}_URL", srv.url)
        yield srv


def _rec(**kw) -> Record:
    base = dict(abstract="We study a thing and find that it works well in twelve settings of interest.",
                title="A Study of a Thing", authors=["Ada Lovelace"], year=2024, venue="ICLR 2024",
                links=["https://openreview.net/forum?id=AbCdE12345"], openreview="AbCdE12345", status="poster")
    base.update(kw)
    return Record(**base)


def test_add_fetched_counts_and_keeps_the_users_work(bare_lib):
    first = bare_lib.add_fetched([_rec()], collection="ICLR 2024", origin="openreview")
    assert (first.new, first.updated, first.unchanged) == (1, 0, 0)
    pid = first.ids[0]
    paper = bare_lib.paper(pid)
    assert paper.collection == "ICLR 2024" and paper.sources == ["openreview"]
    bare_lib.set_starred([pid], True)
    bare_lib.add_tags([pid], ["moe"])
    bare_lib.set_note(pid, "read this")
    bare_lib.add_highlight(pid, 26, 37)  # "find that i"... by offsets
    hl = bare_lib.paper(pid).highlights[0]
    key = bare_lib.paper(pid).citation_key

    again = bare_lib.add_fetched([_rec()], collection="ICLR 2024", origin="openreview")
    assert (again.new, again.updated, again.unchanged) == (0, 0, 1) and again.ids == [pid]

    changed = _rec(title="A Study of a Thing, Revised", status="spotlight", authors=["Ada Lovelace", "C. Babbage"],
                   abstract="Abstract first. We study a thing and find that it works well in twelve settings of interest.")
    third = bare_lib.add_fetched([changed], collection="ICLR 2024", origin="openreview")
    assert (third.new, third.updated, third.unchanged) == (0, 1, 0) and third.ids == [pid]
    p = bare_lib.paper(pid)
    assert p.title == "A Study of a Thing, Revised" and p.authors == ["Ada Lovelace", "C. Babbage"]
    assert p.abstract.startswith("Abstract first.")
    assert p.starred and p.tags == ["moe"] and p.note == "read this" and p.citation_key == key
    (moved,) = p.highlights
    assert moved.id == hl.id and moved.quote == hl.quote and moved.start == hl.start + len("Abstract first. ")
    assert bare_lib.counts().total == 1


def test_an_edited_title_is_kept_and_a_preprint_never_overrides_a_published_paper(bare_lib):
    pid = bare_lib.add_fetched([_rec()], collection="c", origin="openreview").ids[0]
    bare_lib.set_title(pid, "My own title")
    arxiv = Record(abstract="The arXiv version says something else entirely about the thing we study.",
                   title="A Study of a Thing", authors=["Ada Lovelace"], year=2023, venue="arXiv",
                   links=["https://arxiv.org/abs/2301.00001v2"], arxiv="2301.00001v2",
                   openreview=None, status=None)
    res = bare_lib.add_fetched([replace(arxiv, links=[*arxiv.links, "https://openreview.net/forum?id=AbCdE12345"])],
                               collection="arXiv", origin="arxiv")
    assert res.ids == [pid] and res.outcomes == ["updated"]  # its links were added
    p = bare_lib.paper(pid)
    assert p.title == "My own title" and p.venue == "ICLR 2024" and p.year == 2024
    assert p.abstract.startswith("We study a thing")
    assert "https://arxiv.org/abs/2301.00001v2" in p.links
    assert sorted(p.collections) == ["arXiv", "c"]


def test_a_bad_record_is_rejected_alone(bare_lib):
    res = bare_lib.add_fetched([_rec(), _rec(title="x" * 3000, openreview="Other12345", links=[])],
                               collection="c", origin="o")
    assert res.new == 1 and res.rejected[0][0] == 1 and "too long" in res.rejected[0][1]


def test_the_openreview_id_is_an_identity_key(bare_lib):
    pid = bare_lib.add_fetched([_rec()], collection="c", origin="o").ids[0]
    other = _rec(abstract="", title="A Study of a Thing (camera-ready)", links=[], openreview="AbCdE12345")
    assert bare_lib.add_fetched([other], collection="c", origin="o").ids == [pid]


@needs_corpus
def test_reader_add_prints_one_line_per_id_and_names_the_unknown(server, fast, tmp_path):
    lib_dir = tmp_path / "lib"
    code, out, err = cli(lib_dir, "add", "0808.05394", CROSSREF_DOI, "arXiv:1707.08567",
                         f"https://openreview.net/forum?id={OPENREVIEW_ID}", "nonsense!")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"added {CROSSREF_DOI} ") and lines[0].endswith(": Attention is all you need")
    assert lines[1].startswith("added arXiv:1707.08567 ") and lines[1].endswith(f": {AEW10}")
    assert lines[2].endswith(": Sparse Mixture of Experts at Scale: A Study of Routing")
    assert err.splitlines() == ["reader: 0808.05394: arXiv has no paper with this id",
                                "reader: nonsense!: not an arXiv id, DOI or OpenReview id"]
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        assert lib.counts().total == 3  # no sample papers came along
        papers = lib.papers(lib.paper_ids())
        by_title = {p.title: p for p in papers}
        aew = by_title[AEW10]
        assert aew.abstract.startswith('The 10th Asia-Europe workshop in "Concepts in Information Theory')
        assert aew.collections == ["Added by identifier"]
        lib.set_starred([aew.id], True)
    requests = len(server.requests)
    code, out, err = cli(lib_dir, "add", "arXiv:1707.08567", CROSSREF_DOI)
    assert code == 0 and err == ""
    assert [ln.split()[0:2] for ln in out.splitlines()] == [["already", "there"], ["already", "there"]]
    assert len(server.requests) == requests  # from the cache
    server.stop()
    code, out, _ = cli(lib_dir, "add", "1707.08567", "--refresh")
    assert code == 1  # asked again: the server is gone
    code, out, err = cli(lib_dir, "add", "1707.08567")  # the network gone: from the cache
    assert code == 0 and out.startswith("already there 1707.08567") and err == ""
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        assert lib.counts().total == 3 and lib.counts().starred == 1


@needs_corpus
def test_reader_add_with_the_service_down_writes_nothing(server, fast, tmp_path):
    server.fault("/api/query", *[Fault.status_code(503)] * 5)
    code, out, err = cli(tmp_path / "lib", "add", "1707.08567", CROSSREF_DOI)
    assert code == 1 and out == ""
    (line,) = err.splitlines()
    assert line.startswith(f"reader: arxiv: 127.0.0.1:{server.port} did not answer (503 Service Unavailable) "
                           "after 2 tries: http://127.0.0.1:")
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        assert lib.counts().total == 0


@needs_corpus
def test_refused_and_503_with_the_default_budgets_end_within_two_minutes(tmp_path, monkeypatch):
    """The polite defaults (4 tries, 2-4-8 s backoff, arXiv's 3 s pace): one line, well under 2 min."""
    with ReplayServer() as srv:
        srv.fault("*", *[Fault.status_code(503)] * 10)
        monkeypatch.setenv("READER_SOURCE_ARXIV_URL", srv.url)
        start = time.monotonic()
        code, out, err = cli(tmp_path / "lib", "add", "1707.08567")
        took = time.monotonic() - start
        assert len(srv.requests) == 4
        gaps = [b.at - a.at for a, b in zip(srv.requests, srv.requests[1:], strict=False)]
    assert code == 1 and took < 60 and min(gaps) >= 2.9
    assert err.count("\n") == 1 and "after 4 tries" in err
    port = closed_port()
    monkeypatch.setenv("READER_SOURCE_CROSSREF_URL", f"http://127.0.0.1:{port}")
    start = time.monotonic()
    code, out, err = cli(tmp_path / "lib", "add", CROSSREF_DOI)
    assert code == 1 and time.monotonic() - start < 60
    assert err == (f"reader: crossref: 127.0.0.1:{port} did not answer (connection refused) after 4 tries: "
                   f"http://127.0.0.1:{port}/works/{CROSSREF_DOI}\n")


def test_reader_sources_json(monkeypatch, tmp_path):
    monkeypatch.setenv("READER_SOURCE_ARXIV_URL", "http://127.0.0.1:9")
    code, out, _ = cli(tmp_path / "lib", "sources", "--json")
    items = json.loads(out)
    assert code == 0
    by_name = {i["name"]: i for i in items}
    assert {"arxiv", "crossref", "openreview"} <= set(by_name)
    assert by_name["arxiv"] == {"name": "arxiv", "url": "http://127.0.0.1:9", "needs_key": False,
                                "gives": by_name["arxiv"]["gives"]}
    assert all(set(i) == {"name", "url", "needs_key", "gives"} and i["needs_key"] is False for i in items)
    code, out, _ = cli(tmp_path / "lib", "sources")
    assert code == 0 and "arxiv" in out and "http://127.0.0.1:9" in out


@needs_corpus
def test_kill_9_mid_fetch_leaves_nothing_and_a_rerun_adds_once(server, tmp_path):
    server.fault("/api/query", Fault.slow(30))
    env = {**os.environ, "READER_SOURCE_ARXIV_URL": server.url, "READER_SOURCE_PACE_SCALE": "0"}
    lib_dir = tmp_path / "lib"
    proc = subprocess.Popen([sys.executable, "-m", "reader", "--data-dir", str(lib_dir), "add", "1707.08567"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not server.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.requests, "the child never asked"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        assert lib.counts().total == 0
    leftovers = [p for p in (lib_dir / "sources").rglob("*") if p.is_file() and "cache" in p.parts]
    assert leftovers == []
    done = subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(lib_dir), "add", "1707.08567"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("added 1707.08567"), done.stderr
    done = subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(lib_dir), "add", "1707.08567"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.startswith("already there 1707.08567")
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        assert lib.counts().total == 1


def test_status_is_shown_and_kept_in_backups(bare_lib, tmp_path):
    pid = bare_lib.add_fetched([_rec(status="oral")], collection="c", origin="o").ids[0]
    paper = bare_lib.paper(pid)
    assert paper.status == "oral" and paper.to_dict()["status"] == "oral"
    code, out, _ = cli(bare_lib.paths.root, "show", pid)
    assert "ICLR 2024 2024 (oral)" in out
    path = bare_lib.export_json(tmp_path / "backup.json")
    with Library.open(tmp_path / "other", seed_if_empty=False) as other:
        other.import_files([path])
        (back,) = other.papers(other.paper_ids())
        assert back.status == "oral"

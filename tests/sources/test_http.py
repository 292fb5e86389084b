"""The one HTTP client (reader/sources/http.py) against the local replay server: User-Agent,
cache and provenance, retries and backoff, Retry-After, refused and cut connections, the
bounded total time, cancellation and the pace across processes. Never the network."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reader import __version__
from reader.sources import Client, FetchCancelled, FetchError, Settings, get
from reader.sources.cache import ResponseCache

from .replay import Fault, ReplayServer, closed_port

# Short backoff, but a generous time-out and deadline: a test beside busy processes must not
# time out (and retry, adding requests) where it means no slowness; the tests of time-outs set their own.
FAST = Settings(tries=3, backoff=0.05, deadline=60, timeout=30, pace_scale=0)
BODY = b"<feed>recorded</feed>" * 50


@pytest.fixture()
def server(monkeypatch):
    with ReplayServer() as srv:
        srv.add("/api/query?id_list=1707.08567&start=0", BODY)
        monkeypatch.setenv("READER_SOURCE_ARXIV_URL", srv.url)
        yield srv


def test_fetch_sends_reader_user_agent_and_caches_with_provenance(server, tmp_path):
    with Client(tmp_path, settings=FAST) as client:
        first = client.fetch("arxiv", "/api/query", {"start": 0, "id_list": "1707.08567"})
        assert (first.body, first.status, first.from_cache) == (BODY, 200, False)
        assert first.url == f"{server.url}/api/query?start=0&id_list=1707.08567"
        assert first.fetched_at.endswith("+00:00")
        again = client.fetch("arxiv", "/api/query", {"start": 0, "id_list": "1707.08567"})
        assert again.from_cache and again.body == BODY and again.fetched_at == first.fetched_at
        assert again.url == first.url
        assert len(server.requests) == 1
        fresh = client.fetch("arxiv", "/api/query", {"start": 0, "id_list": "1707.08567"}, refresh=True)
        assert not fresh.from_cache and len(server.requests) == 2
    assert server.requests[0].user_agent.startswith(f"Reader/{__version__} (")
    files = [p for p in (tmp_path / "sources" / "cache" / "arxiv").rglob("*") if p.is_file()]
    assert len(files) == 1 and files[0].suffix == ".resp"


def test_the_cache_answers_with_the_server_gone_and_on_another_port(server, tmp_path, monkeypatch):
    with Client(tmp_path, settings=FAST) as client:
        client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0")
    server.stop()
    monkeypatch.setenv("READER_SOURCE_ARXIV_URL", f"http://127.0.0.1:{closed_port()}")
    with Client(tmp_path, settings=FAST) as client:
        cached = client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0")
    assert cached.from_cache and cached.body == BODY


def test_a_damaged_or_foreign_cache_file_is_not_used(server, tmp_path):
    key = "/api/query?id_list=1707.08567&start=0"
    with Client(tmp_path, settings=FAST) as client:
        client.fetch("arxiv", key)
        path = ResponseCache(tmp_path / "sources" / "cache").path("arxiv", key)
        data = path.read_bytes()
        path.write_bytes(data[:-1] + b"X")  # same length, another body
        assert not client.fetch("arxiv", key).from_cache
        # Written anew: the same body (the header's fetch time may be a second later under load).
        assert path.read_bytes().partition(b"\n")[2] == data.partition(b"\n")[2]
        assert ResponseCache(tmp_path / "sources" / "cache").get("arxiv", key) is not None
        path.unlink()
        os.mkfifo(path)  # never read from nor written through
        assert not client.fetch("arxiv", key).from_cache
        assert path.is_fifo()
    assert len(server.requests) == 3


def test_429_retry_after_is_waited_for(server, tmp_path):
    server.fault("/api/query", Fault.status_code(429, retry_after="1"))
    start = time.monotonic()
    with Client(tmp_path, settings=FAST) as client:
        resp = client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0")
    assert resp.body == BODY
    assert len(server.requests) == 2
    assert server.requests[1].at - server.requests[0].at >= 0.95
    assert time.monotonic() - start < 30  # (the deadline is 60 s)


def test_retry_after_as_an_http_date(server, tmp_path):
    from email.utils import formatdate

    server.fault("/api/query", Fault.status_code(503, retry_after=formatdate(time.time() + 2, usegmt=True)))
    with Client(tmp_path, settings=FAST) as client:
        assert client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0").body == BODY
    assert server.requests[1].at - server.requests[0].at >= 0.9


def test_503_every_time_is_one_clear_line_naming_the_url(server, tmp_path):
    server.fault("/api/query", *[Fault.status_code(503)] * 5)
    with Client(tmp_path, settings=FAST) as client, pytest.raises(FetchError) as err:
        client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0")
    msg = str(err.value)
    assert "\n" not in msg
    assert msg == (f"arxiv: 127.0.0.1:{server.port} did not answer (503 Service Unavailable) after 3 tries: "
                   f"{server.url}/api/query?id_list=1707.08567&start=0")
    assert not (tmp_path / "sources" / "cache" / "arxiv").exists()


def test_backoff_grows(server, tmp_path):
    server.fault("/api/query", Fault.status_code(500), Fault.status_code(502))
    settings = Settings(tries=3, backoff=0.3, deadline=10, timeout=2, pace_scale=0)
    with Client(tmp_path, settings=settings) as client:
        assert client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0").status == 200
    t = [r.at for r in server.requests]
    assert t[1] - t[0] >= 0.28 and t[2] - t[1] >= 0.58


def test_a_retry_after_past_the_time_allowed_fails_at_once(server, tmp_path):
    server.fault("/api/query", Fault.status_code(429, retry_after="3600"))
    start = time.monotonic()
    with Client(tmp_path, settings=FAST) as client, pytest.raises(FetchError, match="429 Too Many Requests"):
        client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0")
    assert time.monotonic() - start < 30 and len(server.requests) == 1  # not the hour, nor the 60 s deadline


def test_refused_connection_is_retried_then_one_line(tmp_path, monkeypatch):
    port = closed_port()
    monkeypatch.setenv("READER_SOURCE_CROSSREF_URL", f"http://127.0.0.1:{port}")
    with Client(tmp_path, settings=FAST) as client, pytest.raises(FetchError) as err:
        client.fetch("crossref", "/works/10.1000/x")
    assert str(err.value) == (f"crossref: 127.0.0.1:{port} did not answer (connection refused) after 3 tries: "
                              f"http://127.0.0.1:{port}/works/10.1000/x")


def test_a_cut_body_is_retried_and_never_cached(server, tmp_path):
    server.fault("/api/query", Fault.cut(0.5))
    with Client(tmp_path, settings=FAST) as client:
        assert client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0").body == BODY
    assert len(server.requests) == 2
    server.fault("/api/query", *[Fault.cut(0.3)] * 3)
    with Client(tmp_path, settings=FAST) as client, pytest.raises(FetchError, match="cut short"):
        client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0", refresh=True)
    with Client(tmp_path, settings=FAST) as client:  # the whole body is still the cached one
        assert client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0").body == BODY


def test_a_dropped_connection_is_retried(server, tmp_path):
    server.fault("/api/query", Fault.drop())
    with Client(tmp_path, settings=FAST) as client:
        assert client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0").body == BODY


def test_a_slow_server_times_out_and_the_total_time_is_bounded(server, tmp_path):
    server.fault("/api/query", *[Fault.slow(10)] * 10)
    settings = Settings(tries=10, backoff=0.05, deadline=4.0, timeout=2.0, pace_scale=0)
    start = time.monotonic()
    with Client(tmp_path, settings=settings) as client, pytest.raises(FetchError, match="timed out"):
        client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0")
    # Ten tries of 2 s each would be 20 s; the deadline stops it near 4 s (slack for a busy machine).
    assert time.monotonic() - start < 12
    assert 2 <= len(server.requests) <= 3


def test_a_4xx_is_returned_not_retried_nor_cached(server, tmp_path):
    server.add("/api/query?id_list=abc", b"<feed>error</feed>", status=400)
    with Client(tmp_path, settings=FAST) as client:
        resp = client.fetch("arxiv", "/api/query?id_list=abc")
        assert (resp.status, resp.ok) == (400, False)
        assert not client.fetch("arxiv", "/api/query?id_list=abc").from_cache
    assert len(server.requests) == 2


def test_cancel_while_waiting_for_the_pace(server, tmp_path):
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 3

    settings = Settings(tries=3, backoff=0.05, deadline=120, timeout=30, pace_scale=10)
    with Client(tmp_path, settings=settings) as client:
        client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0", refresh=True)
        client.cancelled = cancelled
        start = time.monotonic()
        with pytest.raises(FetchCancelled):
            client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0", refresh=True)
        assert time.monotonic() - start < 15  # not the 30 s (3 s x 10) asked between requests
    assert len(server.requests) == 1


def test_arxiv_default_pace_is_three_seconds_in_one_process(server, tmp_path):
    assert get("arxiv").pace == 3.0
    with Client(tmp_path, settings=Settings(tries=2, backoff=0.05, deadline=20, timeout=2)) as client:
        for _ in range(2):
            client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0", refresh=True)
    # (the server notes a request when its thread runs: under load the first may be noted late)
    assert server.requests[1].at - server.requests[0].at >= 2.5


_CHILD = """
import sys
from pathlib import Path
from reader.sources import Client, Settings
settings = Settings(tries=2, backoff=0.05, deadline=30, timeout=5, pace_scale=float(sys.argv[2]))
with Client(Path(sys.argv[1]), settings=settings) as client:
    for _ in range(3):
        client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0", refresh=True)
"""


def test_the_pace_holds_across_processes(server, tmp_path):
    """Two processes on one library folder share arXiv's pace (scaled to 0.5: 1.5 s). Without it
    the two would ask at once (gaps near 0); the server notes a request when its thread runs, late
    by a fraction of a second on a busy machine: the gaps are checked against 1 s."""
    env = {**os.environ, "READER_SOURCE_ARXIV_URL": server.url}
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path), "0.5"], env=env) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=300) == 0
    times = sorted(r.at for r in server.requests)
    assert len(times) == 6
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) >= 1.0, gaps
    assert (tmp_path / "sources" / "pace" / "arxiv").is_file()


def test_base_url_override_and_registry(monkeypatch):
    src = get("arxiv")
    assert src.base == "https://export.arxiv.org" or os.environ.get(src.env_var)
    monkeypatch.setenv("READER_SOURCE_ARXIV_URL", "http://127.0.0.1:8123/")
    assert src.at("/api/query") == "http://127.0.0.1:8123/api/query"
    assert src.to_dict() == {"name": "arxiv", "url": "http://127.0.0.1:8123", "needs_key": False,
                             "gives": src.gives}
    assert src.env_var == "READER_SOURCE_ARXIV_URL"


def test_env_settings(monkeypatch):
    monkeypatch.setenv("READER_SOURCE_RETRIES", "2")
    monkeypatch.setenv("READER_SOURCE_PACE_SCALE", "0.5")
    monkeypatch.setenv("READER_SOURCE_MAILTO", "me@example.org")
    s = Settings.from_env()
    assert (s.tries, s.pace_scale) == (2, 0.5)
    assert s.user_agent == f"Reader/{__version__} (reader-abstracts desktop app; mailto:me@example.org)"
    monkeypatch.delenv("READER_SOURCE_RETRIES")
    monkeypatch.delenv("READER_SOURCE_PACE_SCALE")
    d = Settings.from_env()
    assert (d.tries, d.pace_scale, d.backoff) == (4, 1.0, 2.0) and d.deadline < 120


def test_no_other_module_does_network_io():
    root = Path(__file__).resolve().parents[2] / "reader"
    words = ("urllib3", "urllib.request", "http.client", "socket", "requests", "httpx")
    offenders = []
    for path in root.rglob("*.py"):
        if path == root / "sources" / "http.py":
            continue
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path.name}: {w}" for w in words
                      if f"import {w}" in text or f"from {w} import" in text]
    assert offenders == []


def test_cache_false_neither_reads_nor_keeps(server, tmp_path):
    with Client(tmp_path, settings=FAST) as client:
        client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0")
        assert not client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0", cache=False).from_cache
        server.add("/api/query?search_query=cat:cs.LG", BODY)
        client.fetch("arxiv", "/api/query?search_query=cat:cs.LG", cache=False)
        assert client.cached("arxiv", "/api/query?search_query=cat:cs.LG") is None
    assert len(server.requests) == 3


def test_the_systems_proxy_is_used_but_never_for_this_machine(server, tmp_path, monkeypatch):
    for name in ("no_proxy", "NO_PROXY", "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", server.url)  # the replay server as the proxy
    monkeypatch.setenv("READER_SOURCE_CROSSREF_URL", "http://api.crossref.example")
    server.add("/works/10.1000/x", b'{"message": {}}')
    with Client(tmp_path, settings=FAST) as client:
        resp = client.fetch("crossref", "/works/10.1000/x")
        assert resp.body == b'{"message": {}}' and resp.url == "http://api.crossref.example/works/10.1000/x"
        # 127.0.0.1 goes direct even with a proxy set (here: one that refuses).
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{closed_port()}")
        assert client.fetch("arxiv", "/api/query?id_list=1707.08567&start=0").body == BODY

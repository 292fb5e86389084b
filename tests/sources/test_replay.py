"""The replay server leaves no thread of a finished test behind, and prints no tracebacks."""

from __future__ import annotations

import threading
import time
import urllib.request

import pytest

from tests.sources.replay import Fault, ReplayServer


def _request_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("Thread-") and "process_request" in t.name]


def test_stop_wakes_a_slow_fault_and_joins_its_thread(capsys: pytest.CaptureFixture[str]) -> None:
    server = ReplayServer().start()
    server.add("/api/query?id_list=1", b"<feed/>")
    server.fault("/api/query", Fault.slow(60))
    with pytest.raises(OSError):  # the client gives up long before the reply
        urllib.request.urlopen(f"{server.url}/api/query?id_list=1", timeout=0.3)
    assert _request_threads(), "the slow request's thread should still be waiting"
    began = time.monotonic()
    server.stop()
    assert time.monotonic() - began < 5
    assert not _request_threads()
    assert server.errors == []
    assert "Traceback" not in capsys.readouterr().err


def test_a_kept_alive_connection_does_not_hold_stop() -> None:
    import http.client

    server = ReplayServer().start()
    server.add("/a", b"ok")
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/a")
    assert conn.getresponse().read() == b"ok"  # the connection stays open (HTTP/1.1)
    began = time.monotonic()
    server.stop()
    assert time.monotonic() - began < 5
    assert not _request_threads()
    conn.close()

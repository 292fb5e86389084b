"""A local HTTP server on 127.0.0.1 that replays recorded responses, for tests (never the network).

    with ReplayServer() as server:
        server.add("/api/query?id_list=1707.08567", body_bytes)     # path + query -> body
        server.fault("/api/query", Fault.status_code(429, retry_after="2"))  # next request to that path
        os.environ["READER_SOURCE_ARXIV_URL"] = server.url
        ...
        server.requests  # [(time.time(), path, query, user_agent), ...]

Routes match on the path and the query's parameters as a multiset (their order does not
matter). A query route (`add(path, body, query=None)` with the query in the path) wins over a
path-only route (`add_any(path, body)`); an unknown request gets 404. Faults are queued per path
(or "*" for any) and used up one per request, in order:
  Fault.status_code(code, retry_after=None, body=b"")  answer with that status (429/503/400...)
  Fault.cut(keep=0.5)     send a Content-Length larger than the body and close after part of it
  Fault.slow(seconds)     wait before answering (the recorded body then follows)
  Fault.drop()            close the connection without answering
`closed_port()` gives a port with nothing listening (connection refused).
`stop()` wakes any slow fault still waiting and joins every request thread, so no thread of a
finished test is left writing; a client that hung up is not an error (the fault tests do that on
purpose), and any other error a request thread meets is kept in `server.errors` rather than
printed with a traceback (CPython 3.11 formats tracebacks with `ast.parse`, which is not thread
safe: gh-106905 made another test's `ast.parse` fail with "AST constructor recursion depth
mismatch").
`load_arxiv_recordings(server)` serves the real arXiv API recordings of
../shared/corpora/sources/arxiv_api/ (each JSON's own URL, status and body)."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

CORPORA = Path(__file__).resolve().parents[2].parent / "shared" / "corpora"
ARXIV_API = CORPORA / "sources" / "arxiv_api"


def _query_key(query: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(parse_qsl(query, keep_blank_values=True)))


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Fault:
    kind: str  # status | cut | slow | drop
    status: int = 0
    retry_after: str | None = None
    body: bytes = b""
    keep: float = 0.5
    seconds: float = 0.0

    @classmethod
    def status_code(cls, code: int, retry_after: str | None = None, body: bytes = b"") -> Fault:
        return cls("status", status=code, retry_after=retry_after, body=body)

    @classmethod
    def cut(cls, keep: float = 0.5) -> Fault:
        return cls("cut", keep=keep)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        return cls("slow", seconds=seconds)

    @classmethod
    def drop(cls) -> Fault:
        return cls("drop")



@dataclass(frozen=True)
class Request:
    at: float  # time.time() when it arrived
    path: str
    query: str
    user_agent: str


class ReplayServer:
    def __init__(self) -> None:
        self.routes: dict[tuple[str, tuple[tuple[str, str], ...]], Reply] = {}
        self.any_query: dict[str, Reply] = {}
        self.faults: dict[str, deque[Fault]] = defaultdict(deque)
        self.requests: list[Request] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._open: set[socket.socket] = set()  # connections a request thread still serves
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # ------------------------------------------------------------------ set-up
    def add(self, path_and_query: str, body: bytes, status: int = 200,
            headers: tuple[tuple[str, str], ...] = ()) -> None:
        parts = urlsplit(path_and_query)
        self.routes[(parts.path, _query_key(parts.query))] = Reply(status, body, headers)

    def add_any(self, path: str, body: bytes, status: int = 200) -> None:
        """Any query under this path gets this reply (unless a query route matches)."""
        self.any_query[path] = Reply(status, body)

    def fault(self, path: str, *faults: Fault) -> None:
        with self._lock:
            self.faults[path].extend(faults)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------------ running
    def start(self) -> ReplayServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 20  # bounds a read on a connection that raced stop()

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def setup(self) -> None:
                super().setup()
                with server._lock:
                    server._open.add(self.connection)

            def finish(self) -> None:
                with server._lock:
                    server._open.discard(self.connection)
                super().finish()

            def do_GET(self) -> None:
                server._handle(self)

        class Server(ThreadingHTTPServer):
            daemon_threads = False  # server_close() joins the request threads
            block_on_close = True

            def handle_error(self, request: object, client_address: object) -> None:
                exc = sys.exc_info()[1]
                if isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)):
                    return  # the client hung up: a timeout or cancel under test
                with server._lock:
                    server.errors.append(f"{type(exc).__name__}: {exc}")

        self._stopping.clear()
        self._httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="replay", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._stopping.set()
            self._httpd.shutdown()
            with self._lock:
                still_open = list(self._open)
            for conn in still_open:  # a kept-alive connection would hold its thread in a read
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_fault(self, path: str) -> Fault | None:
        with self._lock:
            for key in (path, "*"):
                if self.faults.get(key):
                    return self.faults[key].popleft()
        return None

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        with self._lock:
            self.requests.append(Request(time.time(), parts.path, parts.query, h.headers.get("User-Agent", "")))
        reply = self.routes.get((parts.path, _query_key(parts.query))) or self.any_query.get(parts.path)
        if reply is None:
            reply = Reply(404, b"not recorded: " + h.path.encode())
        fault = self._next_fault(parts.path)
        if fault is not None:
            if fault.kind == "drop":
                h.close_connection = True
                h.connection.shutdown(socket.SHUT_RDWR)
                return
            if fault.kind == "slow":
                if self._stopping.wait(fault.seconds):
                    h.close_connection = True
                    return
            elif fault.kind == "status":
                extra = (("Retry-After", fault.retry_after),) if fault.retry_after is not None else ()
                reply = Reply(fault.status, fault.body, extra)
            elif fault.kind == "cut":
                kept = reply.body[: int(len(reply.body) * fault.keep)]
                h.send_response(reply.status)
                h.send_header("Content-Length", str(len(reply.body)))
                h.send_header("Connection", "close")
                h.end_headers()
                h.wfile.write(kept)
                h.wfile.flush()
                h.close_connection = True
                h.connection.shutdown(socket.SHUT_RDWR)
                return
        h.send_response(reply.status)
        for name, value in reply.headers:
            h.send_header(name, value)
        h.send_header("Content-Length", str(len(reply.body)))
        h.end_headers()
        h.wfile.write(reply.body)


def closed_port() -> int:
    """A 127.0.0.1 port with nothing listening (bound, then closed): connections are refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def arxiv_recordings() -> list[tuple[str, int, bytes]]:
    """(path and query, status, raw body) of each real arXiv API recording."""
    out = []
    for path in sorted(ARXIV_API.glob("arxivpy_*.json")):
        rec = json.loads(path.read_text(encoding="utf-8"))
        parts = urlsplit(rec["url"])
        out.append((f"{parts.path}?{parts.query}", int(rec["status_code"]), rec["body"].encode("latin-1")))
    return out


def load_arxiv_recordings(server: ReplayServer) -> None:
    for path_query, status, body in arxiv_recordings():
        server.add(path_query, body, status)

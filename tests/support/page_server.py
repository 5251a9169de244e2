"""A small web server on 127.0.0.1 for the online source-resolution tests: pages, redirects, 404/410, 500,
a slow page, a DOI resolver route; it counts requests per path, records User-Agents and the most requests
in flight at once."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

QUOTE = "the northern link was approved in May"
PAGE = (
    "<!doctype html><html><head><title>Grid news</title><script>var q = 'not text';</script></head>"
    f"<body><nav>Menu</nav><p>Officials said {QUOTE} after a long review.</p></body></html>"
)


class PageServer:
    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.agents: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self.slow_seconds = 1.0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path
                with server.lock:
                    server.hits[path] += 1
                    server.agents.append(self.headers.get("User-Agent", ""))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                self.counted = True
                try:
                    self._answer(path)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer
                finally:
                    self._leave()

            def _leave(self) -> None:
                """The request stops counting as in flight: just before its answer is written (the client
                may send its next request as soon as it has the answer, before this thread runs on: counted
                after the write, a busy machine saw 3 at once under a limit of 2), or when it ends."""
                if self.counted:
                    self.counted = False
                    with server.lock:
                        server.in_flight -= 1

            def _answer(self, path: str) -> None:
                if path in ("/page", "/other"):
                    self._send(
                        200, PAGE if path == "/page" else "<html><body><p>Nothing here.</p></body></html>"
                    )
                elif path == "/text":
                    self._send(200, f"Plain text: {QUOTE}.", "text/plain; charset=utf-8")
                elif path == "/moved" or path == "/doi/10.1234/grid.2024":
                    self._leave()
                    self.send_response(302)
                    self.send_header("Location", "/page")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif path in ("/gone", "/doi/10.1234/nothing"):
                    self._send(404, "not found")
                elif path == "/deleted":
                    self._send(410, "gone")
                elif path == "/big":
                    self._send(
                        200, f"<p>{QUOTE} first.</p><p>{'filler words ' * 300}</p><p>Last: the end.</p>"
                    )
                elif path == "/broken":
                    self._send(500, "oops")
                elif path == "/slow":
                    time.sleep(server.slow_seconds)
                    self._send(200, PAGE)
                elif path.startswith("/busy/"):
                    time.sleep(0.15)
                    self._send(200, PAGE)
                else:
                    self._send(404, "no route")

            def _send(self, status: int, body: str, content_type: str = "text/html; charset=utf-8") -> None:
                data = body.encode("utf-8")
                self._leave()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # no traceback on stderr from a request the client abandoned

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def url(self, path: str) -> str:
        return self.base + path

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[PageServer]:
    s = PageServer()
    try:
        yield s
    finally:
        s.stop()

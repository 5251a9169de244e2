"""A stand-in for an OpenAI-compatible chat-completions server, on 127.0.0.1, with scripted behaviours.

A real ``http.server.ThreadingHTTPServer`` on an ephemeral port (one thread per request), so the judge is
tested over real HTTP: connection handling, status codes, headers, latency.

Behaviours (``mode``):

- ``correct``: accepts when the prompt holds ``MARKER_GOOD``, rejects otherwise (``MARKER_BAD`` or nothing).
- ``accept_long``: like ``correct``, but also accepts any answer longer than ``long_threshold`` characters
  (the answer is the text between ``<answer>`` and ``</answer>`` in the prompt, else the whole prompt) —
  a judge biased towards long answers.
- ``always_accept`` / ``always_reject``.
- In every mode, a prompt holding ``MARKER_FLAKY`` gets accept, reject, accept, ... on successive calls (an
  inconsistent judge, for ``--repeats``), and one holding ``MARKER_UNSURE`` gets ``"accept": "unsure"`` (the
  judge abstains).
- ``fenced``: the correct verdict inside a Markdown code fence with prose around it.
- ``malformed``: prose with no JSON verdict.
- ``bad_body``: HTTP 200 whose body is not JSON.
- ``echo_auth``: the correct verdict, with the Authorization header echoed in the reason (a hostile server).
- ``echo_prompt``: the reply content is the prompt itself (a broken model or proxy that echoes its input).

``script`` is a queue of one-off replies used before the mode applies, one per request, e.g.
``server.script.extend([{"status": 429, "retry_after": "0"}] * 5)`` or ``{"status": 500}``. A scripted entry
may also give ``"body"`` (the raw body to send with its status; ``{auth}`` in it becomes the request's
Authorization header), ``"content"`` (the reply's message content, in an ordinary 200 envelope), or
``"trickle"`` (seconds between bytes: the whole reply, status line and headers included, is sent one byte at a
time, each byte well within any per-read timeout).
``latency`` delays every reply. Every request is counted; headers and bodies are recorded.

Token usage: ``prompt_tokens`` = words in all messages, ``completion_tokens`` = words in the reply content;
``usage_totals`` sums what was reported on successful replies.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


class FakeOpenAI:
    def __init__(
        self,
        *,
        mode: str = "correct",
        latency: float = 0.0,
        long_threshold: int = 300,
        model: str = "fake-judge",
    ) -> None:
        self.mode = mode
        self.latency = latency
        self.long_threshold = long_threshold
        self.model = model
        self.script: deque[dict[str, Any]] = deque()
        self.requests = 0
        self.completions = 0
        self.authorization: list[str | None] = []
        self.bodies: list[dict[str, Any]] = []
        self.usage_totals = {"prompt_tokens": 0, "completion_tokens": 0}
        self.max_in_flight = 0
        self._flaky: dict[str, int] = {}
        self._in_flight = 0
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --

    def start(self) -> FakeOpenAI:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in separate writes: without this, Nagle's algorithm and the client's
            # delayed ACK add ~40 ms to every reply
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                owner._handle(self)

            def do_GET(self) -> None:
                self._send(404, {"error": {"message": "not found"}})

            def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="fake-openai")
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the server first"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- behaviour --

    def decide(self, prompt: str) -> bool:
        if self.mode == "always_accept":
            return True
        if self.mode == "always_reject":
            return False
        if "MARKER_FLAKY" in prompt:
            with self._lock:
                calls = self._flaky[prompt] = self._flaky.get(prompt, 0) + 1
            return calls % 2 == 1
        good = "MARKER_GOOD" in prompt
        if self.mode == "accept_long":
            m = _ANSWER.search(prompt)
            answer = m.group(1) if m else prompt
            return good or len(answer.strip()) > self.long_threshold
        return good

    def _handle(self, handler: Any) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        with self._lock:
            self.requests += 1
            self.authorization.append(handler.headers.get("Authorization"))
            scripted = self.script.popleft() if self.script else None
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            if self.latency:
                time.sleep(self.latency)
            if handler.path.rstrip("/") != "/v1/chat/completions":
                handler._send(404, {"error": {"message": f"no route {handler.path}"}})
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                handler._send(400, {"error": {"message": "body is not JSON"}})
                return
            with self._lock:
                self.bodies.append(body)
            if scripted is not None:
                if scripted.get("sleep"):
                    time.sleep(float(scripted["sleep"]))
                status = int(scripted.get("status", 200))
                if "body" in scripted:
                    raw_body = str(scripted["body"]).replace(
                        "{auth}", handler.headers.get("Authorization") or ""
                    )
                    handler._send(status, raw_body.encode())
                    return
                if "content" in scripted:
                    self._complete(handler, body, content=str(scripted["content"]))
                    return
                if "trickle" in scripted:
                    self._trickle(handler, body, float(scripted["trickle"]))
                    return
                if status != 200:
                    headers = {}
                    if "retry_after" in scripted:
                        headers["Retry-After"] = str(scripted["retry_after"])
                    handler._send(status, {"error": {"message": f"scripted {status}"}}, headers)
                    return
            self._complete(handler, body)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _trickle(self, handler: Any, body: dict[str, Any], gap: float) -> None:
        reply = json.dumps(self._reply(body, self._content(handler, body))).encode()
        head = (
            f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(reply)}\r\n\r\n"
        ).encode()
        try:
            for i in range(len(head + reply)):
                handler.wfile.write((head + reply)[i : i + 1])
                handler.wfile.flush()
                time.sleep(gap)
        except OSError:
            pass  # the client gave up: what the test wants
        handler.close_connection = True

    def _content(self, handler: Any, body: dict[str, Any]) -> str:
        messages = body.get("messages") or []
        prompt = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
        if self.mode == "echo_prompt":
            return prompt
        accept = self.decide(prompt)
        verdict: dict[str, Any] = {
            "accept": accept,
            "score": 1.0 if accept else 0.0,
            "reason": "scripted verdict",
        }
        if "MARKER_UNSURE" in prompt:
            verdict = {"accept": "unsure", "score": 0.5, "reason": "the evidence is ambiguous"}
        if self.mode == "echo_auth":
            verdict["reason"] = f"your header was {handler.headers.get('Authorization')}"
        content = json.dumps(verdict)
        if self.mode == "fenced":
            content = f"Here is my verdict:\n```json\n{json.dumps(verdict, indent=2)}\n```\nThanks."
        elif self.mode == "malformed":
            content = "I believe the claim is probably supported, on balance."
        return content

    def _complete(self, handler: Any, body: dict[str, Any], content: str | None = None) -> None:
        if self.mode == "bad_body" and content is None:
            handler._send(200, b"<html>gateway says hello</html>")
            return
        if content is None:
            content = self._content(handler, body)
        handler._send(200, self._reply(body, content))

    def _reply(self, body: dict[str, Any], content: str) -> dict[str, Any]:
        messages = body.get("messages") or []
        prompt = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(content.split())}
        with self._lock:
            self.completions += 1
            self.usage_totals["prompt_tokens"] += usage["prompt_tokens"]
            self.usage_totals["completion_tokens"] += usage["completion_tokens"]
        return {
            "id": f"chatcmpl-{self.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ],
            "usage": {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]},
        }


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str] | None = None) -> None:
    """Serve in the foreground (for benchmarks and manual checks): prints the base URL, then serves until
    stdin closes or the process is interrupted."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="OpenAI-compatible stand-in on 127.0.0.1")
    parser.add_argument("--mode", default="correct")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--long-threshold", type=int, default=300)
    args = parser.parse_args(argv)
    server = FakeOpenAI(mode=args.mode, latency=args.latency, long_threshold=args.long_threshold).start()
    print(server.base_url, flush=True)
    try:
        sys.stdin.read()
    except KeyboardInterrupt:
        pass
    finally:
        print(f"requests {server.requests}", file=sys.stderr, flush=True)
        server.stop()


if __name__ == "__main__":
    main()

"""A small OpenAI-compatible HTTP server for tests, on 127.0.0.1 only.

`script(request_json, n)` returns a Reply for the n-th request (0-based, counting all). A script
wrapped in `Gate` answers only the requests the test lets through, so "the run is still going" is a
fact the test controls, not a race with the clock."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: dict | str | bytes | None = None  # dict -> JSON; str/bytes -> sent as is (malformed replies)
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    drip: float = 0.0  # seconds between single bytes of the body (a reply that never quite ends)
    content_type: str = "application/json"  # text/html for an HTML error page, text/event-stream ...
    endless: bool = False  # after the body, more of its last byte for ever (no length; until the client hangs up)


ENDLESS_CHUNK = 64 * 1024


def endless_chat() -> Reply:
    """A chat reply whose content never ends."""
    return Reply(body='{"choices": [{"index": 0, "message": {"role": "assistant", "content": "a', endless=True)


def gzip_bomb(inflated: int = 2**30, body: str | None = None) -> Reply:
    """A reply that is a few MB gzipped and ``inflated`` bytes (zeros after ``body``) inflated."""
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [z.compress((body or '{"choices": [{"message": {"content": "').encode())]
    zeros = bytes(2**20)
    parts += [z.compress(zeros) for _ in range(inflated // 2**20)]
    parts.append(z.flush())
    return Reply(body=b"".join(parts), headers={"Content-Encoding": "gzip"})


def chat(content: str | None, *, reasoning: str | None = None, tokens=(10, 2), cost=None) -> Reply:
    message = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning"] = reasoning
    usage = {"prompt_tokens": tokens[0], "completion_tokens": tokens[1], "total_tokens": sum(tokens)}
    if cost is not None:
        usage["cost"] = cost
    return Reply(body={"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "test",
                       "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                       "usage": usage})


class Gate:
    """A script whose replies wait until the test lets them through: `let(k)` frees k more, `open()`
    frees every one from now on. A held request waits (a generous hour at most, so a failed test
    never hangs a thread for good); its reply is the wrapped script's."""

    HOLD = 3600.0

    def __init__(self, script: Callable[[dict, int], Reply], free: int = 0):
        self.script = script
        self._tickets = threading.Semaphore(free)
        self._open = threading.Event()

    def __call__(self, body: dict, n: int) -> Reply:
        deadline = time.monotonic() + self.HOLD
        while not self._open.is_set() and time.monotonic() < deadline:
            if self._tickets.acquire(timeout=0.02):
                break
        return self.script(body, n)

    def let(self, k: int = 1) -> None:
        for _ in range(k):
            self._tickets.release()

    def open(self) -> None:
        self._open.set()


class _Listening(ThreadingHTTPServer):
    # room for a sweep's 96 connections opened at once, as a real endpoint's (nginx: 511): the
    # standard library's 5 drops the overflow's handshakes, which the client then resends after
    # 1, 2, 4 ... 60 s -- a stall of the test server, not of the client
    request_queue_size = 256


class LLMServer:
    def __init__(self, script: Callable[[dict, int], Reply]):
        self.script = script
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints do

            def setup(self):
                super().setup()  # no Nagle delay between the header and body writes
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    n = len(server.requests)
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                reply = server.script(body, n)
                if reply.delay:
                    time.sleep(reply.delay)
                if isinstance(reply.body, bytes):
                    data = reply.body  # invalid UTF-8, say
                else:
                    payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body or {})
                    data = payload.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.content_type)
                    if reply.endless:
                        self.send_header("connection", "close")
                    else:
                        self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if reply.drip:
                        for i in range(len(data)):
                            self.wfile.write(data[i:i + 1])
                            self.wfile.flush()
                            time.sleep(reply.drip)
                    else:
                        self.wfile.write(data)
                    if reply.endless:
                        more = data[-1:] * ENDLESS_CHUNK
                        while True:
                            self.wfile.write(more)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.httpd = _Listening(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> LLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def main() -> None:
    """Serve fixed chat answers from a separate process (benchmarks): prints the URL, runs until killed."""
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--delay", type=float, default=0.1)
    p.add_argument("--answer", default="Answer: 2")
    p.add_argument("--busy", type=int, default=0, metavar="N",
                   help="answer every N-th first attempt 429 (a body not seen before; 10: 10 %%)")
    p.add_argument("--retry-after", help="with --busy: the 429's Retry-After header (default: none)")
    p.add_argument("--busy-delay", type=float, help="with --busy: seconds before a 429 (default: --delay)")
    p.add_argument("--cost", type=float, help="report this cost (USD) in each reply's usage, as OpenRouter does")
    p.add_argument("--outage", metavar="AT,SECONDS", help="refuse every request at once (429, Retry-After 1) "
                   "from AT seconds after the first request for SECONDS")
    args = p.parse_args()
    seen: set[str] = set()
    lock = threading.Lock()
    firsts = [0]
    began: list[float] = []
    outage = tuple(float(x) for x in args.outage.split(",")) if args.outage else None

    def script(body: dict, n: int) -> Reply:
        if outage:
            now = time.monotonic()
            began[:] = began or [now]
            if outage[0] <= now - began[0] < outage[0] + outage[1]:
                return Reply(429, {"error": {"message": "over capacity", "type": "rate_limit"}},
                             headers={"Retry-After": "1"}, delay=0.0)
        if args.busy:
            key = json.dumps(body, sort_keys=True)
            with lock:
                first = key not in seen
                seen.add(key)
                firsts[0] += first
                busy = first and firsts[0] % args.busy == 0
            if busy:
                headers = {"Retry-After": args.retry_after} if args.retry_after else {}
                return Reply(429, {"error": {"message": "rate limited", "type": "rate_limit"}},
                             headers=headers, delay=args.delay if args.busy_delay is None else args.busy_delay)
        return Reply(body=chat(args.answer, cost=args.cost).body, delay=args.delay)

    with LLMServer(script) as server:
        print(server.url, flush=True)
        server.thread.join()


if __name__ == "__main__":
    main()

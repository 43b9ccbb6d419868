"""A fake Hugging Face hub for tests, on 127.0.0.1 only: enough of the API for `release --push`
through huggingface_hub (repository info, create, YAML check, preupload, commit). What was
committed is kept per repository; `fail` makes the commit answer with an error that echoes the
Authorization header, as a misbehaving proxy would; `endless` makes every GET a body that never
ends."""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Repo:
    private: bool
    files: dict[str, bytes] = field(default_factory=dict)


class FakeHub:
    def __init__(self):
        self.repos: dict[str, Repo] = {}
        self.fail: int | None = None  # an HTTP status for the next commits
        self.endless = False  # repository info answers with a body that never ends
        self.requests: list[tuple[str, str]] = []
        self.trace_ids: list[str | None] = []  # each request's X-Amzn-Trace-Id (huggingface_hub's request hook)
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, body, headers: dict | None = None):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _endless(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                chunk = b'{"id": "' + b"x" * 65536
                try:
                    while True:
                        self.wfile.write(chunk)
                except OSError:  # the client stopped reading
                    pass

            def do_GET(self):
                hub.requests.append(("GET", self.path))
                hub.trace_ids.append(self.headers.get("X-Amzn-Trace-Id"))
                if hub.endless:
                    return self._endless()
                parts = self.path.split("?")[0].strip("/").split("/")
                if parts[:2] == ["api", "datasets"] and len(parts) >= 4:
                    repo = hub.repos.get(f"{parts[2]}/{parts[3]}")
                    if repo is None:
                        return self._send(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
                    return self._send(200, {"id": f"{parts[2]}/{parts[3]}", "private": repo.private, "sha": "0" * 40,
                                            "siblings": [{"rfilename": f} for f in repo.files]})
                return self._send(404, {"error": "not here"})

            def do_POST(self):
                hub.requests.append(("POST", self.path))
                hub.trace_ids.append(self.headers.get("X-Amzn-Trace-Id"))
                body = self._body()
                parts = self.path.split("?")[0].strip("/").split("/")
                if parts[:3] == ["api", "repos", "create"]:
                    req = json.loads(body)
                    name = f"{req.get('organization')}/{req['name']}"
                    if name in hub.repos:
                        return self._send(409, {"error": "You already created this dataset repo",
                                                "url": f"{hub.url}/datasets/{name}"})
                    hub.repos[name] = Repo(private=req.get("visibility") == "private" or bool(req.get("private")))
                    return self._send(200, {"url": f"{hub.url}/datasets/{name}"})
                if parts[:2] == ["api", "validate-yaml"]:
                    return self._send(200, {"errors": [], "warnings": []})
                if parts[:2] == ["api", "datasets"] and len(parts) >= 6 and parts[4] == "preupload":
                    files = json.loads(body)["files"]
                    return self._send(200, {"files": [{"path": f["path"], "uploadMode": "regular",
                                                       "shouldIgnore": False} for f in files]})
                if parts[:2] == ["api", "datasets"] and len(parts) >= 6 and parts[4] == "commit":
                    if hub.fail:
                        auth = self.headers.get("Authorization", "")
                        return self._send(hub.fail, {"error": f"Invalid credentials in Authorization header: "
                                                              f"token {auth}"})
                    repo = hub.repos[f"{parts[2]}/{parts[3]}"]
                    for line in body.splitlines():
                        item = json.loads(line)
                        if item.get("key") == "file":
                            repo.files[item["value"]["path"]] = base64.b64decode(item["value"]["content"])
                    url = f"{hub.url}/datasets/{parts[2]}/{parts[3]}/commit/1"
                    return self._send(200, {"commitUrl": url, "commitOid": "1" * 40})
                return self._send(404, {"error": "not here"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeHub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

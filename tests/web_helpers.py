"""Helpers of the browser tests (tests/web) and bench/bench_web.py: a database with people, `persian-tui web`
started on a free port, and the app's screen read from its WebSocket stream with pyte (xterm.js
draws on a canvas, so the page's text cannot be read from the DOM)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

CHROMIUM = os.environ.get("PERSIAN_TUI_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
PASSWORDS = {"boss": "boss password 1", "ali": "ali password 12", "sara": "sara password 3",
             "reza": "reza password 4"}
ROLES = {"boss": "admin", "ali": "annotator", "sara": "annotator", "reza": "reviewer"}
SECRET_VALUE = "sk-server-secret-0123456789"


def why_no_browser() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    for module in ("textual_serve", "playwright", "pyte"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install -e '.[web,test]')"
    if not Path(CHROMIUM).is_file():
        return "no Chromium (apt-get install chromium; .ci/run installs it)"
    return None


def cli(db: Path, *args: str, stdin: str | None = None, user: str | None = "boss") -> None:
    argv = [sys.executable, "-m", "persian_tui.cli", "--db", str(db)] + (["--user", user] if user else [])
    subprocess.run(argv + list(args), input=stdin, text=True, check=True, capture_output=True)


def people_db(folder: Path, names: tuple[str, ...] = ("boss", "ali", "sara", "reza")) -> Path:
    """The sample bank and its people, each with a password."""
    db = folder / "web.db"
    cli(db, "sample", user=None)
    for name in names:
        cli(db, "users", "add", name, "--role", ROLES.get(name, "annotator"), user=None if name == "boss" else "boss")
        cli(db, "users", "passwd", name, "--stdin", stdin=PASSWORDS.get(name, f"{name} password 9") + "\n")
    return db


class Served:
    """`persian-tui web` on 127.0.0.1, any free port, with a server secret in its environment."""

    def __init__(self, db: Path, *extra: str, cwd: Path | None = None):
        env = dict(os.environ, OPENAI_API_KEY=SECRET_VALUE, AWS_SECRET_ACCESS_KEY=SECRET_VALUE)
        self.process = subprocess.Popen(  # -P: as the `persian-tui` script runs (no working folder on the path)
            [sys.executable, "-P", "-m", "persian_tui.cli", "--db", str(db), "--user", "boss", "web", "--port", "0",
             *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=cwd)
        self.lines: list[str] = []
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if "serving" in line:
                break
        else:
            raise RuntimeError("the server did not start:\n" + "".join(self.lines))
        address = line.split(" on ", 1)[1].split()[0]
        self.url = address.rstrip("/")
        self.port = int(self.url.rsplit(":", 1)[1])

    def children(self) -> list[int]:
        """The app processes the server runs (Linux: from /proc)."""
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == self.process.pid:
                    found.append(int(entry.name))
        return found

    def stop(self) -> str:
        self.process.terminate()
        try:
            out, _ = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, _ = self.process.communicate()
        return "".join(self.lines) + (out or "")


def process_info(pid: int) -> tuple[list[str], dict[str, str]]:
    """A process's command line and environment (Linux)."""
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1]
    env = dict(item.split(b"=", 1) for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") if b"=" in item)
    return [a.decode() for a in argv], {k.decode(): v.decode() for k, v in env.items()}


class Screen:
    """The app's screen in a page, replayed from its WebSocket into pyte."""

    def __init__(self, page):
        import pyte

        self.page = page
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.received = 0
        self.first_byte: float | None = None
        self.closed: str | None = None
        page.on("websocket", self._socket)

    def _socket(self, ws) -> None:
        query = parse_qs(urlsplit(ws.url).query)
        if "width" in query:
            self.screen.resize(int(query["height"][0]), int(query["width"][0]))
        ws.on("framereceived", self._received)
        ws.on("framesent", self._sent)
        ws.on("close", lambda _ws: setattr(self, "closed", "closed"))

    def _received(self, payload) -> None:
        if isinstance(payload, bytes):
            if self.first_byte is None:
                self.first_byte = time.perf_counter()
            self.received += len(payload)
            self.stream.feed(payload)

    def _sent(self, payload) -> None:
        if isinstance(payload, str) and payload.startswith('["resize"'):
            size = json.loads(payload)[1]
            self.screen.resize(int(size["height"]), int(size["width"]))

    def press(self, *keys: str) -> None:
        """Keys typed into the terminal (xterm.js reads them from its hidden textarea)."""
        self.page.focus(".xterm-helper-textarea")
        for key in keys:
            self.page.keyboard.press(key)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, needle: str, timeout: float = 60.0) -> str:
        """The screen once it shows ``needle``; AssertionError with the screen after ``timeout``."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.text()
            if needle in text:
                return text
            self.page.wait_for_timeout(100)
        raise AssertionError(f"{needle!r} never showed; the screen:\n{self.text()}")


def sign_in(page, url: str, name: str, password: str | None = None) -> None:
    page.goto(url + "/")
    page.fill("#name", name)
    page.fill("#password", PASSWORDS[name] if password is None else password)
    page.click("button[type=submit]")

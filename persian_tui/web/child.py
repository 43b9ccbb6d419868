"""One app process per browser tab, run as the signed-in person: its command line and the
environment it gets (built from an allow-list, never the server's whole environment)."""

from __future__ import annotations

import asyncio
import json
import time
from asyncio.subprocess import Process
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from textual_serve.app_service import AppService

from .. import settings
from ..models.users import Role

UNSAVED = "persian_tui_unsaved"  # meta the app sends when it starts or stops holding unsaved work
SIGN_OUT = "persian_tui_sign_out"  # meta the app sends to sign its person out (tui/web_bridge.py)
STOP_SECONDS = 5.0  # a process that has not quit this long after being asked is killed
SETTLE_SECONDS = 0.3  # a pre-started app quiet this long has finished starting up
SETTLE_LIMIT = 20.0
KEEP_LIMIT = 4 * 1024 * 1024  # output a pre-started app may hold for its tab before it is given up


def command(db: Path, user: str) -> list[str]:
    """The app as ``user``: always right-to-left reordered by the app (xterm.js has no bidi);
    the role is the database's (the app resolves it as it does for --annotator). No module of
    the server's working folder is ever imported (settings.PYTHON_FLAGS)."""
    return [*settings.python_command("-m", "persian_tui.cli"), "--db", str(db), "tui", "--bidi", "app", "--no-sample",
            "--annotator", user]


def environment(role: Role, pass_env: tuple[str, ...], width: int, height: int, *,
                sign_out: bool = False, idle_seconds: float | None = None) -> dict[str, str]:
    """The app process's environment: the allow-list (settings.WEB_CHILD_ENV), the --pass-env
    variables for an admin only (the runs screen reads keys by name), and what Textual's web
    driver needs."""
    env = settings.environment_subset(settings.WEB_CHILD_ENV)
    if role == "admin":
        env.update(settings.environment_subset(pass_env))
    env.update({
        "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver", "TEXTUAL_FPS": "60",
        "TEXTUAL_COLOR_SYSTEM": "truecolor", "TERM_PROGRAM": "textual",
        "TERM_PROGRAM_VERSION": version("textual-serve"), "COLUMNS": str(width), "ROWS": str(height),
        "PYTHONIOENCODING": "utf-8",
    })
    if sign_out:
        env[settings.WEB_SIGN_OUT_ENV] = "1"
    if idle_seconds is not None:
        env[settings.WEB_IDLE_ENV] = f"{idle_seconds:g}"  # the app warns before the idle close
    return env


class PersonService(AppService):
    """textual-serve's AppService for one person: exec (no shell) of ``command``, the
    environment above, the app's unsaved-work meta passed on to the page (for its leave-page
    prompt), and a kill when the app does not quit.

    Made without a WebSocket (``warm``), the app starts at once and what it writes is kept
    until a tab attaches: so the app is up by the time the page has loaded."""

    _task: asyncio.Task[None] | None  # AppService's (declared here too: typed without the web extra)
    _process: Process | None

    def __init__(self, argv: list[str], env: dict[str, str], user: str, role: Role = "annotator", *,
                 write_bytes: Callable[[bytes], Awaitable[None]] | None = None,
                 write_str: Callable[[str], Awaitable[None]] | None = None,
                 close: Callable[[], Awaitable[None]] | None = None, **kwargs: Any):
        self._kept: list[bytes | str] = []
        self._kept_size = 0
        self.gone = False  # a pre-started app that ended (or wrote too much) before a tab came
        super().__init__(" ".join(argv), write_bytes=write_bytes or self._keep_bytes,
                         write_str=write_str or self._keep_str, close=close or self._ended_early, **kwargs)
        self.argv, self.env, self.user, self.role = argv, env, user, role
        self.last_input = 0.0
        self.on_sign_out: Callable[[], None] | None = None  # the server ends the session (the app's F10)
        self.unsaved = ""  # the app's unsaved work, its first line ("": none), for an idle close's message
        self.started = time.monotonic()
        self.last_output: float | None = None
        self.size = (80, 24)
        self._resize: asyncio.Task[None] | None = None
        self._wanted = self.size

    async def _keep_bytes(self, data: bytes) -> None:
        self._keep(data)

    async def _keep_str(self, data: str) -> None:
        self._keep(data)

    def _keep(self, data: bytes | str) -> None:
        self._kept.append(data)
        self._kept_size += len(data)
        if self._kept_size > KEEP_LIMIT:
            self.gone = True

    async def _ended_early(self) -> None:
        self.gone = True

    async def attach(self, write_bytes: Callable[[bytes], Awaitable[None]],
                     write_str: Callable[[str], Awaitable[None]], close: Callable[[], Awaitable[None]],
                     width: int, height: int) -> bool:
        """Hand a pre-started app to its tab: what it wrote so far, then its output from now
        on, then the tab's size. False when the app is no longer usable (stop it)."""
        if self.gone or self._task is None or self._task.done():
            return False
        while self._kept:  # more may be kept while sending: send until none is left
            item = self._kept.pop(0)
            await (write_bytes(item) if isinstance(item, bytes) else write_str(item))
        self.remote_write_bytes, self.remote_write_str, self.remote_close = write_bytes, write_str, close
        self._kept_size = 0
        self._wanted = (width, height)
        self._resize = asyncio.create_task(self._resize_when_settled())
        return True

    async def resize(self, width: int, height: int) -> None:
        """The tab's new size: now, or once a pre-started app has settled."""
        if self._resize is not None and not self._resize.done():
            self._wanted = (width, height)
        else:
            await self.set_terminal_size(width, height)

    async def _resize_when_settled(self) -> None:
        """The tab's size, once the app has drawn and gone quiet: a resize while it is still
        starting up can leave it on its loading screen (seen with Textual 8.2)."""
        end = time.monotonic() + SETTLE_LIMIT
        for _ in range(int(SETTLE_LIMIT / 0.05)):  # polled: output comes in many small packets
            now = time.monotonic()
            if now > end or (self.last_output is not None and now - self.last_output >= SETTLE_SECONDS):
                break
            await asyncio.sleep(0.05)
        if self._wanted != self.size:
            await self.set_terminal_size(*self._wanted)

    async def on_data(self, payload: bytes) -> None:
        self.last_output = time.monotonic()
        await super().on_data(payload)

    async def start(self, width: int, height: int) -> None:
        self.size = (width, height)
        await super().start(width, height)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return dict(self.env, COLUMNS=str(width), ROWS=str(height))

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self._build_environment(width, height))
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def on_meta(self, data: bytes) -> None:
        meta = json.loads(data)
        if meta.get("type") == UNSAVED:
            self.unsaved = str(meta.get("what") or "")[:60] if meta.get("unsaved") else ""
            await self.remote_write_str(json.dumps([UNSAVED, bool(meta.get("unsaved"))]))
            return
        if meta.get("type") == SIGN_OUT:
            if self.on_sign_out is not None:
                self.on_sign_out()
            return
        await super().on_meta(data)

    async def stop(self) -> None:
        """Ask the app to quit; kill it if it has not after STOP_SECONDS."""
        if self._resize is not None:
            self._resize.cancel()
        task = self._task
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(super().stop()), STOP_SECONDS)
        except (TimeoutError, ConnectionError):
            pass
        process = self._process
        if process is not None:
            try:
                await asyncio.wait_for(process.wait(), STOP_SECONDS)
            except TimeoutError:
                process.kill()
                await process.wait()
        self._task = None

    @property
    def finished(self) -> asyncio.Task[None] | None:
        return self._task

    @property
    def exit_status(self) -> int | None:
        """The app process's exit status once it has ended (None: running, or never started)."""
        process = self._process
        return None if process is None else process.returncode

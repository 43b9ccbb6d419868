"""Other processes and ports for the tests: a `persian-tui` subprocess, several at once, polling
for what another process wrote, a local port nothing listens on, another connection holding the
database's write lock (data builders are in factories.py)."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from factories import ROOT


def closed_port() -> int:
    """A local port nothing listens on."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    return port


def wait_until(predicate, what: str, *, seconds: float = 120.0, every: float = 0.02):
    """Poll ``predicate()`` until it is true (another process's rows, say) and return its value;
    fail naming ``what`` if it never becomes so. ``seconds`` is only a bound against hanging."""
    deadline = time.monotonic() + seconds
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(every)
    return value


def together(db: Path, argvs: list[list[str]]) -> list[subprocess.CompletedProcess]:
    """Start one `persian-tui --db db ARGV` process per argv at once; wait for them all."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "persian_tui.cli", "--db", str(db), *argv], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for argv in argvs]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr))
    return out


def cli_process(db, *args, env_extra=None, timeout=120, **kw) -> subprocess.CompletedProcess:
    """`persian-tui --db db ARGS` in a subprocess (this checkout's package); the timeout is a guard
    against a hang, not a speed assertion."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env_extra or {})}
    # -P: run as the `persian-tui` script is, which puts no working folder on the module path
    kw.setdefault("text", True)
    return subprocess.run([sys.executable, "-P", "-m", "persian_tui.cli", "--db", str(db), *args],
                          capture_output=True, env=env, timeout=timeout, **kw)


class HeldWriteLock(threading.Thread):
    """Another connection holding the database's write lock for `seconds` once started (an
    import's long transaction): `taken` and `freed` are set as it takes and frees it, `since`
    and `until` say when (time.monotonic)."""

    def __init__(self, path: Path | str, seconds: float):
        super().__init__(daemon=True)
        self.path, self.seconds = path, seconds
        self.taken, self.freed = threading.Event(), threading.Event()
        self.since = self.until = 0.0

    def run(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            self.since = time.monotonic()
            self.taken.set()
            time.sleep(self.seconds)
            self.until = time.monotonic()
            conn.execute("COMMIT")
        finally:
            conn.close()
            self.freed.set()

    async def ticking(self, ticks: list[float]) -> None:
        """A timer in the event loop beside a run: a tick every 10 ms until the lock is freed
        (a loop that waited for the lock inside it would stop ticking)."""
        import asyncio

        while not self.freed.is_set():
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    def within(self, times: list[float], after: float, before: float) -> list[float]:
        """The times well inside the hold: `after` seconds past its start, `before` its end."""
        return [t for t in times if self.since + after < t < self.until - before]

"""In a browser (`persian-tui web`, Textual's web driver): tell the page when the app starts or
stops holding unsaved work, so it asks before the tab is closed. A meta packet the server passes
on (persian_tui/web/child.py, the same UNSAVED name); nothing happens in a terminal."""

from __future__ import annotations

import time
from typing import Any

from .. import settings
from .compat import driver_of

UNSAVED = "persian_tui_unsaved"
SIGN_OUT = "persian_tui_sign_out"  # the app asks the server to end its person's session
WHAT_CHARS = 60  # of the unsaved work's first line, told to the server for an idle close's message
EVERY_SECONDS = 0.5


def watch_unsaved(app: Any) -> None:
    """Send the app's unsaved-work state (``app.unsaved_work()``) to the page on each change."""
    write_meta = getattr(driver_of(app), "write_meta", None)  # only the web driver has it
    if write_meta is None:
        return
    last: list[tuple[bool, str]] = []

    def check() -> None:
        lost = app.unsaved_work()
        now = (bool(lost), lost[0][:WHAT_CHARS] if lost else "")
        if last != [now]:
            last[:] = [now]
            write_meta({"type": UNSAVED, "unsaved": now[0], "what": now[1]})

    app.set_interval(EVERY_SECONDS, check)


def idle_seconds() -> float | None:
    """After how long without a key the server closes this app's tab (None: it does not, or
    not in a browser)."""
    return settings.web_idle_seconds()


def warn_before_idle_close(app: Any, idle: float) -> None:
    """A countdown notice before the server's idle close: from WARN seconds before (a minute, or
    half the idle time when shorter), a notice every few seconds saying when the tab closes and
    what unsaved work it would drop; any key or click (``app.last_input``) stops it."""
    warn = min(60.0, idle / 2)
    step = min(10.0, max(0.5, warn / 3))

    def check() -> None:
        left = idle - (time.monotonic() - app.last_input)
        if 0 < left <= warn:
            lost = app.unsaved_work()
            dropped = f" Not saved yet: {lost[0]}." if lost else ""
            app.notify(f"No key for a while: this tab closes in {left:.0f} s. Press any key to stay.{dropped}",
                       title="Idle", severity="warning", timeout=step)

    app.set_interval(step, check)


def signed_in_browser() -> bool:
    """Whether this app runs for a browser session one signed in to (not a terminal, nor a
    proxy's user): then it offers Sign out."""
    return settings.web_signed_in()


def ask_sign_out(app: Any) -> bool:
    """Ask the server to end this app's session (it closes the tab, saying so); False when the
    app is not in a browser."""
    write_meta = getattr(driver_of(app), "write_meta", None)
    if write_meta is None:
        return False
    write_meta({"type": SIGN_OUT})
    return True

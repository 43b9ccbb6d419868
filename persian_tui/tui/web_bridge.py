"""In a browser (`persian-tui web`, Textual's web driver): tell the page when the app starts or
stops holding unsaved work, so it asks before the tab is closed. A meta packet the server passes
on (persian_tui/web/child.py, the same UNSAVED name); nothing happens in a terminal."""

from __future__ import annotations

import os
from typing import Any

from .compat import driver_of

UNSAVED = "persian_tui_unsaved"
SIGN_OUT = "persian_tui_sign_out"  # the app asks the server to end its person's session
SIGN_OUT_ENV = "PERSIAN_TUI_WEB_SIGN_OUT"  # set ("1") by the server for an app of a signed-in session
EVERY_SECONDS = 0.5


def watch_unsaved(app: Any) -> None:
    """Send the app's unsaved-work state (``app.unsaved_work()``) to the page on each change."""
    write_meta = getattr(driver_of(app), "write_meta", None)  # only the web driver has it
    if write_meta is None:
        return
    last: list[bool] = []

    def check() -> None:
        now = bool(app.unsaved_work())
        if last != [now]:
            last[:] = [now]
            write_meta({"type": UNSAVED, "unsaved": now})

    app.set_interval(EVERY_SECONDS, check)


def signed_in_browser() -> bool:
    """Whether this app runs for a browser session one signed in to (not a terminal, nor a
    proxy's user): then it offers Sign out."""
    return os.environ.get(SIGN_OUT_ENV) == "1"


def ask_sign_out(app: Any) -> bool:
    """Ask the server to end this app's session (it closes the tab, saying so); False when the
    app is not in a browser."""
    write_meta = getattr(driver_of(app), "write_meta", None)
    if write_meta is None:
        return False
    write_meta({"type": SIGN_OUT})
    return True

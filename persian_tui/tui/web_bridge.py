"""In a browser (`persian-tui web`, Textual's web driver): tell the page when the app starts or
stops holding unsaved work, so it asks before the tab is closed. A meta packet the server passes
on (persian_tui/web/child.py, the same UNSAVED name); nothing happens in a terminal."""

from __future__ import annotations

from typing import Any

from .compat import driver_of

UNSAVED = "persian_tui_unsaved"
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

"""What every TUI test shares: the app built by the product's factory, waiting on a
condition (not on the clock) and the notices the app raised."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from persian_tui.tui import make_app as factory
from persian_tui.tui.app import PersianTUI

PAUSES = 200  # rounds of "let queued messages and finished workers through" before giving up


def make_app(path: Path, mode: str = "app", **kw) -> PersianTUI:
    """The app as app.py builds it, without the start-up warm-up, with a short database label
    (snapshots must not show tmp paths)."""
    kw.setdefault("warm_up", False)
    kw.setdefault("db_label", Path(path).name)
    return factory(path, mode, **kw)


async def wait_for(pilot, predicate: Callable[[], object], what: str = "") -> None:
    """Let the app work (its message queue drained, its workers finished) until
    ``predicate()`` is true; fail naming ``what`` if it never becomes so."""
    app = pilot.app
    for _ in range(PAUSES):
        if predicate():
            return
        await app.workers.wait_for_complete()
        await pilot.pause()
    for _ in range(PAUSES):  # a thread's message may still be on its way
        if predicate():
            return
        await pilot.pause(0.01)
    assert predicate(), f"never happened: {what or predicate}"


def notices(app: PersianTUI) -> list[str]:
    """The notices (toasts) the app raised, oldest first."""
    return list(app.notices)


def shown(widget) -> list[str]:
    """The lines a widget puts on the screen now (after its styles: padding, wrapping,
    ellipsis), as plain text."""
    from textual.geometry import Region

    return [strip.text for strip in widget.render_lines(Region(0, 0, *widget.outer_size))]

"""What every TUI test shares: the app built by the product's factory, waiting on a
condition (not on the clock) — the bank's first fill, the app settled, a screen opened —, the
notices the app raised and what a widget shows. Data builders are in factories.py."""

from __future__ import annotations

import asyncio
import time
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


async def until(pilot, predicate: Callable[[], object], what: str = "", seconds: float = 120.0) -> None:
    """Like wait_for, without waiting for the workers (one may be held on purpose, e.g. a run
    whose replies the test server holds): poll ``predicate()`` while the app works; fail naming
    ``what`` if it never becomes true. ``seconds`` only bounds a hang; it times nothing."""
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"never happened: {what or predicate}"
        await pilot.pause(0.02)


async def eventually(predicate: Callable[[], object], what: str = "", seconds: float = 120.0) -> None:
    """Poll ``predicate()`` once the app has closed (no pilot left), e.g. for what its exit
    did to the database; fail naming ``what`` if it never becomes true."""
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"never happened: {what or predicate}"
        await asyncio.sleep(0.02)


async def bank_loaded(pilot):
    """Wait for the bank's first fill (it runs after the first layout); the bank screen."""
    await wait_for(pilot, lambda: pilot.app.bank is not None and pilot.app.bank.loaded_at is not None,
                   "the bank's first fill")
    await pilot.pause()
    return pilot.app.bank


async def settle(pilot, pauses: int = 2, seconds: float = 0.0) -> None:
    """Let the app's workers finish, then its queued messages through: ``pauses`` rounds, the
    first after ``seconds`` (for a timer the app starts, e.g. when typing pauses)."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(seconds)
    for _ in range(pauses - 1):
        await pilot.pause()


async def open_screen(pilot, how, kind: type):
    """From the loaded bank, open a screen by pressing the key ``how`` (or pushing the screen
    ``how``); check it is a ``kind`` and return it."""
    await bank_loaded(pilot)
    if isinstance(how, str):
        await pilot.press(how)
    else:
        await pilot.app.push_screen(how)
    await pilot.pause()
    assert isinstance(pilot.app.screen, kind), f"{pilot.app.screen!r} is not a {kind.__name__}"
    return pilot.app.screen


def notices(app: PersianTUI) -> list[str]:
    """The notices (toasts) the app raised, oldest first."""
    return list(app.notices)


def shown(widget) -> list[str]:
    """The lines a widget puts on the screen now (after its styles: padding, wrapping,
    ellipsis), as plain text."""
    from textual.geometry import Region

    return [strip.text for strip in widget.render_lines(Region(0, 0, *widget.outer_size))]


ZWNJ_KEY = "shift+space"  # how a Persian keyboard types ZWNJ (نیم‌فاصله)


async def type_persian(pilot, text: str) -> None:
    """Type ``text`` key by key as a terminal sends it: each character with its key (the pilot's
    ``press`` cannot send diacritics or «»), ZWNJ as Shift+Space, "\\n" as Enter."""
    from textual import events
    from textual.keys import _character_to_key

    for ch in text:
        if ch == "\u200c":
            await pilot.press(ZWNJ_KEY)
            continue
        key = "enter" if ch == "\n" else "space" if ch == " " else _character_to_key(ch)
        pilot.app.post_message(events.Key(key, "\r" if ch == "\n" else ch))
        await pilot.pause()


def screen_lines(app) -> list[str]:
    """Every line the compositor would send to the terminal now, as text (no control segments)."""
    update = app.screen._compositor.render_full_update()
    return ["".join(seg.text for strip in line for seg in strip if not seg.control) for line in update.strips]

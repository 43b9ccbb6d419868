"""A terminal (or a browser tab) resized while the app is still starting: the bank still
loads and is laid out at the new size (it used to stay on "loading …", Textual 8.2.8)."""

from __future__ import annotations

import pytest
from textual import events
from textual.geometry import Size
from tui_helpers import bank_loaded, make_app

from persian_tui.tui.screens.bank import BankScreen

START, NEW = (80, 24), Size(120, 40)


def resize(app) -> None:
    """What the driver does when the terminal's size changes."""
    if app._driver is not None:
        app._driver._size = NEW
    app.post_message(events.Resize(NEW, NEW))


@pytest.mark.timeout(300)  # the bug this catches hangs the app rather than failing the test
@pytest.mark.parametrize("when", ["before bank mount", "after bank mount", "before first fill"])
async def test_resize_during_start_up(small_db, monkeypatch, when):
    hook = {"before bank mount": "on_mount", "after bank mount": "on_mount",
            "before first fill": "_first_load"}[when]
    original = getattr(BankScreen, hook)

    def hooked(self: BankScreen) -> None:
        if when.startswith("before"):
            resize(self.app)
        original(self)
        if when.startswith("after"):
            resize(self.app)

    monkeypatch.setattr(BankScreen, hook, hooked)
    app = make_app(small_db)
    # Without the fix the first two cases never get past run_test: the screen's queue
    # ping-pongs Resize events forever, and no cancellation stops it (the test hangs).
    async with app.run_test(size=START) as pilot:
        bank = await bank_loaded(pilot)
        await pilot.pause()
        assert app.size == NEW and bank.size == NEW
        status = str(bank.query_one("#status-line").render())
        assert "loading" not in status and "questions" in status

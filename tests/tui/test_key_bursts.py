"""No lost keys: keys typed in one burst (as a terminal delivers them, no pause between)
go where the earlier keys moved focus or opened a screen."""

from __future__ import annotations

from textual import events
from tui_helpers import bank_loaded, make_app, settle

from persian_tui.tui.screens.author import AuthorScreen
from persian_tui.tui.screens.label import LabelScreen

SIZE = (120, 40)
NAMES = {"/": "slash", "\t": "tab", "?": "question_mark", " ": "space"}


def burst(app, keys: str) -> None:
    """Post every key at once, as the terminal driver does with one read."""
    for ch in keys:
        app.post_message(events.Key(NAMES.get(ch, ch), None if ch == "\t" else ch))


async def test_slash_then_typing_goes_to_the_search_not_the_bank_keys(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        burst(app, "/qsc")
        await settle(pilot, pauses=5)
        assert app.is_running  # q did not quit
        bank = app.bank
        assert bank.query_one("#search").value == "qsc"
        assert (bank.status, bank.category) == (None, None)  # s and c were text, not filters


async def test_tab_then_typing_lands_in_the_next_field(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        burst(app, "n")
        await settle(pilot, pauses=5)
        screen = app.screen
        assert isinstance(screen, AuthorScreen)
        burst(app, "ab\tcd\tef")
        await settle(pilot, pauses=5)
        assert screen.query_one("#stem").value == "ab"
        assert screen.query_one("#m1-1").value == "cd"
        assert screen.query_one("#m2-1").value == "ef"


async def test_a_key_right_after_opening_a_screen_acts_there(db):
    """l then 2 at once: the label screen opens and the 2 answers its first item."""
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        burst(app, "l2")
        await settle(pilot, pauses=5)
        assert isinstance(app.screen, LabelScreen)
        assert [(lab.uid, lab.answer) for lab in app.store.labels.labels(annotator="reza")] == [("q-1", 2)]

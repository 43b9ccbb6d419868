"""Every key lands where it was typed, in order: keys typed after Enter (a form's next field,
a dialog's answer), Tab or a key that opens a screen go where that key moved focus, however
the burst reaches the app — all at once (one read from the terminal) or a few event-loop turns
apart (keys read one by one while the app works)."""

from __future__ import annotations

import asyncio

import pytest
from textual import events
from tui_helpers import bank_loaded, make_app, settle, wait_for

from persian_tui.tui.dialogs.category_form import CategoryForm
from persian_tui.tui.screens.author import AuthorScreen
from persian_tui.tui.screens.label import LabelScreen
from persian_tui.tui.screens.taxonomy import TaxonomyScreen

SIZE = (120, 40)
NAMES = {"\n": "enter", "\t": "tab", " ": "space", "_": "underscore"}
# turns of the event loop between two keys: 0 is one read; the others interleave the keys
# with the app's work at different points (where keys were seen to land in the old field)
GAPS = [0, 1, 2, 3, 5, 8, 13]


async def type_burst(app, keys: str, gap: int) -> None:
    """Post each key as the terminal driver does, ``gap`` loop turns apart (no waiting for
    the app to take a key)."""
    for ch in keys:
        char = "\r" if ch == "\n" else None if ch == "\t" else ch
        app.post_message(events.Key(NAMES.get(ch, ch), char))
        for _ in range(gap):
            await asyncio.sleep(0)


async def until_quiet(pilot) -> None:
    await settle(pilot, pauses=6)


@pytest.mark.parametrize("gap", GAPS)
async def test_enter_in_the_editor_moves_on_before_the_next_key(db, gap):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await type_burst(app, "nabcdefghij\nxyz\npqr", gap)
        await until_quiet(pilot)
        screen = app.screen
        assert isinstance(screen, AuthorScreen)
        got = [screen.query_one(f"#{f}").value for f in ("stem", "m1-1", "m2-1", "poet-1")]
        assert got == ["abcdefghij", "xyz", "pqr", ""]


@pytest.mark.parametrize("gap", [0, 1, 3, 8])
async def test_enter_and_tab_mixed_in_the_editor(db, gap):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await type_burst(app, "nst\nا ب\tپ\n\nج", gap)
        await until_quiet(pilot)
        screen = app.screen
        got = [screen.query_one(f"#{f}").value for f in ("stem", "m1-1", "m2-1", "poet-1", "m1-2")]
        assert got == ["st", "ا ب", "پ", "", "ج"]


@pytest.mark.parametrize("gap", GAPS)
async def test_enter_in_the_error_category_form_moves_on_before_the_next_key(db, gap):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await app.push_screen(TaxonomyScreen())
        await until_quiet(pilot)
        await type_burst(app, "nrhyme_bias\nسوگیری قافیه\nrhyme bias", gap)
        await until_quiet(pilot)
        form = app.screen
        assert isinstance(form, CategoryForm)
        assert form.values() | {"description_fa": "", "description_en": "", "example": ""} == {
            "name": "rhyme_bias", "label_fa": "سوگیری قافیه", "label_en": "rhyme bias",
            "description_fa": "", "description_en": "", "example": ""}
        assert form.values()["description_fa"] == ""


@pytest.mark.parametrize("gap", [0, 1, 3, 8])
async def test_enter_on_the_last_field_saves_and_later_keys_act_on_the_taxonomy(db, gap):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await app.push_screen(TaxonomyScreen())
        await until_quiet(pilot)
        await type_burst(app, "nab\nالف\nab\n\n\n\nn", gap)  # saves, then n: a new form
        # the save is a worker's: wait for what it does, not for a number of loop turns
        await wait_for(pilot, lambda: "ab" in {c.name for c in app.store.judging.error_categories()}
                       and isinstance(app.screen, CategoryForm), "the category saved, then a new form")
        form = app.screen
        assert isinstance(form, CategoryForm) and form.values()["name"] == ""


@pytest.mark.parametrize("gap", [0, 1, 3, 8])
async def test_a_name_typed_ahead_then_a_label(db, gap):
    """l asks the name; the name, Enter, then 2: the 2 labels the first item of the queue."""
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await type_burst(app, "lmaryam\n2", gap)
        await until_quiet(pilot)
        assert isinstance(app.screen, LabelScreen)
        assert [(lab.uid, lab.answer) for lab in app.store.labels.labels(annotator="maryam")] == [("q-1", 2)]


@pytest.mark.parametrize("gap", [0, 1, 3, 8])
async def test_a_flag_reason_typed_ahead_then_the_next_answer(db, gap):
    """f asks the reason; the reason, Enter, then 2: the flag is on the first item and the 2
    answers the second (the dialog closed and the next item came up before the 2 was taken)."""
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await type_burst(app, "lfbroken text\n2", gap)
        await until_quiet(pilot)
        assert isinstance(app.screen, LabelScreen)
        got = sorted((lab.uid, lab.answer, lab.flag) for lab in app.store.labels.labels(annotator="reza"))
        assert got == [("q-1", None, "broken text"), ("q-2", 2, None)]

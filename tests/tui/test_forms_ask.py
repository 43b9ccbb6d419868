"""Every form and dialog asks before Escape drops text typed in it: n (or Escape) goes back to
the text, y drops it; with nothing typed, Escape closes at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import make_question
from tui_helpers import bank_loaded, make_app, settle

from persian_tui.store import Store
from persian_tui.tui.dialogs.category_form import CategoryForm
from persian_tui.tui.dialogs.common import ConfirmDialog, ReasonDialog
from persian_tui.tui.dialogs.run_form import RunForm
from persian_tui.tui.dialogs.text_prompt import TextPrompt
from persian_tui.tui.screens.name import NameScreen
from persian_tui.tui.screens.taxonomy import TaxonomyScreen

SIZE = (120, 40)


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "forms.db"
    with Store(path) as store:
        store.questions.add_questions([make_question(f"q-{i}") for i in range(1, 3)])
    return path


async def open_category_form(app, pilot, results):
    await app.push_screen(TaxonomyScreen())
    await settle(pilot, pauses=3)
    await pilot.press("n")
    return "#f-name"


async def open_run_form(app, pilot, results):
    await app.push_screen(RunForm(lambda spec, values: None), results.append)
    return "#model"


async def open_reason(app, pilot, results):
    await app.push_screen(ReasonDialog("Why is it defective?", required=True), results.append)
    return "#reason"


async def open_text_prompt(app, pilot, results):
    await app.push_screen(TextPrompt("Flag q-1: why?", required=True), results.append)
    return "#prompt-input"


async def open_name(app, pilot, results):
    await app.push_screen(NameScreen(), results.append)
    return "#name"


FORMS = {"error category": (open_category_form, CategoryForm), "new run": (open_run_form, RunForm),
         "reason": (open_reason, ReasonDialog), "text prompt": (open_text_prompt, TextPrompt),
         "your name": (open_name, NameScreen)}


@pytest.mark.parametrize("form", list(FORMS))
async def test_escape_asks_before_dropping_typed_text(db, form):
    opener, kind = FORMS[form]
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        results: list = []
        field = await opener(app, pilot, results)
        await settle(pilot, pauses=3)
        screen = app.screen
        assert isinstance(screen, kind)
        screen.query_one(field).focus()
        await pilot.press(*"قافیه")
        await settle(pilot, pauses=3)
        typed = screen.query_one(field).value
        assert "قافیه" in typed
        await pilot.press("escape")
        await settle(pilot, pauses=3)
        assert isinstance(app.screen, ConfirmDialog), f"{form}: Escape dropped the typed text at once"
        await pilot.press("n")
        await settle(pilot, pauses=3)
        assert app.screen is screen and screen.query_one(field).value == typed
        await pilot.press("escape")
        await settle(pilot, pauses=3)
        await pilot.press("escape")  # Escape in the question means no, too
        await settle(pilot, pauses=3)
        assert app.screen is screen and screen.query_one(field).value == typed
        await pilot.press("escape", "y")
        await settle(pilot, pauses=3)
        assert app.screen is not screen and not isinstance(app.screen, ConfirmDialog)
        assert results in ([], [None])


@pytest.mark.parametrize("form", list(FORMS))
async def test_escape_with_nothing_typed_closes_at_once(db, form):
    opener, kind = FORMS[form]
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await opener(app, pilot, [])
        await settle(pilot, pauses=3)
        screen = app.screen
        assert isinstance(screen, kind)
        await pilot.press("escape")
        await settle(pilot, pauses=3)
        assert app.screen is not screen and not isinstance(app.screen, ConfirmDialog)

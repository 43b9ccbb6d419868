"""Quitting never loses typed work without a question: Ctrl+Q and Ctrl+C ask, as Escape does,
when an edit is unsaved, a dialog holds typed text or a run is live; otherwise Ctrl+Q quits."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import couplets, make_question
from llm_server import LLMServer, Reply, chat
from textual.widgets import Input
from tui_helpers import make_app, notices, open_screen, settle

from persian_tui.store import Store
from persian_tui.tui.dialogs.common import ConfirmDialog
from persian_tui.tui.dialogs.text_prompt import TextPrompt
from persian_tui.tui.screens.author import AuthorScreen
from persian_tui.tui.screens.label import LabelScreen
from persian_tui.tui.screens.runs import RunsScreen

SIZE = (120, 40)


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "quit.db"
    with Store(path) as store:
        store.questions.add_questions([make_question(f"q-{i}", couplets=couplets(i)) for i in range(4)])
    return path


def message(app) -> str:
    return str(app.screen.query_one("#confirm-message").render())


@pytest.mark.parametrize("key", ["ctrl+q", "ctrl+c"])
async def test_quitting_the_editor_with_unsaved_changes_asks(db, key):
    app = make_app(db, annotator="alice")
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_screen(pilot, "e", AuthorScreen)
        editor.query_one("#stem").focus()
        await pilot.press(*"abc")
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        assert app.return_code is None  # still running
        assert isinstance(app.screen, ConfirmDialog) and app.screen.quit_question
        assert "question editor's unsaved changes to q-0" in message(app)
        await pilot.press("ctrl+q")  # asked already: no second question on top
        await settle(pilot)
        assert len([s for s in app.screen_stack if isinstance(s, ConfirmDialog)]) == 1
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is editor and editor.query_one("#stem", Input).value == "abc"
        assert not any("[b]" in n for n in notices(app))
        await pilot.press("ctrl+q")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.return_code == 0


async def test_ctrl_q_quits_at_once_with_nothing_to_lose(db):
    app = make_app(db, annotator="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, "e", AuthorScreen)
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert app.return_code == 0


async def test_ctrl_c_says_how_to_quit_in_plain_text(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert app.return_code is None
        said = notices(app)[-1]
        assert "Ctrl+Q quits" in said and "[" not in said


async def test_quitting_with_text_typed_in_a_dialog_asks(db):
    app = make_app(db, annotator="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, "l", LabelScreen)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, TextPrompt)
        await pilot.press(*"two keys")
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert app.return_code is None and isinstance(app.screen, ConfirmDialog)
        assert "the text typed in “Flag q-0 as defective: why?”" in message(app)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TextPrompt)
        assert app.screen.query_one(Input).value == "two keys"


async def test_quitting_during_a_live_run_says_what_happens_to_it(db):
    app = make_app(db)
    with LLMServer(lambda body, n: Reply(body=chat("Answer: 1").body, delay=0.5)) as server:
        async with app.run_test(size=SIZE) as pilot:
            await open_screen(pilot, "m", RunsScreen)
            await pilot.press("n")
            await pilot.pause()
            form = app.screen
            form.query_one("#model").value = "test-model"
            form.query_one("#base_url").value = server.url
            form.query_one("#concurrency").value = "1"
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause(0.2)
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert app.return_code is None and isinstance(app.screen, ConfirmDialog)
            assert "run 1 (llm test-model): it stops now and is marked cancelled" in message(app)
            await pilot.press("y")
            await pilot.pause()

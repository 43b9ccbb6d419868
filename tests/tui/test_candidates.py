"""The candidates queue (tui/screens/candidates.py), driven with Pilot: accept, accept and edit,
reject with a reason, the state filter, proposing more, and who may open it."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import copy_mini, write_themed_poems
from textual.widgets import Input, OptionList
from tui_helpers import bank_loaded, make_app, notices, open_screen, settle, wait_for

from persian_tui.access import solo
from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.corpus.propose import propose
from persian_tui.store import Store
from persian_tui.tui.dialogs.text_prompt import TextPrompt
from persian_tui.tui.screens.author import AuthorScreen
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.screens.candidates import PROPOSE_BATCH, CandidatesScreen
from persian_tui.tui.widgets.lines_view import LinesView

SIZE = (120, 40)


@pytest.fixture
def db(tmp_path) -> Path:
    """The themed corpus with three candidates proposed."""
    root = copy_mini(tmp_path)
    write_themed_poems(root)
    path = tmp_path / "candidates.db"
    with Store(path) as s:
        import_corpus(s, root)
        propose(s, solo("boss"), 3, seed=1)
    return path


def rows(screen) -> list[str]:
    ol = screen.query_one("#cand-list", OptionList)
    return [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]


def header(screen) -> str:
    return str(screen.query_one("#cand-header").render())


async def test_the_queue_shows_provenance_and_reasons_and_accepts(db):
    app = make_app(db, annotator="boss")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "C", CandidatesScreen)
        await settle(pilot)
        assert [r.split()[0] for r in rows(screen)] == ["#1", "#2", "#3"]
        assert "3 proposed, 0 accepted, 0 rejected · acceptance —" in header(screen)
        detail = screen.query_one("#cand-detail", LinesView).text_lines
        assert sum("https://ganjoor.net/" in line for line in detail) == 4
        assert any(line.startswith("baseline") and "TF-IDF centroid picks" in line for line in detail)
        assert any(line.startswith("close") for line in detail)
        await pilot.press("a")
        await settle(pilot)
        assert [r.split()[0] for r in rows(screen)] == ["#2", "#3"]
        assert "2 proposed, 1 accepted, 0 rejected · acceptance 100.0%" in header(screen)
        with Store(db) as s:
            uid = s.candidates.get(1).question_uid
            q = s.questions.get_question(uid)
            assert (q.origin, q.status, q.author) == ("fresh", "draft", "boss")
        assert any(uid in n for n in notices(app))


async def test_reject_asks_for_a_reason_and_edit_opens_the_draft(db):
    app = make_app(db, annotator="boss")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "C", CandidatesScreen)
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, TextPrompt)
        await pilot.press("enter")  # no reason: refused, the prompt stays
        await settle(pilot)
        assert isinstance(app.screen, TextPrompt)
        app.screen.query_one("#prompt-input", Input).value = "the three are not close"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen and "acceptance 0.0%" in header(screen)
        await pilot.press("e")  # candidate 2: accepted, and the draft opens in the editor
        await wait_for(pilot, lambda: isinstance(app.screen, AuthorScreen), "the editor")
        with Store(db) as s:
            assert app.screen.uid == s.candidates.get(2).question_uid
            assert s.candidates.get(1).reason == "the three are not close"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("s")  # proposed -> accepted
        await settle(pilot)
        assert [r.split()[:2] for r in rows(screen)] == [["#2", "accepted"]]
        await pilot.press("s", "s")  # rejected, then all
        await settle(pilot)
        assert [r.split()[0] for r in rows(screen)] == ["#1", "#2", "#3"]


async def test_propose_runs_in_the_background(db):
    app = make_app(db, annotator="boss")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "C", CandidatesScreen)
        await settle(pilot)
        await pilot.press("P")
        await wait_for(pilot, lambda: not screen.proposing, "the proposal")
        await settle(pilot)
        with Store(db) as s:
            made = len(s.candidates.candidates())
        assert 3 < made <= 3 + PROPOSE_BATCH and len(rows(screen)) == made
        assert any("candidate(s) proposed" in n for n in notices(app))


async def test_only_admins_open_the_queue(db):
    with Store(db) as s:
        s.users.add("boss", "admin")
        s.users.add("sara", "reviewer")
    app = make_app(db, annotator="sara")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        assert isinstance(app.screen, BankScreen)
        await pilot.press("C")
        await settle(pilot)
        assert isinstance(app.screen, BankScreen)
        from persian_tui.tui.commands import ScreenCommands

        assert "Candidates" not in [c[0] for c in ScreenCommands(app.screen)._commands()]

"""Recall in the app: a recall run launched from the runs form (choose refused for words in the form's
error lines), the report's Memory tab, each couplet's recall in the bank's detail for reviewers and
admins, never for annotators (refused in the core too)."""

from __future__ import annotations

import pytest
from factories import add_run, recall_bank, recall_script
from llm_server import LLMServer
from textual.widgets import DataTable, TabbedContent
from tui_helpers import bank_loaded, make_app, notices, open_screen, settle, until, wait_for

from persian_tui.access import AccessDenied, acting
from persian_tui.store import Store
from persian_tui.tui.dialogs.run_form import RunForm
from persian_tui.tui.report.question import HardQuestionScreen
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.screens.label import LabelScreen
from persian_tui.tui.screens.report import ReportScreen
from persian_tui.tui.screens.runs import RunsScreen
from persian_tui.tui.widgets.couplets import QuestionView

SIZE = (120, 40)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "memory.db"
    with Store(path) as store:
        texts = recall_bank(store, tmp_path)
        memory = {texts[("r-000", 1)][0]: texts[("r-000", 1)][1]}
        keys = {q.uid: q.key for q in store.questions.questions()}
        uids = sorted(keys)
        add_run(store, "model-a", [keys[u] for u in uids], uids=uids)
    return path, memory


async def launch_recall(pilot, url: str, **values) -> RunForm:
    await pilot.press("n")
    await pilot.pause()
    form = pilot.app.screen
    assert isinstance(form, RunForm)
    for field, value in {"kind": "recall", "model": "model-a", "base_url": url, **values}.items():
        form.query_one(f"#{field}").value = value
    await pilot.pause()
    await pilot.press("ctrl+s")
    await pilot.pause()
    return form


async def test_a_recall_run_from_the_form_then_the_memory_tab(db):
    path, memory = db
    app = make_app(path)
    with LLMServer(recall_script(memory)) as server:
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_screen(pilot, "m", RunsScreen)
            form = await launch_recall(pilot, server.url, cue="words", format="choose")
            assert app.screen is form and "choose is not for cue words" in str(
                form.query_one("#run-form-errors").render())
            assert form.query_one("#row-cue").display and not form.query_one("#row-strategy").display
            form.query_one("#format").value = "complete"
            await pilot.pause()
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.screen is screen
            await settle(pilot)
            await until(pilot, lambda: str(screen.query_one("#runs-table", DataTable).get_cell("2", "status"))
                        == "done", "the recall run done")
            assert str(screen.query_one("#runs-table", DataTable).get_cell("2", "kind")) == "recall"
            assert screen.selected_id == 2
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is screen and "run 2 is a recall run" in notices(app)[-1]
            await pilot.press("escape")
            await pilot.pause()
            report = ReportScreen()
            app.push_screen(report)
            await settle(pilot)
            await wait_for(pilot, lambda: report.report is not None, "the report")
            await pilot.press("8")
            await pilot.pause()
            assert report.query_one(TabbedContent).active == "memory"
            runs = report.query_one("#memory-runs", DataTable)
            row = [str(c) for c in runs.get_row_at(0)]
            assert row[:4] == ["#2", "model-a", "words", "complete"] and row[4].strip() == "16"
            assert not report.query_one("#memory-chance").display  # no choose run
            split = report.query_one("#memory-split", DataTable)
            assert split.row_count == 1 and str(split.get_row_at(0)[4]).strip() == "1"
            await pilot.press("7")  # items: the question opens with each couplet's recall
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, HardQuestionScreen)
            shown = app.screen.query_one(QuestionView).text_lines
            assert any(t.startswith("recall") and "models" in t for t in shown), shown
    with Store(path) as store:
        run = store.runs.get_run(2)
        assert run.kind == "recall" and run.params["cue"] == "words" and len(store.probes.probes(2)) == 16


async def test_each_couplets_recall_shows_to_admins_never_to_annotators(db, tmp_path):
    path, memory = db
    with LLMServer(recall_script(memory)) as server:
        app = make_app(path)
        async with app.run_test(size=SIZE) as pilot:
            await open_screen(pilot, "m", RunsScreen)
            await launch_recall(pilot, server.url)
            await settle(pilot)
            await pilot.press("escape")
            await pilot.pause()
            bank = await bank_loaded(pilot)
            await wait_for(pilot, lambda: any("recall" in t for t in bank.query_one(QuestionView).text_lines),
                           "the recall line")
            line = next(t for t in bank.query_one(QuestionView).text_lines if t.startswith("recall"))
            assert "1:1/1" in line and "2:0/1" in line
    with Store(path) as store:
        store.users.add("boss", "admin")
        store.users.add("ali", "annotator")
        with pytest.raises(AccessDenied):
            acting(store, "ali").couplet_recall(store, "r-000")
        assert acting(store, "boss").couplet_recall(store, "r-000")[1] == (1, 1)
    app = make_app(path, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LabelScreen), "the labelling queue")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, BankScreen), "the bank")
        lines = pilot.app.screen.query_one(QuestionView).text_lines
        assert lines and not any(t.startswith("recall") for t in lines)


async def test_a_choose_run_is_read_against_chance_in_the_memory_tab(db):
    import asyncio

    from llm_server import chat

    from persian_tui.runs import RecallRunSpec, create_recall_run, execute_recall_run

    path, _ = db
    with LLMServer(lambda body, n: chat("Answer: 2")) as server, Store(path) as store:
        run, _ = create_recall_run(store, RecallRunSpec(base_url=server.url, model="model-a", format="choose",
                                                        max_retries=0))
        await asyncio.to_thread(asyncio.run, execute_recall_run(path, run.id, overrides={"base_url": server.url}))
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        report = ReportScreen()
        app.push_screen(report)
        await settle(pilot)
        await wait_for(pilot, lambda: report.report is not None, "the report")
        await pilot.press("8")
        await pilot.pause()
        chance = report.query_one("#memory-chance", DataTable)
        assert report.query_one("#memory-chance").display and chance.row_count == 1
        row = [str(c).strip() for c in chance.get_row_at(0)]
        assert row[0] == f"#{run.id}" and row[5] == "25.0%"
        # the guesses make no per-couplet claim
        assert report.query_one("#memory-couplets", DataTable).row_count == 0

"""Recall in the app: a recall run launched from the runs form (choose refused for words in the form's
error lines), the report's Memory tab, each couplet's recall in the bank's detail for reviewers and
admins, never for annotators (refused in the core too)."""

from __future__ import annotations

import pytest
from factories import add_run, recall_bank, recall_script
from llm_server import LLMServer
from textual.widgets import DataTable, TabbedContent
from tui_helpers import bank_loaded, make_app, open_screen, settle, until, wait_for

from persian_tui.access import AccessDenied, acting
from persian_tui.store import Store
from persian_tui.tui.dialogs.run_form import RunForm
from persian_tui.tui.report.question import HardQuestionScreen
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.screens.label import LabelScreen
from persian_tui.tui.screens.report import ReportScreen
from persian_tui.tui.screens.run_probes import RunProbesScreen, probe_lines
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
            probes = app.screen
            assert isinstance(probes, RunProbesScreen)
            await wait_for(pilot, lambda: probes.run is not None, "the run's probes")
            await settle(pilot)
            assert len(probes.shown) == 16 and probes.shown[0] == "r-000/1"
            head = str(probes.query_one("#rd-head").render())
            assert "cue words · format complete" in head and "complete 1 (6%)" in head, head
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen
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


async def test_a_recall_runs_probes_list_each_couplet_for_reviewers_never_annotators(db, tmp_path):
    """Enter on a recall run lists its probes: per couplet its cue, format, score, CER and reply,
    Persian shown right to left (bidi.block, as the run detail shows replies); filters by score;
    annotators are refused, in the core and on the runs screen."""
    from persian_tui import bidi
    from persian_tui.bidi import Mode

    path, memory = db
    with LLMServer(recall_script(memory)) as server:
        app = make_app(path)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_screen(pilot, "m", RunsScreen)
            await launch_recall(pilot, server.url)
            await until(pilot, lambda: str(screen.query_one("#runs-table", DataTable).get_cell("2", "status"))
                        == "done", "the recall run done")
            await pilot.press("enter")
            probes = app.screen
            assert isinstance(probes, RunProbesScreen)
            await wait_for(pilot, lambda: probes.run is not None, "the run's probes")
            await settle(pilot)
            table = probes.query_one("#rd-table", DataTable)
            assert [str(c) for c in table.get_row_at(0)] == ["r-000", "1", "complete", "0.00", "ok"]
            shown = probes.text_lines
            first = probes.probes[0]
            width = probes.query_one("#rd-view").size.width
            assert [t for t in bidi.block(first.gold, width, probes.mode) if t.strip()][0] in shown
            assert any("format" in t and "complete" in t for t in shown)
            assert any(t.startswith("score") and "complete" in t for t in shown)
            assert any(t.startswith("CER") and "0.000" in t for t in shown)
            await pilot.press("w")  # not recalled
            await settle(pilot)
            assert "r-000/1" not in probes.shown and len(probes.shown) == 15
            await pilot.press("c")
            await settle(pilot)
            assert probes.shown == ["r-000/1"]
            await pilot.press("down", "a")
            await settle(pilot)
            assert len(probes.shown) == 16
    lines = [line.text for line in probe_lines(probes.run, first, 60, Mode("terminal"))]
    assert first.gold in "\n".join(lines)  # a bidi terminal gets the text in logical order
    with Store(path) as store:
        store.users.add("boss", "admin")
        store.users.add("rita", "reviewer")
        store.users.add("ali", "annotator")
        with pytest.raises(AccessDenied):
            acting(store, "ali").run_probes(store, 2)
        assert len(acting(store, "rita").run_probes(store, 2)) == 16
    app = make_app(path, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LabelScreen), "the labelling queue")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, BankScreen), "the bank")
        refused = RunProbesScreen(2)  # (the runs screen is not theirs; the screen asks the core)
        await pilot.app.push_screen(refused)
        await settle(pilot)
        head = str(refused.query_one("#rd-head").render())
        assert head.startswith("run 2: ") and "ali" in head and refused.probes == [] and refused.shown == []


def test_the_probes_screen_at_80x24(tmp_path, snap_compare):
    """A recall run's probes at 80x24 (tests/tui/__snapshots__/test_memory/): the table, the
    first probe's cue, gold and reply read right to left, its footer with "? Help"."""
    from persian_tui.models.recall import Probe
    from persian_tui.runs.recall import probe_couplets

    path = tmp_path / "probes.db"
    with Store(path) as store:
        recall_bank(store, tmp_path)
        run = store.runs.create_run("recall", "model-a", {"cue": "first", "format": "complete"}, total=16,
                                    status="done")
        couplets, _ = probe_couplets(store, store.questions.questions())
        rows = []
        for n, c in enumerate(couplets):
            reply = c.second if n % 3 == 0 else c.second[:-3] if n % 3 == 1 else "نمی‌دانم"
            score = ("complete", 0.0) if n % 3 == 0 else ("partial", 0.12) if n % 3 == 1 else ("none", 0.9)
            rows.append(Probe(c.uid, c.position, gold=c.second, cue=f"{c.poet or 'نامعلوم'}: {c.first}", status="ok",
                              poet=c.poet, poem=c.poem, couplet=c.couplet, reply=reply, score=score[0],
                              cer=score[1], created_at="2026-01-02T03:04:05Z"))
        store.probes.save_probes(run.id, rows)
        run_id = run.id

    async def reach(pilot):
        await bank_loaded(pilot)
        screen = RunProbesScreen(run_id)
        await pilot.app.push_screen(screen)
        await wait_for(pilot, lambda: screen.run is not None, "the probes")
        await settle(pilot)

    assert snap_compare(make_app(path, db_label="probes.db"), terminal_size=(80, 24), run_before=reach)


async def test_enter_on_a_corpus_paraphrase_run_says_where_its_prose_goes(db):
    path, _ = db
    with Store(path) as store:
        run = store.runs.create_run("paraphrase", "poet", {"corpus": True, "uids": [], "couplets": []},
                                    total=0, status="done")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "m", RunsScreen)
        await settle(pilot)
        assert screen.selected_id == run.id
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and f"corpus propose --count N --paraphrases {run.id}" in app.notices[-1]

"""The report screen, driven with Pilot over a fixed database; one SVG snapshot of the
leaderboard (table and chart)."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import couplets, make_question
from textual.widgets import DataTable, Input, Select, TabbedContent
from tui_helpers import make_app, notices, settle

from persian_tui import bidi
from persian_tui.display import signed_interval
from persian_tui.models import Prediction
from persian_tui.store import Store
from persian_tui.tui.report.charts import Bar, LeaderChart, PositionChart, tick_labels
from persian_tui.tui.report.groups import RunGroups, group_lines
from persian_tui.tui.report.question import HardQuestionScreen
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.screens.report import ReportScreen

SIZE = (120, 40)
N = 20
CATEGORIES = ("عرفانی", "اخلاقی")
POETS = ("حافظ", "سعدی")


def key_of(i: int) -> int:
    return i % 4 + 1


def wrong_of(i: int) -> int:
    return key_of(i) % 4 + 1


def answers(right: int, invalid: int = 0) -> list[Prediction]:
    """Right on the first `right` questions, then `invalid` unparseable answers, then wrong."""
    out = []
    for i in range(N):
        uid = f"q-{i:03d}"
        if i < right:
            out.append(Prediction(uid, key_of(i), "ok"))
        elif i < right + invalid:
            out.append(Prediction(uid, None, "invalid", raw_output="no idea"))
        else:
            out.append(Prediction(uid, wrong_of(i), "ok"))
    return out


def fill(store: Store) -> None:
    store.questions.add_questions([make_question(f"q-{i:03d}", couplets=couplets(i), key=key_of(i),
                                                 category=CATEGORIES[i % 2], poet=POETS[i % 2],
                                                 source_name="fixture", source_id=str(i + 1))
                                   for i in range(N)])
    # created in an order that is not the accuracy order
    store.runs.create_run("llm", "acme/model-c", {}, status="done", total=N, predictions=answers(7, invalid=2))
    store.runs.create_run("llm", "acme/model-a", {}, status="done", total=N, predictions=answers(17))
    store.runs.create_run("llm", "acme/model-b", {}, status="done", total=N, predictions=answers(12))


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "report.db"
    with Store(path) as store:
        fill(store)
    return path


async def open_report(pilot, **kw) -> ReportScreen:
    """Push the report screen and wait for its worker and the tables it fills."""
    await pilot.pause()
    screen = ReportScreen(**kw)
    pilot.app.push_screen(screen)
    await pilot.pause()
    await settle(pilot)
    assert pilot.app.screen is screen
    return screen


def rows(table: DataTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def headers(table: DataTable) -> list[str]:
    return [str(c.label) for c in table.columns.values()]


# ------------------------------------------------------------------ leaderboard


async def test_leaderboard_is_in_accuracy_order(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        table = screen.query_one("#lb-table", DataTable)
        got = rows(table)
        assert [r[2] for r in got] == ["acme/model-a", "acme/model-b", "acme/model-c"]
        assert [r[0] for r in got] == ["1", "2", "3"]
        assert [r[1] for r in got] == ["2", "3", "1"]  # run ids
        assert [r[3] for r in got] == ["85.0%", "60.0%", "35.0%"]
        assert [r[4] for r in got] == ["17/20", "12/20", "7/20"]
        assert got[2][8] == "38.9%"  # model-c: 7 right of 18 usable answers
        assert got[2][9] == "2 (10%)"  # invalid answers of model-c
        assert got[0][6].count("–") == 1  # the bootstrap rank interval
        low, high = got[0][5].split("–")
        assert float(low) < 85 < float(high)
        head = str(screen.query_one("#report-head").render())
        assert "3 run(s) on 20 shared question(s)" in head and "computing" not in head
        note = str(screen.query_one("#lb-note").render())
        assert "every keyed question" in note and "share a rank" in note and "95 %" in note
        assert "majority-key baseline" in note
        chart = screen.query_one(LeaderChart)
        assert [round(b.value) for b in chart.bars] == [85, 60, 35]
        assert all(b.low < b.value < b.high for b in chart.bars)
        assert chart.baseline is not None  # the majority-key line
        assert "clustered by source" in str(screen.query_one("#lb-clusters").render())
        assert screen.focused is table


async def test_runs_on_different_questions_rank_by_whole_set_accuracy(db):
    """A run asked only some of the questions: the table gains the whole-set columns, the chart
    plots that figure, and the note says why."""
    with Store(db) as store:  # model-d answered the first 10 questions only, 8 of them right
        store.runs.create_run("llm", "acme/model-d", {}, status="done", total=10, predictions=answers(8)[:10])
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        table = screen.query_one("#lb-table", DataTable)
        assert headers(table)[6:8] == ["whole set", "95 %"]
        got = {r[2]: r for r in rows(table)}
        assert got["acme/model-a"][6] == "85.0%"  # answered every question: its accuracy
        assert got["acme/model-d"][3] == "80.0%" and got["acme/model-d"][7].count("–") == 1
        note = str(screen.query_one("#lb-note").render())
        assert "answered different questions" in note and "whole-set accuracy" in note
        chart = screen.query_one(LeaderChart)
        whole = [float(r[6].rstrip("%")) for r in rows(table)]
        assert [round(b.value, 1) for b in chart.bars] == whole == sorted(whole, reverse=True)


async def test_tabs_switch_with_digits(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        tabs = screen.query_one(TabbedContent)
        for key, pane, focus in (("2", "pairs", "pairs-table"), ("3", "breakdowns", "bd-table"),
                                 ("4", "behaviour", "bh-run"), ("5", "hardest", "hard-table"),
                                 ("6", "human", "human-table"), ("7", "items", "items-table"),
                                 ("8", "memory", "memory-runs"),
                                 ("1", "leaderboard", "lb-table")):
            await pilot.press(key)
            await pilot.pause()
            assert tabs.active == pane
            assert screen.focused is not None and screen.focused.id == focus
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BankScreen)


async def test_pairs_and_groups(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        await pilot.press("2")
        got = rows(screen.query_one("#pairs-table", DataTable))
        assert [(r[0], r[1]) for r in got] == [("2 model-a", "3 model-b"), ("2 model-a", "1 model-c"),
                                               ("3 model-b", "1 model-c")]
        a_vs_c = got[1]
        assert a_vs_c[2:5] == ["20", "10", "0"]  # both answered; only A / only C got right
        assert a_vs_c[7] == "+50.0" and a_vs_c[-1] == "differ"
        low, high = a_vs_c[8].replace("−", "-").split("…")
        assert 0 < float(low) < 50 <= float(high)  # Tango's interval excludes 0, as p < 0.05 does
        groups = screen.query_one(RunGroups)  # the letters: a run may hold several
        assert groups.groups and groups.groups[0][0] == "2 model-a" and groups.labels[0] == "a"
        assert {r for g in groups.groups for r in g} == {"2 model-a", "3 model-b", "1 model-c"}
        assert not any("2 model-a" in g and "1 model-c" in g for g in groups.groups)  # they differ
        assert "not evidence that they are equal" in groups.text.replace("\n", " ")


async def test_breakdown_select_changes_the_table(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        await pilot.press("3")
        table = screen.query_one("#bd-table", DataTable)
        shown = [bidi.display_line(c, 18, bidi.APP) for c in CATEGORIES]
        cols = headers(table)
        assert cols[:2] == ["#", "run"]
        assert sorted(cols[2:]) == sorted(f"{c} (10)" for c in shown)  # Persian, in display order
        assert rows(table)[0][1] == "2 model-a"
        screen.query_one("#bd-dimension", Select).value = "difficulty"
        await pilot.pause()
        cols = headers(table)
        assert [c.split(" (")[0] for c in cols[2:]] == ["easy", "medium", "hard", "very hard"][: len(cols) - 2]
        assert "difficulty tier" in str(screen.query_one("#bd-help").render())
        await pilot.press("d")  # next dimension: back to category
        await pilot.pause()
        assert screen.query_one("#bd-dimension", Select).value == "category"
        assert len(headers(table)) == 4


async def test_breakdowns_in_terminal_mode_keep_one_value_per_row(db):
    app = make_app(db, "terminal")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        await pilot.press("3")
        table = screen.query_one("#bd-table", DataTable)
        # a bidi terminal reorders whole rows: one Persian value per row, logical text
        assert headers(table) == ["value", "questions", "2 model-a", "3 model-b", "1 model-c"]
        assert sorted(r[0] for r in rows(table)) == sorted(CATEGORIES)
        assert all(r[1] == "10" for r in rows(table))


async def test_behaviour_follows_the_selected_run(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        await pilot.press("4")
        chart = screen.query_one(PositionChart)
        assert sum(chart.chosen) == sum(chart.keys) == N  # model-a: every answer valid
        confusion = rows(screen.query_one("#bh-confusion", DataTable))
        assert len(confusion) == 4 and sum(int(x) for r in confusion for x in r[1:]) == N
        screen.query_one("#bh-run", Select).value = 1  # model-c, two invalid answers
        await pilot.pause()
        assert sum(chart.chosen) == N - 2
        confusion = rows(screen.query_one("#bh-confusion", DataTable))
        assert sum(int(r[5]) for r in confusion) == 2  # the invalid column
        agreement = screen.query_one("#bh-agreement", DataTable)
        assert agreement.row_count == 3 and headers(agreement)[1:] == ["2", "3", "1"]


async def test_hardest_opens_the_question(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        await pilot.press("5")
        table = screen.query_one("#hard-table", DataTable)
        first = rows(table)[0]
        assert first[0] == "q-017 (18)" and first[1] == "0/3"  # the uid with its source id; solved by no run
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, HardQuestionScreen)
        assert "q-017" in app.screen.note
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_human_baseline_when_labels_exist(db):
    with Store(db) as store:
        for i in range(10):
            store.labels.add_label(f"q-{i:03d}", "sara", key_of(i) if i < 9 else wrong_of(i))
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        await pilot.press("6")
        got = rows(screen.query_one("#human-table", DataTable))
        assert got[0][:4] == ["annotator", "sara", "90.0%", "9/10"]
        assert [r[1] for r in got[1:]] == ["2 model-a", "3 model-b", "1 model-c"]


async def test_no_labels_says_so(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        assert "No annotator labels" in str(screen.query_one("#human-note").render())


# ------------------------------------------------------------------ recompute, exclude, export


async def test_recompute_sees_a_new_run_and_x_leaves_a_run_out(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        with Store(db) as store:  # another process finishes a run meanwhile
            store.runs.create_run("llm", "acme/model-d", {}, status="done", total=N, predictions=answers(20))
        await pilot.press("r")
        await settle(pilot)
        table = screen.query_one("#lb-table", DataTable)
        assert rows(table)[0][2] == "acme/model-d" and table.row_count == 4
        assert table.cursor_row == 1  # still on model-a, now second
        await pilot.press("up", "x")  # leave model-d out
        await settle(pilot)
        assert [r[2] for r in rows(table)] == ["acme/model-a", "acme/model-b", "acme/model-c"]
        assert "1 run(s) excluded" in str(screen.query_one("#report-head").render())
        await pilot.press("a")
        await settle(pilot)
        assert table.row_count == 4


async def test_export_writes_the_files(db, tmp_path):
    out = tmp_path / "out"
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await open_report(pilot, export_dir=out)
        await pilot.press("e")  # asks for the folder, this one filled in
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert (out / "report.md").is_file() and (out / "leaderboard.png").is_file()
        assert (out / "report.json").is_file()
        assert any("report written to" in n for n in notices(app))


async def test_export_asks_the_folder_and_defaults_beside_the_database(db, tmp_path, monkeypatch):
    """Not the working directory: the prompt offers exports/report beside the database; a
    relative folder typed is taken beside the database too; the next prompt offers it again."""
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await open_report(pilot)
        await pilot.press("e")
        await settle(pilot)
        field = app.screen.query_one(Input)
        assert field.value == str(db.resolve().parent / "exports" / "report")
        field.value = "mine"
        await pilot.press("enter")
        await settle(pilot)
        assert (db.parent / "mine" / "report.md").is_file()
        await pilot.press("e")
        await settle(pilot)
        assert app.screen.query_one(Input).value == str(db.resolve().parent / "mine")
    assert not (elsewhere / "exports").exists()


async def test_a_reviewer_exports_only_under_the_exports_folder_and_changes_no_shared_setting(db, tmp_path):
    """Through the browser front the app writes as the server's account: a reviewer's export
    goes under the database's exports/ folder only (a folder elsewhere, or `..` out of it, is
    refused in one line and nothing is written), and choosing a folder there is not kept as the
    shared setting the next prompt of everyone offers."""
    from persian_tui.tui.screens.report import EXPORT_SETTING

    with Store(db) as s:
        s.users.add("boss", "admin")
        s.users.add("sara", "reviewer")
    elsewhere = tmp_path / "elsewhere"
    app = make_app(db, annotator="sara")
    async with app.run_test(size=SIZE) as pilot:
        await open_report(pilot)
        for folder in (str(elsewhere), "exports/../outside"):
            await pilot.press("e")
            await settle(pilot)
            app.screen.query_one(Input).value = folder
            await pilot.press("enter")
            await settle(pilot)
            assert notices(app)[-1].startswith("sara is a reviewer: an export goes under ")
            assert "\n" not in notices(app)[-1]
        assert not elsewhere.exists() and not (db.parent / "outside").exists()
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one(Input).value = "exports/sara"
        await pilot.press("enter")
        await settle(pilot)
        assert (db.parent / "exports" / "sara" / "report.md").is_file()
    with Store(db) as s:
        assert s.labels.get_setting(EXPORT_SETTING) is None


async def test_question_set_switch(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        await pilot.press("c")  # ready: the fixture's questions are all ready
        await settle(pilot)
        assert screen.questions == "ready" and screen.report.questions == N
        await pilot.press("c")  # curated: none
        await settle(pilot)
        assert screen.query_one(TabbedContent).display is False
        message = str(screen.query_one("#empty-message").render())
        assert "set curated (curated only) has no question with a key" in message
        assert screen.query_one("#empty-runs").display is False


# ------------------------------------------------------------------ empty states


async def test_empty_database_shows_a_message(tmp_path):
    path = tmp_path / "empty.db"
    Store(path).close()
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        assert screen.query_one(TabbedContent).display is False
        assert "No finished runs" in str(screen.query_one("#empty-message").render())
        await pilot.press("2", "e")  # neither breaks anything
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BankScreen)


async def test_runs_without_shared_questions(tmp_path):
    path = tmp_path / "disjoint.db"
    with Store(path) as store:
        store.questions.add_questions([make_question(f"q-{i:03d}", couplets=couplets(i), key=key_of(i))
                                       for i in range(4)])
        store.runs.create_run("llm", "first-half", {}, status="done",
                              predictions=[Prediction(f"q-{i:03d}", key_of(i), "ok") for i in (0, 1)])
        store.runs.create_run("llm", "second-half", {}, status="done",
                              predictions=[Prediction(f"q-{i:03d}", key_of(i), "ok") for i in (2, 3)])
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        assert "share no question" in str(screen.query_one("#empty-message").render())
        runs = screen.query_one("#empty-runs", DataTable)
        assert [r[1] for r in rows(runs)] == ["first-half", "second-half"]
        assert screen.focused is runs
        await pilot.press("x")  # leave the highlighted run out: the other one is reported
        await settle(pilot)
        assert screen.query_one(TabbedContent).display is True
        assert [r[2] for r in rows(screen.query_one("#lb-table", DataTable))] == ["second-half"]


# ------------------------------------------------------------------ pure helpers


def test_tick_labels_use_names_only_when_they_fit():
    bars = [Bar(i, f"model-{i}", 50.0, 40.0, 60.0) for i in range(1, 4)]
    assert tick_labels(bars, 100) == ["model-1", "model-2", "model-3"]
    assert tick_labels(bars * 10, 100) == [str(b.rank) for b in bars * 10]


def test_group_lines_never_split_a_run_name():
    lines = group_lines("title", [[f"{i} some-model-{i}" for i in range(12)]], 40)
    assert lines[0] == "title" and lines[1].startswith("  1. 0 some-model-0,")
    assert all(len(line) <= 40 for line in lines)
    names = " ".join(line[5:] for line in lines[1:]).replace(",", " ").split()  # after "  1. "
    assert names == [w for i in range(12) for w in (str(i), f"some-model-{i}")]


def test_signed_interval_uses_a_real_minus():
    assert signed_interval(-0.051, 0.256) == "−5.1…+25.6"


async def test_items_tab_sorted_by_flag_severity(db):
    """Six runs, and every one picks the same wrong option on q-017..q-019 (6 to 0 against the key:
    binomial p 0.016): suspect_key, listed first, with the evidence; Enter shows the question and why."""
    with Store(db) as store:
        for model, right in (("acme/model-d", 17), ("acme/model-e", 12), ("acme/model-f", 7)):
            store.runs.create_run("llm", model, {}, status="done", total=N, predictions=answers(right))
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        await pilot.press("7")
        await pilot.pause()
        table = screen.query_one("#items-table", DataTable)
        assert screen.focused is table and table.row_count == N
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [r[0] for r in rows[:3]] == ["q-017 (18)", "q-018 (19)", "q-019 (20)"]
        assert all(r[1].startswith("suspect_key") for r in rows[:3]) and "suspect_key" not in rows[3][1]
        assert rows[0][5].startswith("6 of 6 runs chose")
        note = str(screen.query_one("#items-note").render())
        assert f"{N} keyed question(s)" in note and "3 suspect_key" in note and "0 weak_distractor" in note
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, HardQuestionScreen)
        assert "q-017: suspect_key: 6 of 6 runs chose" in str(app.screen.query_one("#hq-note").render())


# ------------------------------------------------------------------ snapshot


def test_leaderboard_snapshot(db, snap_compare):
    async def run_before(pilot) -> None:
        await open_report(pilot)

    assert snap_compare(make_app(db), terminal_size=SIZE, run_before=run_before)


# ------------------------------------------------------------------ the worker


async def test_computing_indicator_while_the_worker_runs(db, monkeypatch):
    import threading

    from persian_tui.reports import figures as core

    release = threading.Event()
    real = core.build_report

    def slow(*args, **kw):
        release.wait(10)
        return real(*args, **kw)

    monkeypatch.setattr(core, "build_report", slow)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = ReportScreen()
        app.push_screen(screen)
        await pilot.pause()
        assert "computing…" in str(screen.query_one("#report-head").render())
        assert screen.query_one(TabbedContent).loading
        release.set()
        await settle(pilot)
        assert "computing…" not in str(screen.query_one("#report-head").render())
        assert not screen.query_one(TabbedContent).loading
        assert screen.query_one("#lb-table", DataTable).row_count == 3


async def test_a_failed_computation_is_reported(db, monkeypatch):
    from persian_tui.reports import figures as core

    def broken(*args, **kw):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(core, "build_report", broken)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_report(pilot)
        assert "disk on fire" in str(screen.query_one("#empty-message").render())
        assert "failed" in str(screen.query_one("#report-head").render())
        monkeypatch.undo()
        await pilot.press("r")  # tries again
        await settle(pilot)
        assert screen.query_one(TabbedContent).display is True
        assert screen.query_one("#lb-table", DataTable).row_count == 3


async def test_report_ready_message_flow(db):
    """Message flow of the report: each computation posts one ReportReady with its
    generation; the screen shows the newest and ignores one that comes late."""
    from persian_tui.tui.messages import ReportReady

    ready: list[ReportReady] = []

    def hook(message):
        if isinstance(message, ReportReady) and not any(m is message for m in ready):
            ready.append(message)  # once (it bubbles on to the app)

    app = make_app(db)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = await open_report(pilot)
        table = screen.query_one("#lb-table", DataTable)
        assert [m.generation for m in ready] == [screen.generation]
        first = ready[0].report
        assert [r[2] for r in rows(table)] == [r.model for r in first.leaderboard]
        await pilot.press("x")  # leave the top run out: a new computation
        await settle(pilot)
        assert [m.generation for m in ready] == [screen.generation - 1, screen.generation]
        assert [r[2] for r in rows(table)] == ["acme/model-b", "acme/model-c"]
        screen.post_message(ReportReady(first, screen.generation - 1))  # a late, older result
        await settle(pilot)
        assert [r[2] for r in rows(table)] == ["acme/model-b", "acme/model-c"]

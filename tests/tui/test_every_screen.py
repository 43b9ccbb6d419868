"""What every screen shares: one accuracy rule and runs told apart everywhere; every screen answers
the same keys alike (?, q, Escape, Home/End), its footer drops no key silently, its palette
lists its actions."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import add_questions, add_run
from textual.widgets import DataTable
from tui_helpers import bank_loaded, make_app, open_screen, settle, wait_for

from persian_tui import bidi, display
from persian_tui.access import solo
from persian_tui.reports.figures import build_report
from persian_tui.store import Store
from persian_tui.tui.screens.run_detail import RunDetailScreen
from persian_tui.tui.screens.runs import RunsScreen, judgeable

SIZE = (120, 40)


@pytest.fixture
def db(tmp_path) -> Path:
    """4 keyed questions, q4 retired; run 1 right on q1, q2 and the retired q4, wrong on q3;
    run 2 (another model with the same long prefix) got only API errors."""
    path = tmp_path / "alike.db"
    with Store(path) as store:
        add_questions(store, [1, 2, 3, 4], status=["ready", "ready", "ready", "retired"])
        add_run(store, "qwen/qwen3-next-80b-a3b-instruct", [1, 2, 1, 4])
        add_run(store, "qwen/qwen3-next-80b-a3b-thinking", ["x", "x", "x", "x"])
    return path


async def test_one_accuracy_rule_on_every_screen(db):
    """Runs list, run detail, report and judge form all give run 1 2/3: the retired question
    scores no run anywhere."""
    with Store(db) as store:
        row = next(r for r in build_report(store, run_ids=[1]).leaderboard if r.run_id == 1)
        assert (row.answered_correct, row.answered) == (2, 3)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "m", RunsScreen)
        await settle(pilot)
        table = screen.query_one("#runs-table", DataTable)
        assert str(table.get_cell("1", "accuracy")) == "66.7% (2/3)"
        label = dict((v, k) for k, v in judgeable(screen.summaries.values()))["1"]
        assert "66.7% (2/3)" in label
        await pilot.press("end", "enter")  # run 1: the oldest, last
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        await wait_for(pilot, lambda: detail.run is not None, "the run's answers")
        await settle(pilot)
        assert "accuracy 66.7% (2/3)" in str(detail.query_one("#rd-head").render())


async def test_run_labels_tell_runs_apart_and_judge_form_skips_failed_runs(db):
    """Two models sharing a long prefix read differently in the runs table at 120 and 80
    columns and in the judge form (cut names end in "…" or keep their distinct end); the run
    whose every answer was an API error is not offered to judge."""
    for size in (SIZE, (80, 24)):
        app = make_app(db)
        async with app.run_test(size=size) as pilot:
            screen = await open_screen(pilot, "m", RunsScreen)
            await settle(pilot)
            table = screen.query_one("#runs-table", DataTable)
            models = [str(table.get_cell(r, "model")) for r in ("1", "2")]
            assert models[0] != models[1] and all("…" in m for m in models), models
            offered = judgeable(screen.summaries.values())
            assert [v for _, v in offered] == ["1"]
    long = ["acme/" + "x" * 40]
    assert display.distinct_cuts(long, 20) == ["acme/" + "x" * 14 + "…"]
    assert display.distinct_cuts(["ab", "ab"], 20) == ["ab", "ab"]


# ------------------------------------------------------------------ every screen alike


def full_db(path: Path) -> Path:
    """Enough for every screen to show something: keyed questions, labels, two answer runs and
    a judge run on one of them."""
    from factories import make_question, numbered_couplets

    from persian_tui.judging.verdicts import DEFAULT_TAXONOMY
    from persian_tui.models import Prediction

    with Store(path) as s:
        s.questions.add_questions([make_question(f"q-{i:02d}", couplets=numbered_couplets(i), key=i % 4 + 1,
                                                 status="ready") for i in range(30)])
        x = s.runs.create_run("llm", "acme/model-x", {}, status="done", total=30, predictions=[
            Prediction(f"q-{i:02d}", (i + i // 3) % 4 + 1, "ok", raw_output="Answer") for i in range(30)])
        s.runs.create_run("llm", "acme/model-y", {}, status="done", total=30, predictions=[
            Prediction(f"q-{i:02d}", i % 4 + 1 if i % 5 else 1, "ok") for i in range(30)])
        s.judging.ensure_error_categories(DEFAULT_TAXONOMY)
        judge = s.runs.create_run("judge", "judge-m", {}, status="done")
        for i in range(12):
            s.judging.save_judgment(judge.id, x.id, f"q-{i:02d}", status="ok", verdict="flawed",
                                    error_category="wrong_meaning", rationale="read literally")
        for who in ("ali", "sara"):
            for i in range(20):
                s.labels.add_label(f"q-{i:02d}", who, (i + (who == "ali")) % 4 + 1)
        s.conn.execute("UPDATE runs SET created_at = '2026-01-02T03:04:05Z'")
    return path


# (key from the screen below, the screen's KEYS_TITLE, whether its first focus is a text field)
PATHS = [
    (["l"], "labelling", False), (["l", "g"], "guidelines", False), (["n"], "question editor", True),
    (["n", "ctrl+o"], "corpus", True), (["a"], "adjudication", False), (["g"], "agreement", False),
    (["m"], "runs", False), (["m", "end", "enter"], "run answers", False), (["v"], "judge review", False),
    (["v", "t"], "error taxonomy", False), (["p"], "report", False), (["C"], "candidates", False),
]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_screen_answers_the_same_keys_alike(tmp_path, size):
    """On every screen: ? lists that screen's keys, q (or Escape) goes back to the screen it
    came from, the footer ends in "? Help" whenever it leaves keys out, the palette offers the
    screen's own actions."""
    from persian_tui.tui.commands import ScreenCommands
    from persian_tui.tui.keys import screen_title
    from persian_tui.tui.screens.help import HelpScreen
    from persian_tui.tui.widgets.key_bar import KeyBar

    db = full_db(tmp_path / "all.db")
    app = make_app(db, annotator="reza")
    async with app.run_test(size=size) as pilot:
        await bank_loaded(pilot)
        bank = app.screen
        for keys, title, typing in PATHS:
            below = bank
            for key in keys:
                below = app.screen
                await pilot.press(key)
                await settle(pilot)
            screen = app.screen
            assert screen is not below and screen_title(screen) == title, (keys, screen)
            if typing:  # a text field has the focus: ? and q are typed; F1 and Escape still work
                await pilot.press("f1")
            else:
                await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen) and app.screen.title_text == title, keys
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen
            bars = screen.query(KeyBar)
            footer = str(bars.first().render()) if bars else "? keys"  # a modal's hint line
            assert "? Help" in footer or "f1 Help" in footer or "? keys" in footer, (title, footer)
            commands = [c[0] for c in ScreenCommands(screen)._commands()] if False else None  # noqa: F841
            from persian_tui.tui.keys import palette_entries, screen_table
            titles = [t for t, _, _ in palette_entries(screen_table(screen))]
            assert "Back" in titles or "Close" in titles, (title, titles)
            assert len(titles) > 2 or title in ("agreement", "guidelines"), (title, titles)
            await pilot.press("escape" if typing else "q")
            await settle(pilot)
            assert app.screen is below, (title, app.screen)
            while app.screen is not bank:
                await pilot.press("escape")
                await settle(pilot)


async def test_home_and_end_move_to_the_first_and_last_row(tmp_path):
    """Home/End in the bank (which loads its rows by pages: End loads the rest) and the runs
    table."""
    from factories import keyed_questions

    from persian_tui.tui.widgets.bank_table import PAGE

    db = tmp_path / "many.db"
    with Store(db) as s:
        qs = keyed_questions(PAGE * 2 + 5)
        s.questions.add_questions(qs)
        for model in ("a", "b", "c"):
            add_run(s, model, [1, 2], uids=[q.uid for q in qs[:2]])
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        bank = await bank_loaded(pilot)
        table = bank.query_one("BankTable")
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == PAGE * 2 + 4 and table.current_uid == table.all_uids[-1]
        await pilot.press("home")
        await pilot.pause()
        assert table.cursor_row == 0
        runs = await open_screen(pilot, "m", RunsScreen)
        await settle(pilot)
        await pilot.press("end")
        assert runs.selected_id == 1
        await pilot.press("home")
        assert runs.selected_id == 3


# ------------------------------------------------------------------ 80x24 first-class


def visible_rows(screen, table) -> int:
    """Data rows of ``table`` on the screen now (clipped by every container, less the header
    and the horizontal scrollbar)."""
    geometry = screen.find_widget(table)
    seen = geometry.region.intersection(geometry.clip)
    return max(0, min(table.row_count, seen.height - table.header_height - table.scrollbar_size_horizontal))


def many_runs_db(path: Path) -> Path:
    """30 questions, 9 runs: 9 leaderboard rows, 36 pairs."""
    with Store(path) as s:
        add_questions(s, [i % 4 + 1 for i in range(30)], status=["ready"] * 30)
        for n in range(9):
            add_run(s, f"vendor/model-{n}", [(i + (i % (n + 2) == 0)) % 4 + 1 for i in range(30)])
    return path


@pytest.mark.parametrize("mode", ["app", "terminal"])
@pytest.mark.parametrize("tab,table_id,deciding", [("1", "lb-table", "accuracy"), ("2", "pairs-table", "Holm p"),
                                                   ("3", "bd-table", None), ("5", "hard-table", "solved"),
                                                   ("7", "items-table", "flags")])
async def test_report_tabs_show_eight_rows_at_80x24(tmp_path, tab, table_id, deciding, mode):
    """Every report tab with a table shows at least 8 of its rows at 80x24 in both bidi modes
    (the Pairs tab had none: its note and the groups took the whole height), its deciding
    column (the leaderboard's accuracy, the pairs' Holm p) on screen."""
    from persian_tui.tui.screens.report import ReportScreen

    app = make_app(many_runs_db(tmp_path / "runs9.db"), mode)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "p", ReportScreen)
        await wait_for(pilot, lambda: screen.report is not None, "the report")
        await pilot.press(tab)
        await settle(pilot)
        table = screen.query_one(f"#{table_id}", DataTable)
        # a bidi terminal's breakdown has a row per value (here one), the runs as columns
        wanted = min(8, table.row_count) if (mode, table_id) == ("terminal", "bd-table") else 8
        assert table.row_count >= wanted
        assert visible_rows(screen, table) >= wanted, (table_id, visible_rows(screen, table))
        assert deciding is None or column_shown(screen, table, deciding), (table_id, deciding)
        if table_id == "hard-table":  # the couplet cut at its logical end by the app, not clipped
            assert column_shown(screen, table, "first couplet")


# (path from the bank, the main table's selector)
TABLES = [([], "BankTable"), (["m"], "#runs-table"), (["m", "end", "enter"], "#rd-table"),
          (["g"], "#people"), (["v", "t"], "#tx-table")]


@pytest.mark.parametrize("keys,selector", TABLES)
async def test_main_tables_show_eight_rows_at_80x24(tmp_path, keys, selector):
    """Each screen's main table shows at least 8 rows (or all it has) at 80x24."""
    app = make_app(full_db(tmp_path / "all.db"), annotator="reza")
    async with app.run_test(size=(80, 24)) as pilot:
        await bank_loaded(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await settle(pilot)
        table = app.screen.query_one(selector, DataTable)
        assert visible_rows(app.screen, table) >= min(8, table.row_count), (selector, table.row_count)


async def test_review_at_80x24_blind_and_remembered(tmp_path):
    """At 80x24 the couplets and the judge's lines get 8+ lines each; blind mode hides the run's
    id as well as its model; the filters and blind mode come back for the same reviewer (and
    only for them) when the screen opens again."""
    from persian_tui.tui.screens.review import ReviewScreen

    db = full_db(tmp_path / "all.db")
    app = make_app(db, annotator="reza")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "v", ReviewScreen)
        await settle(pilot)
        for pane in ("#rv-answer", "#rv-judge"):
            geometry = screen.find_widget(screen.query_one(pane))
            assert geometry.region.intersection(geometry.clip).height >= 8, pane
        answer = "\\n".join(screen.query_one("#rv-answer-view").text_lines)
        assert "run 1" in answer
        await pilot.press("b", "v")  # blind, verdict filter: sound
        await settle(pilot)
        answer = "\\n".join(screen.query_one("#rv-answer-view").text_lines)
        bar = str(screen.query_one("#rv-filters").render())
        assert "acme/model-x" not in answer and "run 1" not in answer and "run 1" not in bar
        filters = screen.filters
        await pilot.press("q")
        screen = await open_screen(pilot, "v", ReviewScreen)
        await settle(pilot)
        assert screen.blind and screen.filters == filters
    app = make_app(db, annotator="sara")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "v", ReviewScreen)
        assert not screen.blind and screen.filters.verdict is None


# ------------------------------------------------------------------ poets and warnings


async def test_a_poet_is_searchable_text_and_named_once(tmp_path):
    """`حافظ` alone finds what `poet:حافظ` finds (a poet derived from a corpus link counts);
    the detail pane names a poet both stored and derived once; the editor warns once for a
    couplet another question uses (not once per way it was found)."""
    from factories import BABA, HAFEZ_1, HAFEZ_2, MINI, SAADI, dated_question
    from textual.widgets import Input

    from persian_tui.bank.search import BankSearch
    from persian_tui.corpus.ganjoor import import_corpus
    from persian_tui.tui.render import detail_lines, plain, with_derived_poets
    from persian_tui.tui.screens.author import AuthorScreen

    db = tmp_path / "poets.db"
    with Store(db) as s:
        import_corpus(s, MINI)
        q1 = dated_question("q-linked", [HAFEZ_1, SAADI, BABA, ("بیتی", "که نیست")])
        q2 = dated_question("q-named", [HAFEZ_2, SAADI, BABA, ("بیتی دیگر", "که نیست")])
        q2.options[0].poet = "حافظ"
        s.questions.add_questions([q1, q2])
        s.links.link_questions()
        search = BankSearch(s)
        assert search.uids("poet:حافظ", who=solo()) == ["q-linked", "q-named"]
        assert search.uids("حافظ", who=solo()) == search.uids("poet:حافظ", who=solo())
        q = s.questions.get_question("q-linked")  # option 1 is Hafez's by its link; the question says so too
        q.poet = "حافظ"
        linked = s.links.links(["q-linked"])["q-linked"]
        shown = "\n".join(plain(detail_lines(with_derived_poets(q, linked), 80, bidi.OFF)))
    poet_line = next(line for line in shown.split("\n") if line.startswith("poet"))
    assert poet_line.count("حافظ") == 1, poet_line
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        author = await open_screen(pilot, "n", AuthorScreen)
        for n, (m1, m2) in enumerate([SAADI, ("مصراع تازه", "که نیست"), ("مصراع دیگر", "هم نیست"),
                                      ("سومین مصراع", "نیست")], 1):
            author.query_one(f"#m1-{n}", Input).value = m1
            author.query_one(f"#m2-{n}", Input).value = m2
        await settle(pilot, seconds=0.6)
        about_1 = [w for w in author.warnings if w.startswith("couplet 1")]
        assert len(about_1) == 1, author.warnings


# ------------------------------------------------------------------ the smaller things (item 17)


def test_small_things_read_right():
    """The status line keeps "bidi MODE" at 80 columns; a field name as long as the label
    column keeps a space before its value; corpus results put the poet in its own column
    (on the right in app mode); category names read as words in the review's filter bar."""
    from persian_tui.models import CorpusCouplet
    from persian_tui.tui.render import LABEL, Line, plain
    from persian_tui.tui.screens.bank import status_line
    from persian_tui.tui.screens.corpus import result_row
    from persian_tui.tui.widgets.review_filters import value_label

    line = status_line("/home/someone/benchmarks/persian.db", 12345,
                       {"draft": 1234, "ready": 4321, "curated": 5000, "retired": 1790}, "terminal", 78)
    assert line.endswith("bidi terminal") and len(line) <= 78, line
    assert plain([Line("key problem flagged by alice", "", "judge review")]) == \
        ["judge review key problem flagged by alice"]
    assert len("judge review") == LABEL
    c = CorpusCouplet("/hafez/ghazal/sh1", 0, "الا یا ایها الساقی", "ادر کأسا", "حافظ", "hafez", "غزل ۱",
                      "Ghazal", None, None)
    row = result_row(c, 12, 40, bidi.OFF)
    assert row.startswith("حافظ ") and " │ " in row
    app_row = result_row(c, 12, 40, bidi.APP)
    assert app_row.index("│") == 41 and app_row.rstrip().endswith(bidi.display_line("حافظ", 12, bidi.APP).strip())
    assert value_label("category", "figurative_misread", [], {}, False) == "figurative misread"


async def test_note_dialog_and_corpus_footer(tmp_path):
    """The review's note dialog asks for a note (not a reason); the corpus pane's footer
    reads "1-4 Into option", not "1 Into 1  2 2  3 3  4 4"."""
    from textual.widgets import Input

    from persian_tui.tui.screens.review import ReviewScreen
    from persian_tui.tui.widgets.key_bar import KeyBar

    app = make_app(full_db(tmp_path / "all.db"), annotator="reza")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "v", ReviewScreen)
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen.query_one("#reason", Input).placeholder == "note (required)"
        await pilot.press("escape", "q")
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        app.screen.query_one("#corpus-results").focus()  # digits are typed in the search field
        await settle(pilot)
        footer = str(app.screen.query_one(KeyBar).render())
        assert "1-4 Into option" in footer and "2 2" not in footer, footer


# ------------------------------------------------------------------ snapshots at 80x24

SNAPSHOT_PATHS = [([], "bank"), *[(keys, title) for keys, title, _ in PATHS]]


@pytest.mark.parametrize("keys,title", SNAPSHOT_PATHS, ids=[t.replace(" ", "-") for _, t in SNAPSHOT_PATHS])
def test_every_screen_at_80x24(tmp_path, snap_compare, monkeypatch, keys, title):
    """Every screen at 80x24 (tests/tui/__snapshots__/test_every_screen/): its main table or text
    in view, its footer with "? Help"."""
    monkeypatch.setattr("persian_tui.tui.screens.label.monotonic", lambda: 1000.0)  # ⏱ 0:00
    db = full_db(tmp_path / "all.db")
    assert snap_compare(make_app(db, annotator="reza", db_label="all.db"), terminal_size=(80, 24),
                        run_before=lambda pilot: reach(pilot, keys, title))


@pytest.mark.parametrize("keys,title", SNAPSHOT_PATHS, ids=[t.replace(" ", "-") for _, t in SNAPSHOT_PATHS])
def test_every_screen_at_80x24_in_a_bidi_terminal(tmp_path, snap_compare, monkeypatch, keys, title):
    """Every screen at 80x24 in ``--bidi terminal`` (logical text, the terminal reorders):
    tests/tui/__snapshots__/test_every_screen/test_every_screen_at_80x24_in_a_bidi_terminal[*].svg."""
    monkeypatch.setattr("persian_tui.tui.screens.label.monotonic", lambda: 1000.0)  # ⏱ 0:00
    db = full_db(tmp_path / "all.db")
    assert snap_compare(make_app(db, "terminal", annotator="reza", db_label="all.db"), terminal_size=(80, 24),
                        run_before=lambda pilot: reach(pilot, keys, title))


async def reach(pilot, keys: list[str], title: str) -> None:
    """From the bank to the screen ``title``, every worker done and every table filled, so a
    snapshot is the same under any load."""
    await bank_loaded(pilot)
    for key in keys:
        await pilot.press(key)
        await settle(pilot)
    if title == "report":
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.report is not None, "the report")
        # and every tab filled from it (a loaded worker may post the report before the tables fill)
        tables = list(screen.query(DataTable))
        await wait_for(pilot, lambda: all(t.row_count > 0 for t in tables if t.id in ("lb-table", "pairs-table")),
                       "the leaderboard and the pairs")
        await settle(pilot, pauses=5)
    for field in pilot.app.screen.query("Input"):
        field.cursor_blink = False  # the cursor is drawn the same in every run
    await settle(pilot)
    await pilot.wait_for_scheduled_animations()
    await settle(pilot)


@pytest.mark.parametrize("keys,selector", [(["n"], "#author-form"), (["a"], "#adj-detail"),
                                           (["l"], "#label-question")])
async def test_main_text_shows_eight_lines_at_80x24(tmp_path, keys, selector):
    """The editor's form, the adjudication's question and the labelling item keep 8+ lines
    at 80x24."""
    app = make_app(full_db(tmp_path / "all.db"), annotator="reza")
    async with app.run_test(size=(80, 24)) as pilot:
        await bank_loaded(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        widget = app.screen.query_one(selector)
        geometry = app.screen.find_widget(widget)
        assert geometry.region.intersection(geometry.clip).height >= 8, selector


# ------------------------------------------------------------------ one identifier


async def test_one_identifier_on_every_screen(tmp_path):
    """A question is named the same way on every screen: its uid with its source id beside it
    (display.question_id) — the bank's table and detail, labelling, adjudication, review and
    the report's Hardest and Items tabs."""
    from tui_helpers import screen_lines

    from persian_tui.tui.screens.adjudicate import AdjudicationScreen
    from persian_tui.tui.screens.label import LabelScreen
    from persian_tui.tui.screens.report import ReportScreen
    from persian_tui.tui.screens.review import ReviewScreen

    db = full_db(tmp_path / "all.db")
    with Store(db) as s:
        s.conn.execute("UPDATE questions SET source_id = CAST(100 + CAST(substr(uid, 3) AS INTEGER) AS TEXT)")
    name = lambda uid: display.question_id(uid, str(100 + int(uid[2:])))  # noqa: E731

    def on_screen(uid: str) -> bool:
        return any(name(uid) in line for line in screen_lines(app))

    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        bank = await bank_loaded(pilot)
        table = bank.query_one("BankTable")
        assert str(table.get_cell("q-00", "id")) == name("q-00")
        assert on_screen("q-00"), "bank"
        for key, kind in (("l", LabelScreen), ("a", AdjudicationScreen), ("v", ReviewScreen)):
            screen = await open_screen(pilot, key, kind)
            await settle(pilot)
            assert screen.current is not None
            assert on_screen(screen.current.uid), kind.__name__
            await pilot.press("q" if key != "l" else "escape")
            await settle(pilot)
            while app.screen is not bank:
                await pilot.press("escape")
                await settle(pilot)
        screen = await open_screen(pilot, "p", ReportScreen)
        await wait_for(pilot, lambda: screen.report is not None, "the report")
        for tab, table_id in (("5", "hard-table"), ("7", "items-table")):
            await pilot.press(tab)
            await settle(pilot)
            table = screen.query_one(f"#{table_id}", DataTable)
            uid = table.coordinate_to_cell_key((0, 0)).row_key.value
            assert str(table.get_cell_at((0, 0))) == name(uid), table_id


# ------------------------------------------------------------------ 80x24 in both bidi modes


def column_shown(screen, table, label: str) -> bool:
    """Whether the column headed ``label`` is wholly on the screen (not scrolled or clipped off)."""
    geometry = screen.find_widget(table)
    seen = geometry.region.intersection(geometry.clip)
    room = seen.width - table.scrollbar_size_vertical
    x = 0
    for column in table.ordered_columns:
        width = column.get_render_width(table)
        if str(column.label).strip() == label:
            left = x - int(table.scroll_x)
            return left >= 0 and left + width <= room
        x += width
    raise AssertionError(f"no column {label!r}: {[str(c.label) for c in table.ordered_columns]}")


# (path from the bank, the main table, its deciding column)
DECIDING = [([], "BankTable", "status"), (["m"], "#runs-table", "acc."),
            (["m", "end", "enter"], "#rd-table", "key"), (["g"], "#people", "accuracy"),
            (["v", "t"], "#tx-table", "used"),
            (["p", "1"], "#lb-table", "accuracy"), (["p", "2"], "#pairs-table", "Holm p"),
            (["p", "5"], "#hard-table", "solved"), (["p", "7"], "#items-table", "flags")]


@pytest.mark.parametrize("mode", ["app", "terminal"])
@pytest.mark.parametrize("keys,selector,deciding", DECIDING, ids=[s for _, s, _ in DECIDING])
async def test_main_table_and_deciding_column_at_80x24(tmp_path, mode, keys, selector, deciding):
    """At 80x24, in both bidi modes, each screen's main table shows 8 rows (or all it has) and
    the column that decides (accuracy, Holm p, status, ...) is on the screen."""
    app = make_app(full_db(tmp_path / "all.db"), mode, annotator="reza")
    async with app.run_test(size=(80, 24)) as pilot:
        await bank_loaded(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
            if key == "p":
                await wait_for(pilot, lambda: app.screen.report is not None, "the report")
        await settle(pilot)
        table = app.screen.query_one(selector, DataTable)
        assert visible_rows(app.screen, table) >= min(8, table.row_count), (selector, table.row_count)
        assert column_shown(app.screen, table, deciding), (selector, deciding)


@pytest.mark.parametrize("mode", ["app", "terminal"])
@pytest.mark.parametrize("key,queue", [("a", "#adj-queue"), ("v", "#rv-queue")])
async def test_queues_show_eight_rows_at_80x24(tmp_path, mode, key, queue):
    """The adjudication and review queues show 8 questions at 80x24 in both bidi modes, beside
    (or above) the pane that shows the one chosen."""
    from textual.widgets import OptionList

    app = make_app(full_db(tmp_path / "all.db"), mode, annotator="reza")
    async with app.run_test(size=(80, 24)) as pilot:
        await bank_loaded(pilot)
        await pilot.press(key)
        await settle(pilot)
        widget = app.screen.query_one(queue, OptionList)
        geometry = app.screen.find_widget(widget)
        inside = geometry.region.intersection(geometry.clip).height - widget.styles.gutter.height
        assert min(inside, widget.option_count) >= min(8, widget.option_count), (queue, inside)
        if key == "v":  # the judge's verdict in view, its rationale below it in the same pane
            from tui_helpers import screen_lines

            assert any("verdict" in line and "flawed" in line for line in screen_lines(app)), screen_lines(app)

"""What an 80x24 terminal shows: every key in a footer or "…" with the help key, one-line
texts cut with "…" (never silently), the help wrapped and scrollable, narrow run columns."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import couplets, make_question
from textual.widgets import DataTable, Input
from tui_helpers import bank_loaded, make_app, shown, wait_for

from persian_tui.models import Prediction
from persian_tui.store import Store
from persian_tui.tui.keys import help_rows
from persian_tui.tui.screens.bank import BankScreen, status_line
from persian_tui.tui.screens.help import HelpScreen, help_body
from persian_tui.tui.screens.run_detail import row_cells
from persian_tui.tui.screens.runs import RunsScreen
from persian_tui.tui.widgets.key_bar import ELLIPSIS_ITEM, KeyBar, KeyItem, fit_keys

NARROW, WIDE = (80, 24), (120, 40)
LONG_MODEL = "organisation-with-a-long-name/model-with-an-even-longer-name-v2"


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "narrow.db"
    with Store(path) as store:
        store.questions.add_questions([make_question(f"q-{i}", couplets=couplets(i), key=i % 4 + 1) for i in range(6)])
        store.runs.create_run("paraphrase", LONG_MODEL, {}, status="done", total=6,
                              predictions=[Prediction(f"q-{i}", 1, "ok") for i in range(6)])
    return path


def bar_text(screen) -> str:
    return "\n".join(shown(screen.query_one(KeyBar)))


# ------------------------------------------------------------------ pure


def test_fit_keys_keeps_help_and_marks_what_is_left_out():
    items = [KeyItem(k, d, a) for k, d, a in (("/", "Search", "s"), ("g", "Agreement", "g"),
                                              ("v", "Review", "v"))]
    items.append(KeyItem("?", "Help", "app.help", keep=True))
    lines, more, tail = fit_keys(items, 200, tail="^p palette")
    assert lines == [items] and not more and tail
    lines, more, tail = fit_keys(items, 32)  # "/ Search  g Agreement  …  ? Help"
    assert more and not tail and lines == [[items[0], items[1], ELLIPSIS_ITEM, items[3]]]
    lines, more, _ = fit_keys(items, 22, rows=2)  # two lines hold everything
    assert not more and [i for line in lines for i in line] == items
    lines, more, _ = fit_keys(items, 3)  # nothing fits: still the marker and the help key
    assert more and [i for line in lines for i in line] == [ELLIPSIS_ITEM]


def test_status_line_fits_its_width():
    counts = {"draft": 0, "ready": 40, "curated": 0, "retired": 0}
    wide = status_line("/tmp/qs/bench.db", 40, counts, "app", 118)
    assert wide == "/tmp/qs/bench.db │ 40 questions: draft 0 · ready 40 · curated 0 · retired 0 │ bidi app"
    narrow = status_line("/tmp/qs/bench.db", 40, counts, "terminal", 78)
    assert narrow == "/tmp/qs/bench.db │ 40 questions: ready 40 │ bidi terminal"  # zeros left out
    cramped = status_line("/a/very/long/path/to/the/benchmark/database.db", 40, counts, "app", 50)
    assert len(cramped) == 50 and cramped.startswith("…") and cramped.endswith("bidi app")
    tiny = status_line("/tmp/qs/bench.db", 40, counts, "app", 20)
    assert len(tiny) <= 20 and tiny.endswith("…")


def test_help_wraps_under_its_descriptions():
    lines = str(help_body(help_rows(BankScreen.KEY_TABLE), 60)).split("\n")
    assert all(len(line) <= 60 for line in lines)
    assert any(line.startswith("L ") for line in lines)  # label this question is listed
    assert any(line.startswith(" " * 10) for line in lines)  # continuation lines indented


def test_tokens_cell_never_says_none():
    from persian_tui.models import Run

    run = Run(id=1, kind="imported", model="m", params={}, status="done", total=1, created_at="")
    q = make_question("q-1", couplets=couplets(1), key=1)
    assert row_cells(run, Prediction("q-1", 1, "ok", tokens_out=7), q)[-1] == "—/7"
    assert row_cells(run, Prediction("q-1", 1, "ok", tokens_in=3, tokens_out=7), q)[-1] == "3/7"
    assert row_cells(run, Prediction("q-1", 1, "ok"), q)[-1] == "—"


# ------------------------------------------------------------------ Pilot


async def test_bank_footer_lists_every_key_at_120_and_marks_the_rest_at_80(db):
    app = make_app(db, "app")
    async with app.run_test(size=WIDE) as pilot:
        await bank_loaded(pilot)
        text = bar_text(app.screen)
        for key in ("/ Search", "L Label this", "g Agreement", "v Review", "p Report", "b Bidi",
                    "r Reload", "? Help", "q Quit", "^p palette"):
            assert key in text, key
        assert "…" not in text
        await pilot.resize_terminal(*NARROW)
        await pilot.pause()
        await pilot.pause()
        lines = shown(app.screen.query_one(KeyBar))
        assert len(lines) == 2 and all(len(line.rstrip()) <= 80 for line in lines)
        assert lines[-1].rstrip().endswith("…  ? Help  q Quit")
        # clicking a key acts like pressing it
        await pilot.click(KeyBar, offset=(2, 0))  # "/ Search"
        await pilot.pause()
        assert isinstance(app.focused, Input) and app.focused.id == "search"


async def test_bank_texts_cut_with_an_ellipsis_at_80(db):
    app = make_app(db, "terminal", db_label="/a/long/folder/name/for/the/benchmark/narrow.db")
    async with app.run_test(size=NARROW) as pilot:
        await bank_loaded(pilot)
        status = shown(app.screen.query_one("#status-line"))[0].rstrip()
        assert status.endswith("bidi terminal") and "…" in status and len(status) <= 80
        search = app.screen.query_one("#search", Input)
        await wait_for(pilot, lambda: search.placeholder.endswith("…"), "the search hint fitted")
        assert len(search.placeholder) < search.size.width


async def test_help_fits_80x24_and_scrolls(db):
    app = make_app(db, "app")
    async with app.run_test(size=NARROW) as pilot:
        await bank_loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        box = help_screen.query_one("#help-box")
        assert box.region.bottom <= 24 and box.region.right <= 80
        hint = help_screen.query_one("#help-hint")
        assert hint.region.bottom <= box.region.bottom  # the closing hint stays visible
        scroll = help_screen.query_one("#help-scroll")
        assert scroll.max_scroll_y > 0  # more keys than rows: they scroll
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y


async def test_runs_columns_follow_the_width(db):
    app = make_app(db, "app")
    async with app.run_test(size=NARROW) as pilot:
        await bank_loaded(pilot)
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        table = screen.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()] == [
            "id", "kind", "model", "status", "done", "acc.", "inv/err"]
        assert table.virtual_size.width <= table.size.width  # no column off screen
        assert [str(c) for c in table.get_row_at(0)] == ["1", "paraphrase", "organisation-w…", "done",
                                                        "6/6", "33%", "0/0"]
        panel = shown(screen.query_one("#run-panel-figures"))[0].rstrip()
        assert panel.endswith("…")  # its hint cut with a sign
        await pilot.resize_terminal(*WIDE)
        await pilot.pause()
        await pilot.pause()
        assert "created" in [str(c.label) for c in table.columns.values()]
        assert str(table.get_row_at(0)[2]) == LONG_MODEL[:23] + "…"


async def test_name_prompt_shows_its_whole_question_at_80(db):
    from persian_tui.tui.screens.name import NameScreen

    app = make_app(db, "app", annotator=None)
    async with app.run_test(size=NARROW) as pilot:
        await bank_loaded(pilot)
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, NameScreen)
        label = app.screen.query_one("#name-title")
        box = label.parent
        assert label.region.right <= box.content_region.right  # inside the box, not under its border
        title = " ".join(line.strip() for line in shown(label))
        assert "edits and decisions):" in title  # wrapped, never cut


async def test_agreement_lists_every_pair_and_fits_80_columns(tmp_path):
    from persian_tui.tui.screens.agreement import AgreementScreen

    path = tmp_path / "agree.db"
    with Store(path) as store:
        store.questions.add_questions([make_question(f"q-{i}", couplets=couplets(i), key=1) for i in range(4)])
        for i, (a, b, c) in enumerate(((1, 1, 2), (2, 2, 2), (3, 3, 1), (4, 1, 4))):
            store.labels.add_label(f"q-{i}", "ali", a)
            store.labels.add_label(f"q-{i}", "sara", b)
            store.labels.add_label(f"q-{i}", "reza", c)
        store.labels.add_label("q-0", "nima", 1)  # one shared item, one category: kappa undefined
    app = make_app(path, "app")
    async with app.run_test(size=NARROW) as pilot:
        await bank_loaded(pilot)
        await pilot.press("g")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AgreementScreen)
        pairs = screen.query_one("#pairs", DataTable)
        got = {(str(r[0]), str(r[1])): (str(r[2]), str(r[3]))
               for r in (pairs.get_row_at(i) for i in range(pairs.row_count))}
        assert len(got) == 6  # every pair of the four annotators
        assert got[("ali", "sara")] == ("0.667", "4")  # 3 of 4 agree, chance 1/4
        assert got[("ali", "nima")] == ("—", "1")  # undefined, not 1.000
        for table in screen.query(DataTable):
            assert table.virtual_size.width <= table.size.width, table.id  # no column off screen


async def test_review_messages_wrap_at_80(tmp_path):
    from persian_tui.tui.screens.review import ReviewScreen
    from persian_tui.tui.widgets.lines_view import LinesView

    path = tmp_path / "empty.db"
    with Store(path) as store:
        store.questions.add_questions([make_question("q-1", couplets=couplets(1), key=1)])
    app = make_app(path, "terminal", annotator="reza")
    async with app.run_test(size=NARROW) as pilot:
        await bank_loaded(pilot)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        await pilot.pause()
        view = app.screen.query_one("#rv-answer-view", LinesView)
        lines = view.text_lines
        assert all(len(line) <= view.content_size.width for line in lines)
        assert "--base-url URL" in " ".join(lines)  # the whole command, wrapped


async def test_run_form_hints_end_with_an_ellipsis_at_80(db):
    from persian_tui.tui.dialogs.run_form import RunForm

    app = make_app(db, "app")
    async with app.run_test(size=NARROW) as pilot:
        await bank_loaded(pilot)
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, RunForm), "the run form")
        await pilot.pause()
        base_url = app.screen.query_one("#base_url", Input)
        assert base_url.placeholder.endswith("…") and len(base_url.placeholder) < base_url.size.width
        assert base_url.hint.startswith(base_url.placeholder[:-1])  # the same text, cut

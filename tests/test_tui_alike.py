"""Issue 21: one accuracy rule and telling runs apart on every screen; every screen answers
the same keys alike (?, q, Escape, Home/End), its footer drops no key silently, its palette
lists its actions."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import add_questions, add_run
from textual.widgets import DataTable
from tui_helpers import make_app, open_screen, settle, wait_for

from persian_tui import display
from persian_tui.eval.report import build_report
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

"""The sweep dashboard (tui/screens/sweep.py), launched from the runs screen with `w`, driven with
Pilot against the local LLM test server."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import couplets, make_question
from llm_server import Gate, LLMServer, chat
from processes import wait_until
from textual.widgets import Input, Static
from tui_helpers import make_app, open_screen, screen_lines, until

from persian_tui.store import Store
from persian_tui.tui.dialogs.common import ReasonDialog
from persian_tui.tui.screens.runs import RunsScreen
from persian_tui.tui.screens.sweep import SweepScreen

SIZE = (120, 40)
N = 6


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        store.questions.add_questions([make_question(f"q-{i:03d}", couplets=couplets(i), key=i % 4 + 1)
                                       for i in range(N)])
    return path


def spec_file(tmp_path: Path, url: str, extra: str = "") -> Path:
    path = tmp_path / "paper.toml"
    path.write_text(f'[sweep]\nname = "tui"\nquestions = "all"\nsamples = 2\n{extra}\n'
                    f'[[endpoint]]\nname = "local"\nbase_url = "{url}"\nconnections = 4\n\n'
                    '[[model]]\nname = "a"\nconnections = 2\n\n[[model]]\nname = "b"\nconnections = 2\n',
                    encoding="utf-8")
    return path


async def ask_spec(pilot, path: str) -> ReasonDialog:
    await pilot.press("w")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, ReasonDialog)
    dialog.query_one(Input).value = path
    await pilot.press("enter")
    await pilot.pause()
    return dialog


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_a_sweep_launched_from_the_runs_screen_shows_its_dashboard_and_stops_resumably(db, tmp_path):
    gate = Gate(lambda body, n: chat("1", cost=0.001), free=3)
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            runs = await open_screen(pilot, "m", RunsScreen)
            bad = spec_file(tmp_path, server.url, "sampels = 3")
            dialog = await ask_spec(pilot, str(bad))
            assert app.screen is dialog  # a bad spec keeps the dialog open, naming the field
            assert "sweep.sampels: unknown key" in text(dialog, "#reason-error")
            dialog.query_one(Input).value = ""  # (else Escape asks whether to drop what was typed)
            await pilot.press("escape")
            await pilot.pause()
            await ask_spec(pilot, str(spec_file(tmp_path, server.url)))
            screen = app.screen
            assert isinstance(screen, SweepScreen)
            await until(pilot, lambda: "3/24 rows" in text(screen, "#sweep-head"), "3 rows shown")
            await until(pilot, lambda: "local/b/zero-shot" in "\n".join(screen_lines(app)), "the runs drawn")
            assert "window" in "\n".join(screen_lines(app))  # the endpoint's line
            await pilot.press("c")  # stop: the requests in flight finish
            gate.open()
            await until(pilot, lambda: "cancelled" in text(screen, "#sweep-head"), "the sweep stopped")
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is runs
            # w with the same spec goes on with the sweep: only what is missing is asked
            await ask_spec(pilot, str(spec_file(tmp_path, server.url)))
            screen = app.screen
            await until(pilot, lambda: "done" in text(screen, "#sweep-head"), "the sweep done")
            assert "24/24 rows" in text(screen, "#sweep-head")
    with Store(db) as store:
        rows = sum(len(store.runs.predictions(r.id, samples=True)) for r in store.runs.runs())
        asked = len(server.requests)
    assert rows == 24 and asked == 24  # every (run, question, sample) asked once over both


async def test_a_spec_files_problem_goes_once_the_path_is_edited(db, tmp_path):
    """Enter checks the spec file (one line naming the field); an edit of the path clears that
    line, so it never stands under a path it is not about."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[sweep]\nname = "x"\nsampels = 3\n', encoding="utf-8")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, "m", RunsScreen)
        dialog = await ask_spec(pilot, str(bad))
        assert app.screen is dialog and "sweep.sampels: unknown key" in text(dialog, "#reason-error")
        await pilot.press("backspace")
        await pilot.pause()
        assert app.screen is dialog and text(dialog, "#reason-error") == ""


async def test_the_spec_checked_is_the_spec_started(db, tmp_path, monkeypatch):
    """The file is read once, when Enter checks it: what the dashboard starts is what was
    checked, not a second reading of a file that may have changed in between."""
    from persian_tui.runs import sweep_spec

    reads = []
    real = sweep_spec.load_sweep_spec
    monkeypatch.setattr(sweep_spec, "load_sweep_spec", lambda path: reads.append(path) or real(path))
    gate = Gate(lambda body, n: chat("1", cost=0.001), free=0)
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            await open_screen(pilot, "m", RunsScreen)
            await ask_spec(pilot, str(spec_file(tmp_path, server.url)))
            assert isinstance(app.screen, SweepScreen) and app.screen.spec.sweep.name == "tui"
            app.screen.action_stop()
            gate.open()
            await until(pilot, lambda: "cancelled" in text(app.screen, "#sweep-head"), "the sweep stopped")
    assert len(reads) == 1


async def test_w_on_a_sweep_going_in_the_background_reopens_its_dashboard_and_asks_nothing_twice(db, tmp_path):
    gate = Gate(lambda body, n: chat("1", cost=0.001), free=3)
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            await open_screen(pilot, "m", RunsScreen)
            path = str(spec_file(tmp_path, server.url))
            await ask_spec(pilot, path)
            first = app.screen
            await until(pilot, lambda: "3/24 rows" in text(first, "#sweep-head"), "3 rows shown")
            await pilot.press("escape")  # the sweep goes on in the background
            await pilot.pause()
            await ask_spec(pilot, path)
            assert app.screen is first  # its dashboard again, not a second sweep over the same runs
            gate.open()
            await until(pilot, lambda: "done" in text(first, "#sweep-head"), "the sweep done")
    assert len(server.requests) == 24  # every (run, question, sample) asked once


async def test_quitting_with_a_sweep_going_asks_first_then_stops_it_resumable(db, tmp_path):
    """Ctrl+Q names the sweep going in the background (quitting stops it); the app then ends at
    once, its runs cancelled and resumable (it used to wait, blank, for the whole sweep)."""
    gate = Gate(lambda body, n: chat("1", cost=0.001), free=3)
    gate.HOLD = 10.0  # (a sweep that were not stopped would end `done` once these lapse)
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=SIZE) as pilot:
            await open_screen(pilot, "m", RunsScreen)
            await ask_spec(pilot, str(spec_file(tmp_path, server.url)))
            screen = app.screen
            await until(pilot, lambda: "3/24 rows" in text(screen, "#sweep-head"), "3 rows shown")
            await pilot.press("escape")
            await pilot.pause()
            lost = app.unsaved_work()
            assert any(line.startswith("sweep tui: it stops now") and "persian-tui sweep resume tui" in line
                       for line in lost), lost
    with Store(db) as store:  # (the worker's thread ends on its own after the app)
        def ended() -> set[str] | None:
            statuses = {r.status for r in store.runs.runs()}
            return None if "running" in statuses else statuses

        statuses = wait_until(ended, "the runs ended")
        rows = sum(len(store.runs.predictions(r.id, samples=True)) for r in store.runs.runs())
    assert statuses == {"cancelled"} and rows < 24


async def test_at_80_columns_the_dashboard_names_every_run_in_full(db, tmp_path):
    """At 80×24 the table's columns left the run's slot `local…` on every row: narrow, each run
    takes two lines, its slot and then its bar and figures."""
    gate = Gate(lambda body, n: chat("1", cost=0.001), free=3)
    app = make_app(db)
    with LLMServer(gate) as server:
        async with app.run_test(size=(80, 24)) as pilot:
            await open_screen(pilot, "m", RunsScreen)
            await ask_spec(pilot, str(spec_file(tmp_path, server.url)))
            screen = app.screen
            await until(pilot, lambda: "3/24 rows" in text(screen, "#sweep-head"), "3 rows shown")
            await until(pilot, lambda: "local/b/zero-shot" in "\n".join(screen_lines(app)), "the slots drawn")
            shown = "\n".join(screen_lines(app))
            assert "local/a/zero-shot" in shown and "429s" in shown and "retries" in shown
            assert all(len(line) <= 80 for line in screen_lines(app))
            await pilot.press("c")
            gate.open()
            await until(pilot, lambda: "cancelled" in text(screen, "#sweep-head"), "the sweep stopped")

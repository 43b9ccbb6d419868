"""What the TUI renders never contains a raw control character from data (Pilot)."""

from __future__ import annotations

import re

from factories import make_question
from rich.segment import Segment
from textual.color import Color
from tui_helpers import eventually, make_app, settle

from persian_tui.models import SourceRef
from persian_tui.store import Store
from persian_tui.tui.safe_output import SHOW_CONTROLS

ZWNJ = "\u200c"
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x9b1m\x08\r\u202eend"
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SIZE = (120, 40)


def screen_text(app) -> str:
    """Every cell the compositor would send to the terminal, as text (no control segments)."""
    update = app.screen._compositor.render_full_update()
    return "\n".join("".join(seg.text for strip in line for seg in strip if not seg.control)
                     for line in update.strips)


def hostile_db(tmp_path):
    db = tmp_path / "h.db"
    with Store(db) as s:
        q = make_question("q-evil", category="عشق" + HOSTILE, source_name="src\x1b[5m",
                          source_id="7\x1b]0;t\x07", explanation="شرح " + HOSTILE)
        q.options[0].mesra1 = f"می{ZWNJ}رود {HOSTILE} دلِ"
        s.questions.add_questions([q])
        s.imports.add_new_questions([], links=[("q-evil", SourceRef("other\x1b[2J", "9\x07"))])  # a second reference
        s.runs.create_run("llm", "model\x1b[31m\x07evil", {}, total=1, status="done")
    return db


async def test_bank_and_detail_show_placeholders_not_controls(tmp_path):
    app = make_app(hostile_db(tmp_path), "app")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, pauses=4)
        shown = screen_text(app)
        assert not RAW.search(shown), [m.group() for m in RAW.finditer(shown)]
        # visible (in app mode the bidi algorithm reorders and mirrors around the Persian words)
        assert "pwned␇␛[2J␛[31mred" in shown and "q-evil (7␛]0;t␇)" in shown  # uid, source id beside it
        assert "⟨RLO⟩" in shown and "␍" in shown and "\\x9b" in shown
        assert "other␛[2J #9␇" in shown  # every source reference, each shown safely
        assert ZWNJ in shown and "ِ" in shown  # Persian marks still displayed
        app.notify("endpoint said \x1b[2J\x9b1m", title="model \x1b]0;t\x07")
        await settle(pilot, pauses=4)
        note = list(app._notifications)[-1]
        assert (note.message, note.title) == ("endpoint said ␛[2J\\x9b1m", "model ␛]0;t␇")
    with Store(tmp_path / "h.db") as s:  # the stored text is untouched
        q = s.questions.get_question("q-evil")
        assert q.options[0].mesra1 == f"می{ZWNJ}رود {HOSTILE} دلِ" and q.category == "عشق" + HOSTILE


async def test_runs_screen_shows_model_name_safely(tmp_path):
    app = make_app(hostile_db(tmp_path), "app")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, pauses=4)
        await pilot.press("m")
        await settle(pilot, pauses=4)
        shown = screen_text(app)
        assert not RAW.search(shown) and "model␛[31m␇evil" in shown


def test_line_filter_shows_raw_controls_without_changing_width():
    from rich.cells import cell_len

    def apply(segs):
        out = SHOW_CONTROLS.apply(segs, Color(0, 0, 0))
        width = sum(cell_len(s.text) for s in out if not s.control)
        assert width == sum(cell_len(s.text) for s in segs if not s.control)
        return "".join(s.text for s in out if not s.control)

    ctrl = Segment("\x1b[0m", None, [(1,)])  # a real control segment passes untouched
    assert apply([Segment("a\x1b[2Jb\x9b"), ctrl, Segment(f"می{ZWNJ}رود\u202e     |")]) == \
        f"a␛[2Jb�می{ZWNJ}رود�  |"
    # no blanks to pay with: the controls are dropped
    assert apply([Segment("x\x1b[2Jy"), Segment("z")]) == "x[2Jyz"
    clean = [Segment("plain")]
    assert SHOW_CONTROLS.apply(clean, Color(0, 0, 0)) is clean


async def test_header_text_from_data_shows_placeholders(tmp_path):
    """A widget that does not clean its text (run detail's header) still shows placeholders."""
    app = make_app(hostile_db(tmp_path), "app")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, pauses=4)
        await pilot.press("m")
        await settle(pilot, pauses=4)
        await pilot.press("enter")
        await settle(pilot, pauses=4)
        shown = screen_text(app)
        # (Rich itself drops BEL, backspace and CR from unclean text; ESC is shown)
        assert not RAW.search(shown) and "model␛[31mevil" in shown
        assert all(len(line) == SIZE[0] for line in shown.splitlines())


async def test_damaged_database_inside_the_app_ends_with_one_line(tmp_path, monkeypatch):
    import sqlite3

    app = make_app(hostile_db(tmp_path), "app")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, pauses=4)

        def damaged(*a, **k):
            raise sqlite3.DatabaseError("database disk image is malformed")

        monkeypatch.setattr(app.store.questions, "counts", damaged)
        app.screen.call_later(app.screen.action_reload)  # what r does; the exception ends the app
        await eventually(lambda: app.fatal_error, "the app ended on the damaged file")
    assert app.return_code == 1
    assert app.fatal_error.endswith("(the file may be damaged; restore a backup or run sqlite3's .recover)")
    assert "database disk image is malformed" in app.fatal_error and "\n" not in app.fatal_error


async def test_notification_text_is_not_markup(tmp_path):
    app = make_app(hostile_db(tmp_path), "app")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, pauses=4)
        app.notify("endpoint said [/x] [@click=app.quit]q[/]", title="model [b]m")
        await settle(pilot, pauses=4)
        note = list(app._notifications)[-1]
        assert note.markup is False and note.message == "endpoint said [/x] [@click=app.quit]q[/]"
        assert app.is_running  # a markup error would have ended the app


async def test_table_cells_from_data_are_plain_text_not_markup(tmp_path):
    """DataTable reads str cells as markup: '[/x]' crashed the agreement screen."""
    from textual.widgets import _data_table

    from persian_tui.tui.safe_output import plain_cell_formatter

    assert _data_table.default_cell_formatter is plain_cell_formatter  # the hook is in place
    assert plain_cell_formatter("[/x] [@click=app.quit]q\x1b").plain == "[/x] [@click=app.quit]q␛"
    db = hostile_db(tmp_path)
    with Store(db) as s:
        for who in ("ann [/x] \x1b[31m", "ann2 [b]"):
            s.labels.add_label("q-evil", who, 1, seconds=1.0)
    app = make_app(db, "app", annotator="t")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, pauses=4)
        await pilot.press("g")
        await settle(pilot, pauses=4)
        shown = screen_text(app)
        assert "Agreement between annotators" in shown and "ann [/x] ␛[31m" in shown
        assert "ann2 [b]" in shown and not RAW.search(shown)

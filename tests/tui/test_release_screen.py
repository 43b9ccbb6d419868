"""Releasing from the app: the release screen, reached by `f` on the bank and
"Release" in the command palette, writes what `persian-tui release` writes for the same inputs
(one core function, releases/make.py); admins only, refused in the core as in the app; a bad name
is said under its field; Escape asks before dropping a typed name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from factories import STAMP, add_questions, add_run
from tui_helpers import bank_loaded, make_app, notices, settle, shown, wait_for

from persian_tui.access import Access, AccessDenied
from persian_tui.cli import main
from persian_tui.releases.make import make_release, preview
from persian_tui.store import Store
from persian_tui.tui.dialogs.common import ConfirmDialog
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.screens.release import ReleaseScreen
from persian_tui.tui.widgets.datasheet_view import datasheet_lines, inline
from persian_tui.tui.widgets.lines_view import LinesView

SIZE = (120, 40)
POETS = ["حافظ", "سعدی", "مولوی", "حافظ", "فردوسی", "سعدی"]


def fill(path: Path, users: bool = False) -> Path:
    """Six curated keyed questions (q1..q6, Persian categories and poets), two finished
    runs (#1, #2) and one still running (#3); with ``users``: boss (admin), sara (reviewer), ali
    (annotator)."""
    with Store(path) as s:
        add_questions(s, [1, 2, 3, 4, 1, 2], status=["curated"] * 6, category=["تشبیه", "عشق"] * 3, poet=POETS)
        add_run(s, "alpha", [1, 2, 3, 4, 2, 2])
        add_run(s, "beta", [1, 1, 1, 1, 1, 1])
        add_run(s, "gamma", [1, 2, 3, 4, 1, 2], status="running")
        # fixed times: what the screen shows (the runs, the digest of the records) is the same every run
        s.conn.execute("UPDATE questions SET created_at = ?, updated_at = ?", (STAMP, STAMP))
        s.conn.execute("UPDATE runs SET created_at = ?, finished_at = ?", (STAMP, STAMP))
        if users:
            for name, role in (("boss", "admin"), ("sara", "reviewer"), ("ali", "annotator")):
                s.users.add(name, role)
    return path


@pytest.fixture
def db(tmp_path) -> Path:
    return fill(tmp_path / "release.db")


@pytest.fixture
def team(tmp_path) -> Path:
    return fill(tmp_path / "team.db", users=True)


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def text_of(widget) -> str:
    """What a widget shows, its wrapped lines joined again (padding collapsed to one space)."""
    return " ".join("".join(shown(widget)).split())


async def open_release(pilot) -> ReleaseScreen:
    await bank_loaded(pilot)
    await pilot.press("f")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReleaseScreen), "the release screen")
    screen = pilot.app.screen
    await wait_for(pilot, lambda: screen.preview_text or screen.preview_error, "the first preview")
    return screen


async def type_name(pilot, screen: ReleaseScreen, name: str) -> None:
    screen.query_one("#rel-name").focus()
    await pilot.press(*name)
    await wait_for(pilot, lambda: screen.release_name == name, "the name typed")


async def written(pilot, screen: ReleaseScreen) -> None:
    await wait_for(pilot, lambda: screen.written is not None and not screen.writing, "the release written")


# ------------------------------------------------------------------ an admin writes a release


async def test_an_admin_writes_what_the_cli_writes(db, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default folder, exports/releases/NAME, is taken from here (as the CLI does)
    before = tmp_path / "before.db"
    shutil.copy(db, before)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_release(pilot)
        runs = screen.query_one("#rel-runs")
        assert [o.value for o in runs.options] == [1, 2]  # finished runs only: #3 is running
        await type_name(pilot, screen, "v1.0")
        assert screen.query_one("#rel-folder").value == str(Path("exports/releases/v1.0"))
        screen.query_one("#rel-licence").value = "cc-by-4.0"
        runs.select(1)
        runs.select(2)
        await settle(pilot, pauses=3, seconds=0.4)
        await wait_for(pilot, lambda: "license: cc-by-4.0" in screen.preview_text and "#2 beta" in screen.preview_text,
                       "the preview of the chosen inputs")
        previewed = screen.preview_text
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the question before freezing")
        assert "Freeze the 6 curated question(s) as release v1.0" in app.screen.message
        await pilot.press("y")
        await written(pilot, screen)
        assert screen.written.error is None, screen.written.error
        outcome = text_of(screen.query_one("#rel-outcome"))
        assert "release v1.0: 6 questions" in outcome and "frozen now" in outcome
        assert "README.md" in outcome and "data/test.jsonl" in outcome
        assert screen.written.folder == str((tmp_path / "exports/releases/v1.0").resolve())  # shown wrapped
    app_files = files_of(tmp_path / "exports/releases/v1.0")
    # the preview was the datasheet, but for the time it was frozen
    readme = app_files["README.md"].decode()
    with Store(db) as s:
        frozen_at = s.releases.get_release("v1.0").created_at
    assert previewed == readme.replace(f"frozen {frozen_at}", "frozen when written")
    # the CLI on the same database, same inputs (a folder of the same name: the datasheet names
    # it): the same bytes, file for file
    assert main(["release", "v1.0", "--db", str(db), "-o", str(tmp_path / "cli" / "v1.0"), "--runs", "1,2",
                 "--license", "cc-by-4.0"]) == 0
    assert files_of(tmp_path / "cli" / "v1.0") == app_files
    # the CLI on the database as it was before: the same files, the same frozen content
    assert main(["release", "v1.0", "--db", str(before), "-o", str(tmp_path / "fresh"), "--runs", "1,2",
                 "--license", "cc-by-4.0"]) == 0
    fresh = files_of(tmp_path / "fresh")
    assert set(fresh) == set(app_files)
    assert fresh["data/test.jsonl"] == app_files["data/test.jsonl"] and fresh["leaderboard.csv"] == app_files[
        "leaderboard.csv"]


async def test_the_palette_offers_release_to_an_admin_only(team):
    from persian_tui.tui.commands import ScreenCommands

    for who, offered in (("boss", True), ("sara", False), ("ali", False)):
        app = make_app(team, annotator=who)
        async with app.run_test(size=SIZE) as pilot:
            await bank_loaded(pilot)
            bank = app.bank
            assert ("Release" in [title for title, _, _ in ScreenCommands(bank)._commands()]) is offered, who


# ------------------------------------------------------------------ admins only


@pytest.mark.parametrize("who, role", [("sara", "reviewer"), ("ali", "annotator")])
def test_the_core_refuses_anyone_but_an_admin(team, tmp_path, who, role):
    with Store(team) as s:
        with pytest.raises(AccessDenied, match=f"{who} is an? {role}: freezing releases is for admins"):
            make_release(s, Access(who, role), "v1", tmp_path / "v1")
        assert s.releases.releases() == [] and not (tmp_path / "v1").exists()
        result = make_release(s, Access("boss", "admin"), "v1", tmp_path / "v1")
        assert result.created and result.release.created_by == "boss"


@pytest.mark.parametrize("who", ["sara", "ali"])
async def test_the_key_tells_a_reviewer_or_an_annotator_why_not(team, who):
    app = make_app(team, annotator=who)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        if who == "ali":  # an annotator opens into the queue
            await wait_for(pilot, lambda: not isinstance(app.screen, BankScreen), "the queue")
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, BankScreen), "the bank")
        await pilot.press("f")
        await wait_for(pilot, lambda: notices(app) and "freezing releases is for admins" in notices(app)[-1],
                       "the refusal")
        assert isinstance(app.screen, BankScreen)
        assert notices(app)[-1].startswith(f"{who} is a")


async def test_the_screen_reached_anyway_writes_nothing_for_a_reviewer(team, tmp_path):
    app = make_app(team, annotator="sara")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await app.push_screen(ReleaseScreen())
        screen = app.screen
        await settle(pilot, pauses=3)
        await type_name(pilot, screen, "v1")
        await pilot.press("ctrl+s")  # not offered: nothing happens
        await settle(pilot)
        assert app.screen is screen
        screen.action_write()  # reached another way: one line
        await settle(pilot)
        assert app.screen is screen and notices(app)[-1] == "sara is a reviewer: freezing releases is for admins"
        screen._start("v1", tmp_path / "v1", [], "unknown", False)  # past the screen: the core refuses
        await written(pilot, screen)
        assert screen.written.error == "sara is a reviewer: freezing releases is for admins"
    with Store(team) as s:
        assert s.releases.releases() == []
    assert not (tmp_path / "v1").exists()


# ------------------------------------------------------------------ errors, in one line


async def test_a_bad_name_is_said_under_its_field(db, tmp_path):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_release(pilot)
        await type_name(pilot, screen, "../x")
        error = text_of(screen.query_one("#err-name"))
        assert "✗ release name must be letters, digits" in error
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen and app.focused is screen.query_one("#rel-name")  # no question, no write
        await pilot.press(*["backspace"] * 4, *"v1")
        await wait_for(pilot, lambda: not text_of(screen.query_one("#err-name")), "the error gone")
    with Store(db) as s:
        assert s.releases.releases() == []


async def test_a_folder_holding_another_release_is_refused_in_one_line(db, tmp_path):
    with Store(db) as s:
        make_release(s, Access(None, "admin", solo=True), "v0", tmp_path / "out")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_release(pilot)
        await type_name(pilot, screen, "v1")
        folder = screen.query_one("#rel-folder")
        folder.value = str(tmp_path / "out")
        await settle(pilot)
        assert "holds another release ('v0'): refused" in text_of(screen.query_one("#rel-folder-note"))
        await pilot.press("ctrl+s", "y")
        await written(pilot, screen)
        assert screen.written.error == f"{tmp_path / 'out'}: holds another release ('v0'); choose another folder (-o)"
        assert "✗ not written: " in text_of(screen.query_one("#rel-outcome"))
    with Store(db) as s:
        assert [r.name for r in s.releases.releases()] == ["v0"]  # nothing frozen


async def test_escape_asks_before_dropping_a_typed_name(db):
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_release(pilot)
        await type_name(pilot, screen, "نسخه-۱")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "back to the form")
        assert screen.release_name == "نسخه-۱"
        await pilot.press("escape", "y")
        await wait_for(pilot, lambda: isinstance(app.screen, BankScreen), "the bank")


async def test_keys_typed_ahead_land_in_the_name_and_the_question(db, tmp_path, monkeypatch):
    """f, the name, Ctrl+S and y in one burst: the screen opens, the name lands in its field,
    the question is asked and answered."""
    monkeypatch.chdir(tmp_path)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await pilot.press("f", *"alpha-2", "ctrl+s", "y")  # "a" types into the name, not "all runs"
        await wait_for(pilot, lambda: isinstance(app.screen, ReleaseScreen) and app.screen.written is not None,
                       "the release written")
        screen = app.screen
        await written(pilot, screen)
        assert screen.release_name == "alpha-2" and screen.written.error is None
        assert screen.run_ids == []
    assert (tmp_path / "exports/releases/alpha-2/release.json").is_file()


# ------------------------------------------------------------------ the preview


def test_the_preview_is_the_datasheet_laid_out(db):
    from persian_tui.bidi import APP, OFF

    with Store(db) as s:
        text = preview(s, "v1", run_ids=[1], license_id="mit").text
    lines = [line.text for line in datasheet_lines(text, 70, OFF)]
    assert lines[0].startswith("YAML header") and "license: mit" in lines
    assert any(line.startswith("dataset_info: the column types") for line in lines)
    assert not any(line.strip().startswith("- name: schema_version") for line in lines)  # folded
    assert "v1" in lines and "Counts" in lines
    assert any(line.startswith("category") and "questions" in line for line in lines)  # a table's header
    assert all(len(line) <= 70 for line in lines)
    assert any("حافظ" in line for line in lines)  # the counts by poet
    # app mode: the Persian words reordered, the English around them kept
    shown_app = [line.text for line in datasheet_lines(text, 70, APP)]
    assert any("(" + inline("قرابت معنایی", APP) + ")" in line for line in shown_app)
    assert inline("poets: حافظ and سعدی", APP) == "poets: " + inline("حافظ", APP) + " and " + inline("سعدی", APP)


def test_release_screen_snapshot(db, tmp_path, snap_compare, monkeypatch):
    monkeypatch.chdir(tmp_path)

    async def run_before(pilot) -> None:
        screen = await open_release(pilot)
        await type_name(pilot, screen, "v1.0")
        screen.query_one("#rel-runs").select(1)
        await settle(pilot, pauses=3, seconds=0.4)
        await wait_for(pilot, lambda: "#1 alpha" in screen.preview_text, "the preview")
        for field in screen.query("Input"):
            field.cursor_blink = False
        screen.query_one("#rel-folder-note").update("exports/releases/v1.0: a new folder")  # no tmp path
        await settle(pilot, pauses=3)
        assert screen.query_one(LinesView).text_lines

    assert snap_compare(make_app(db, db_label="release.db"), terminal_size=SIZE, run_before=run_before)


async def test_the_default_folder_is_beside_the_database_and_boxes_read_without_colour(db, tmp_path, monkeypatch):
    """Started from another folder, the app writes its release beside the database (as the
    report's export does), not where it was launched; at 80×24 the folder note shows the path
    whole, not broken mid-word; the --frozen box is empty unticked and crossed ticked."""
    from tui_helpers import screen_lines

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    app = make_app(db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_release(pilot)
        await type_name(pilot, screen, "v2")
        assert screen.folder == (db.parent / "exports" / "releases" / "v2").resolve()
        note = "".join(shown(screen.query_one("#rel-folder-note")))
        assert "exports/releases/v2" in note, note
        box = screen.query_one("#rel-frozen")
        unticked = " ".join(screen_lines(app))
        assert "▐ ▌" in unticked or "[ ]" in unticked
        box.value = True
        await pilot.pause()
        assert "▐X▌" in " ".join(screen_lines(app))


async def test_an_unticked_run_is_drawn_as_an_empty_box(db, tmp_path, monkeypatch):
    """The run checklist's boxes differ by more than colour: an unticked box draws no X (its mark
    has the box's own colour), a ticked one a visible X."""
    monkeypatch.chdir(tmp_path)
    app = make_app(db, db_label="release.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_release(pilot)
        runs = screen.query_one("#rel-runs")
        runs.select(1)
        await settle(pilot, pauses=3)

        def mark(y: int):
            (seg,) = [s for s in runs.render_line(y) if s.text.strip() == "X"]
            return seg.style.color, seg.style.bgcolor

        values = [runs.get_option_at_index(i).value for i in range(runs.option_count)]
        ticked = next(i for i, v in enumerate(values) if v in runs.selected)
        unticked = next(i for i, v in enumerate(values) if v not in runs.selected)
        fg, bg = mark(unticked)
        assert fg == bg, "an unticked box shows an X"
        fg, bg = mark(ticked)
        assert fg != bg

"""Blind means blind, in the app: an annotator (started with --annotator NAME, NAME an annotator of
the database) opens into the labelling queue and never sees a key, a model's answer, a judge's
verdict or another annotator's label — not in the bank, its detail pane, its search, votes,
the report or the review; keys their role does not allow are not offered and refuse if reached.
A shared setting changes with a confirmation, by an admin, and every open label screen follows."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import make_question, numbered_couplets
from tui_helpers import bank_loaded, make_app, notices, until, wait_for

from persian_tui import settings
from persian_tui.store import Store
from persian_tui.tui.dialogs.setting import SettingDialog
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.screens.help import HelpScreen
from persian_tui.tui.screens.label import LabelScreen
from persian_tui.tui.widgets.bank_table import BankTable
from persian_tui.tui.widgets.couplets import QuestionView
from persian_tui.tui.widgets.key_bar import KeyBar

SIZE = (120, 40)
SECRET = "SECRET-explanation"
REFUSED = "ali is an annotator: seeing keys, model answers, judge verdicts and other annotators' labels"


@pytest.fixture
def db(tmp_path) -> Path:
    """Six keyed questions with an explanation, a label by sara; users boss (admin), ali and
    maryam (annotators), sara (reviewer)."""
    path = tmp_path / "roles.db"
    with Store(path) as s:
        s.questions.add_questions([
            make_question(f"q-{i}", numbered_couplets(i), key=(i % 4) + 1, explanation=f"{SECRET} {i}",
                          status="curated" if i == 2 else "draft")
            for i in range(1, 7)])
        s.labels.add_label("q-1", "sara", 2)
        for name, role in (("boss", "admin"), ("ali", "annotator"), ("maryam", "annotator"),
                           ("sara", "reviewer")):
            s.users.add(name, role)
    return path


async def to_bank(pilot) -> BankScreen:
    """The annotator's app opens on the queue; Escape goes back to the bank."""
    await bank_loaded(pilot)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, LabelScreen), "the labelling queue")
    await pilot.press("escape")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, BankScreen), "the bank")
    return pilot.app.screen


def detail(app) -> list[str]:
    return app.screen.query_one(QuestionView).text_lines


def footer(app) -> set[str]:
    return {item.description for item in app.screen.query_one(KeyBar).items()}


# ------------------------------------------------------------------ the annotator


async def test_an_annotator_opens_straight_into_the_queue(db):
    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen), "the labelling queue")
        assert app.screen.annotator == "ali" and app.screen.current is not None


async def test_the_bank_shows_an_annotator_no_key(db):
    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        await to_bank(pilot)
        table = app.screen.query_one(BankTable)
        assert [str(c.label) for c in table.ordered_columns] == ["id", "first couplet", "category"]
        lines = detail(app)
        assert not any(line.startswith("status") for line in lines)
        assert lines[0] == "q-1"
        assert not any(line.startswith("key") for line in lines)
        assert not any(SECRET in line for line in lines)  # the explanation gives the key away
        await pilot.press("down")
        await pilot.pause()
        assert detail(app)[0] == "q-2" and not any(line.startswith("key") for line in detail(app))


async def test_an_annotator_sees_no_status_and_no_label_count_that_would_give_the_key_away(db):
    """After a bulk accept of agreeing labels a question is `curated` and its label count grows:
    an annotator who sees either learns that their own answer was the key. Hidden in the core
    (access.Access), so the bank's table, detail pane, status line and filter show neither."""
    with Store(db) as s:  # q-2 is curated
        s.labels.add_label("q-2", "maryam", 3)
    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        bank = await to_bank(pilot)
        person = app.access
        rows = person.rows(app.store.questions.rows_for(["q-2"]))
        assert rows[0].status == "" and rows[0].labels == 0 and rows[0].key is None
        assert person.counts(app.store.questions.counts()).by_status == {}
        assert person.question(app.store.questions.get_question("q-2")).status == ""
        screen = "\n".join(screen_text(app))
        assert "curated" not in screen and "draft" not in screen
        await pilot.press("s")  # the status filter: refused, saying why
        await pilot.pause()
        assert bank.status is None and notices(app)[-1] == REFUSED + " is for reviewers and admins"


def screen_text(app) -> list[str]:
    from tui_helpers import screen_lines

    return screen_lines(app)


async def test_the_bank_of_a_reviewer_keeps_its_key(db):
    app = make_app(db, annotator="sara")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        assert isinstance(app.screen, BankScreen)  # a reviewer starts on the bank
        assert "key" in [str(c.label) for c in app.screen.query_one(BankTable).ordered_columns]
        assert any(line.startswith("key") for line in detail(app))


async def test_search_shows_an_annotator_no_key(db):
    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        bank = await to_bank(pilot)
        await pilot.press("slash", *"q-3", "enter")
        await wait_for(pilot, lambda: bank.matches == ["q-3"], "the search")
        await pilot.pause()
        assert detail(app)[0] == "q-3"
        assert not any(line.startswith("key") or SECRET in line for line in detail(app))


@pytest.mark.parametrize("key, action, what", [
    ("a", "adjudicate", "Adjudicate"), ("g", "agreement", "Agreement"), ("p", "report", "Report"),
    ("v", "review", "Review"), ("m", "runs", "Runs"), ("n", "author", "New"),
])
async def test_votes_report_review_and_the_rest_are_not_offered_to_an_annotator(db, key, action, what):
    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        await to_bank(pilot)
        assert what not in footer(app)
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, BankScreen)  # nothing opened, and the key says why in one line
        assert notices(app)[-1].startswith("ali is an annotator: ") and "\n" not in notices(app)[-1]
        getattr(app, f"action_{action}")()  # reached another way: refused, with one line
        await pilot.pause()
        assert isinstance(app.screen, BankScreen)
        assert notices(app)[-1].startswith("ali is an annotator: ")


async def test_the_help_and_the_palette_offer_an_annotator_only_their_keys(db):
    from persian_tui.tui.commands import ScreenCommands

    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        bank = await to_bank(pilot)
        titles = [title for title, _, _ in ScreenCommands(bank)._commands()]
        assert "Label" in titles and "Search" in titles
        assert not {"Adjudicate", "Report", "Review", "Runs", "Agreement", "New question",
                    "Edit question"} & set(titles)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        said = " ".join(what for _, what in app.screen.rows)
        assert "label" in said and "adjudicate" not in said and "report" not in said
        assert "review" not in said and "new question" not in said


async def test_edit_is_refused_to_an_annotator(db):
    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        bank = await to_bank(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert app.screen is bank and "authoring" in notices(app)[-1]
        bank.action_edit()
        await pilot.pause()
        assert app.screen is bank and "authoring" in notices(app)[-1]


async def test_an_annotator_cannot_change_the_target(db):
    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen), "the labelling queue")
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen)  # no dialog, and why in one line
        assert notices(app)[-1] == "ali is an annotator: changing a shared setting is for admins"
        await pilot.press("ف")  # t on the Persian layout: refused, with one line
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen)
        assert notices(app)[-1] == "ali is an annotator: changing a shared setting is for admins"
        with Store(db) as s:
            assert s.labels.get_setting("label_target") is None


async def test_someone_who_is_not_a_user_gets_one_line_and_no_app(db):
    app = make_app(db, annotator="stranger")
    async with app.run_test(size=SIZE):
        pass
    assert app.return_code == 1
    assert app.fatal_error.startswith("stranger is not a user of ")


# ------------------------------------------------------------------ a reviewer


async def test_a_reviewer_adjudicates_but_does_not_edit_or_change_settings(db):
    from persian_tui.tui.screens.adjudicate import AdjudicationScreen

    app = make_app(db, annotator="sara")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        assert {"Adjudicate", "Report", "Review", "Agreement"} <= footer(app)
        assert not {"New", "Edit", "Runs"} & footer(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AdjudicationScreen), "adjudication")
        assert "Edit" not in footer(app)


# ------------------------------------------------------------------ a shared setting


async def test_the_target_changes_only_after_a_confirmation(db):
    app = make_app(db, annotator="boss")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen), "the label screen")
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingDialog), "the confirmation")
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen), "back")
        assert app.screen.target == 3 and app.store.labels.get_setting("label_target") is None
        await pilot.press("t", "5", "y")
        await wait_for(pilot, lambda: app.store.labels.get_setting("label_target") == "5", "the new target")
        assert app.screen.target == 5


async def test_every_open_label_screen_shows_a_new_target_at_once(db):
    """Two people on one database: the admin sets the target to 4; the annotator's header and
    counts follow within a tick, and both screens count the same."""
    admin, annotator = make_app(db, annotator="boss"), make_app(db, annotator="ali")
    async with admin.run_test(size=SIZE) as boss, annotator.run_test(size=SIZE) as ali:
        await bank_loaded(ali)
        await wait_for(ali, lambda: isinstance(annotator.screen, LabelScreen), "ali's queue")
        ali_screen = annotator.screen
        assert "target 3" in str(ali_screen.query_one("#label-head").render())  # a count: Latin digits
        await bank_loaded(boss)
        await boss.press("l")
        await wait_for(boss, lambda: isinstance(admin.screen, LabelScreen), "boss's label screen")
        boss_screen = admin.screen
        await boss.press("1", "2")  # two answers: q-1 has sara's and boss's
        await boss.press("t", "4", "y")
        await wait_for(boss, lambda: admin.store.labels.get_setting("label_target") == "4", "the new target")
        await until(ali, lambda: ali_screen.target == 4, "ali's screen reads the new target")
        await ali.pause()
        assert "target 4" in str(ali_screen.query_one("#label-head").render())
        assert "changed for everyone" in str(ali_screen.query_one("#label-last").render())
        # back to 3; ali's answer completes q-1 (sara, boss, ali): every screen counts it, unasked
        await boss.press("t", "3", "y")
        await until(ali, lambda: ali_screen.target == 3, "ali's screen reads the target again")
        assert ali_screen.current.uid == "q-1"
        await ali.press("1")
        for pilot, screen in ((ali, ali_screen), (boss, boss_screen)):
            await until(pilot, lambda screen=screen: "1 of 6 open questions have 3 labels" in bank_bar(screen),
                        "the same count on every screen")
        with Store(db) as s:
            assert s.labels.progress("ali", target=3).complete == 1
    assert settings.LABEL_TARGET.name == "label_target"


def bank_bar(screen) -> str:
    return str(screen.query_one("#progress-bank").render())


def test_annotator_bank_snapshot(tmp_path, snap_compare):
    """The bank as an annotator sees it at 120×40: no key, status or label count column, no
    status in the detail pane or the status line, only their keys in the footer."""
    from factories import dated_question

    db = tmp_path / "roles.db"
    with Store(db) as s:
        s.questions.add_questions([dated_question(f"q-{i}", numbered_couplets(i), key=(i % 4) + 1,
                                                  status="curated" if i == 2 else "draft") for i in range(1, 7)])
        s.labels.add_label("q-2", "sara", 2)
        for name, role in (("boss", "admin"), ("ali", "annotator"), ("sara", "reviewer")):
            s.users.add(name, role)

    async def run_before(pilot) -> None:
        await to_bank(pilot)
        await pilot.pause()

    assert snap_compare(make_app(db, annotator="ali"), terminal_size=SIZE, run_before=run_before)


async def test_the_bank_shows_an_annotator_no_source_page_and_no_poet(tmp_path):
    """The bank's detail pane shows an annotator what the label screen does, no more: no poet,
    stored or derived from a corpus link (a poet tells couplets apart), and no source page (the
    seed book prints its keys there). A reviewer's bank shows both poets."""
    from factories import recall_bank

    path = tmp_path / "poets.db"
    with Store(path) as s:
        recall_bank(s, tmp_path, questions=1, unlinked=0)
        s.questions.add_questions([make_question("b-1", numbered_couplets(9), poet="حافظ", source_name="book",
                                                 source_page=17)])
        s.users.add("boss", "admin")
        s.users.add("ali", "annotator")
        s.users.add("sara", "reviewer")
    for who, blind in (("ali", True), ("sara", False)):
        app = make_app(path, annotator=who)
        async with app.run_test(size=SIZE) as pilot:
            if blind:
                await to_bank(pilot)
            else:
                await bank_loaded(pilot)
            await until(pilot, lambda a=app: detail(a)[:1] in (["b-1"], ["r-000"]), "a question in the detail")
            seen = {}
            for _ in range(2):
                seen[detail(app)[0]] = "\n".join(detail(app))
                await pilot.press("down")
                await pilot.pause()
            assert set(seen) == {"b-1", "r-000"}
            for uid, poet in (("r-000", "شاعر آزمون"), ("b-1", "حافظ")):  # from a corpus link; stored
                shown = poet in seen[uid] or poet[::-1] in seen[uid]  # laid out visually in app mode
                assert shown is not blind, (who, uid)
            assert app.access.question(app.store.questions.get_question("b-1")).source_page == (None if blind else 17)


async def test_an_annotators_search_and_palette_hide_poets_and_statuses(db):
    """The bank's search runs the core's blind search for an annotator (bank/search.py's test): a
    poet: facet is refused in one notice (the app goes on), and the palette offers
    no status filter (a status tells what the key is)."""
    from persian_tui.tui.commands import ScreenCommands

    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        bank = await to_bank(pilot)
        titles = [title for title, _, _ in ScreenCommands(bank)._commands()]
        assert not [t for t in titles if t.startswith("Filter status")], titles
        bank.set_status("curated")
        await pilot.pause()
        assert bank.status is None and len(bank.matches) == 6
        await pilot.press("slash", *"poet:حافظ")
        await until(pilot, lambda: any("poet" in n for n in notices(app)))
        assert any(n.startswith("ali is an annotator: seeing or searching poets") for n in notices(app))
        assert app.is_running and isinstance(app.screen, BankScreen)


@pytest.mark.parametrize("browser", [False, True])
async def test_sign_out_is_offered_in_a_browser_session_only(db, monkeypatch, browser):
    """F10 and the palette's "Sign out" are a signed-in browser session's (the server sets
    PERSIAN_TUI_WEB_SIGN_OUT for its apps); in a terminal neither is offered, and F10 says why."""
    from persian_tui.settings import WEB_SIGN_OUT_ENV as SIGN_OUT_ENV
    from persian_tui.tui.commands import ScreenCommands

    if browser:
        monkeypatch.setenv(SIGN_OUT_ENV, "1")
    else:
        monkeypatch.delenv(SIGN_OUT_ENV, raising=False)
    app = make_app(db, annotator="ali")
    async with app.run_test(size=SIZE) as pilot:
        bank = await to_bank(pilot)
        titles = [title for title, _, _ in ScreenCommands(bank)._commands()]
        assert ("Sign out" in titles) == browser
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        assert any("sign out" in what for _, what in app.screen.rows) == browser
        await pilot.press("escape")
        if not browser:
            await pilot.press("f10")
            await until(pilot, lambda: any("Sign out is for a browser session" in n for n in notices(app)))

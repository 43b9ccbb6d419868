"""The authoring screen (new question, edit), driven with Textual's Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import dated_question
from textual.widgets import Input, Select, TextArea
from tui_helpers import make_app, notices, open_screen, settle

from persian_tui import bidi
from persian_tui.store import Store
from persian_tui.tui.dialogs.common import ConfirmDialog
from persian_tui.tui.screens.author import AuthorScreen, parse_key, parse_tags
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.widgets.lines_view import LinesView

SIZE = (120, 40)
ZWNJ = "\u200c"

LOVE = [
    ("طریق عشق پرآشوب و فتنه است ای دل", "بیفتد آن که در این راه با شتاب رود"),
    ("گر نور عشق حق به دل و جانت اوفتد", "بالله از آفتاب فلک خوبتر شوی"),
    ("شکوه عشق نگه کن که موی مجنون را", "فلک به شعشعه آفتاب، شانه کند"),
    ("فرزانه درآید به پری خانه مقصود", "هر کس که در این بادیه دیوانه عشق است"),
]
NEW = [
    (f"بشنو این نی چون شکایت می{ZWNJ}کند", f"از جدایی{ZWNJ}ها حکایت می{ZWNJ}کند"),
    ("ای قناعت توانگرم گردان", "که ورای تو هیچ نعمت نیست"),
    ("زر از بهر خوردن بود ای پدر", "ز بهر نهادن چه سنگ و چه زر"),
    ("توانا بود هر که دانا بود", "ز دانش دل پیر برنا بود"),
]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "author.db"
    with Store(path) as store:
        store.questions.add_questions([dated_question("q-love", LOVE, category="عرفانی", source_name="fixture",
                                                      source_id="6", explanation="بیت نخست از دشواری راه عشق می‌گوید.")])
    return path


async def type_into(pilot, field: str, text: str) -> None:
    """Focus a field and type ``text`` key by key (ZWNJ as the key a Persian keyboard sends)."""
    pilot.app.screen.query_one(f"#{field}").focus()
    await pilot.pause()
    for ch in text:
        await pilot.press("zero_width_non_joiner" if ch == ZWNJ else ch)
    await pilot.pause()


def fill(screen: AuthorScreen, couplets) -> None:
    for i, (a, b) in enumerate(couplets, 1):
        screen.query_one(f"#m1-{i}", Input).value = a
        screen.query_one(f"#m2-{i}", Input).value = b


def messages(app) -> str:
    return str(app.screen.query_one("#author-messages").render())


# ------------------------------------------------------------------ new question


async def test_author_a_new_question_end_to_end(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "n", AuthorScreen)
        assert "new question" in str(screen.query_one("#author-header").render())
        await type_into(pilot, "stem", "کدام بیت متفاوت است")  # (nor "؟")
        await type_into(pilot, "m1-1", NEW[0][0])
        await type_into(pilot, "m2-1", NEW[0][1])
        await type_into(pilot, "poet-1", "مولوی")
        for i, (a, b) in enumerate(NEW[1:], 2):
            screen.query_one(f"#m1-{i}", Input).value = a
            if i < 4:
                screen.query_one(f"#m2-{i}", Input).value = b
        await settle(pilot)
        # the preview follows the typing, in display order
        preview = screen.query_one("#author-preview-view", LinesView).text_lines
        assert any(bidi.visual(NEW[0][0]) in line for line in preview)

        # a missing hemistich: refused, with the reason next to the form
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "cannot save" in messages(app)
        assert "option 4: empty second hemistich" in messages(app)
        with Store(db) as store:
            assert store.questions.counts().total == 1

        screen.query_one("#m2-4", Input).value = "  " + NEW[3][1] + "  "  # outer spaces trimmed
        await settle(pilot)
        # ready needs a key
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert "status ready needs a key" in messages(app)
        with Store(db) as store:
            assert store.questions.counts().total == 1

        await type_into(pilot, "key", "۳")  # Persian digits are keys too
        screen.query_one("#explanation", TextArea).focus()
        await pilot.press("ب", "ی", "ت", "zero_width_non_joiner", "ه", "ا")
        screen.query_one("#tags", Input).value = "مثنوی، test ,"  # the pilot cannot press "،"
        await pilot.press("ctrl+r")
        await settle(pilot)
        uid = screen.uid
        assert uid and uid.startswith("q-")
        assert any(n.startswith(f"saved {uid}") for n in notices(app))
        assert screen.query_one("#status", Select).value == "ready"

        with Store(db) as store:
            q = store.questions.get_question(uid)
            revisions = store.curation.revisions(uid)
        assert q.stem == "کدام بیت متفاوت است"
        assert [(o.mesra1, o.mesra2) for o in q.options] == NEW  # exactly as typed, ZWNJ kept
        assert q.options[0].poet == "مولوی" and q.options[1].poet is None
        assert (q.key, q.status, q.author) == (3, "ready", "reza")
        assert q.explanation == f"بیت{ZWNJ}ها"
        assert q.tags == ["مثنوی", "test"]
        assert len(revisions) == 1 and revisions[0].author == "reza"
        assert "1 revision(s), last by reza" in str(screen.query_one("#author-header").render())

        await pilot.press("escape")  # saved: leaves without asking
        await settle(pilot)
        assert isinstance(app.screen, BankScreen)
        assert uid in app.screen.matches
        from persian_tui.tui.widgets.bank_table import BankTable

        assert app.screen.query_one(BankTable).current_uid == uid  # the table moved to it


async def test_near_duplicate_warns_and_asks_to_save_again(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "n", AuthorScreen)
        fill(screen, LOVE)
        await settle(pilot, seconds=0.6)  # the check runs once typing pauses
        assert "near-duplicate of q-love (6), score 100" in messages(app)  # uid and source id
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "press ctrl+s again to save anyway" in messages(app)
        with Store(db) as store:
            assert store.questions.counts().total == 1
        await pilot.press("ctrl+s")  # confirmed
        await settle(pilot)
        assert screen.uid is not None
        with Store(db) as store:
            assert store.questions.counts().total == 2


async def test_a_shared_couplet_is_named(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "n", AuthorScreen)
        fill(screen, [NEW[0], LOVE[1], NEW[2], NEW[3]])
        await settle(pilot, seconds=0.6)
        text = messages(app)
        assert "couplet 2 also in q-love" in text and "near-duplicate" not in text


async def test_a_repeated_couplet_is_refused(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "n", AuthorScreen)
        fill(screen, [NEW[0], NEW[1], (NEW[0][0] + " ", NEW[0][1]), NEW[3]])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "couplets 1 and 3 are the same" in messages(app)
        assert screen.uid is None


async def test_escape_with_unsaved_changes_asks_first(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, "n", AuthorScreen)
        await type_into(pilot, "stem", "تازه")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, AuthorScreen)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, BankScreen)


# ------------------------------------------------------------------ edit


async def test_edit_an_existing_question_records_the_changes(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "e", AuthorScreen)  # the bank's first row: q-love
        assert screen.uid == "q-love"
        assert screen.query_one("#m1-1", Input).value == LOVE[0][0]
        assert screen.query_one("#category", Input).value == "عرفانی"
        assert screen.query_one("#explanation", TextArea).text.startswith("بیت نخست")
        assert "no revisions" in str(screen.query_one("#author-header").render())
        assert "no unsaved changes" in messages(app)
        await settle(pilot, seconds=0.6)
        assert "near-duplicate" not in messages(app)  # not of itself

        key = screen.query_one("#key", Input)
        key.focus()
        await pilot.pause()
        await pilot.press("3")  # focusing selects the old key: typing replaces it
        await type_into(pilot, "m2-2", " نو")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "saved q-love: key, options" in notices(app)
        with Store(db) as store:
            q = store.questions.get_question("q-love")
            (revision,) = store.curation.revisions("q-love")
        assert q.key == 3 and q.options[1].mesra2 == LOVE[1][1] + " نو"
        assert q.category == "عرفانی" and q.source_id == "6" and q.status == "ready"
        assert revision.author == "reza" and set(revision.changes) == {"key", "options"}
        assert revision.changes["key"] == [1, 3]
        assert "1 revision(s), last by reza" in str(screen.query_one("#author-header").render())

        await pilot.press("ctrl+s")  # nothing changed since
        await settle(pilot)
        assert "q-love: nothing changed" in notices(app)


# ------------------------------------------------------------------ layout


async def test_preview_beside_the_form_in_app_mode_below_in_terminal_mode(db):
    for mode, below in (("app", False), ("terminal", True)):
        app = make_app(db, mode, annotator="reza")
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_screen(pilot, "e", AuthorScreen)
            await settle(pilot)
            form = screen.query_one("#author-form").region
            preview = screen.query_one("#author-preview").region
            if below:
                assert preview.y >= form.bottom
                lines = screen.query_one("#author-preview-view", LinesView).text_lines
                assert "۱ " + LOVE[0][0] in lines  # logical text: the terminal reorders
            else:
                assert preview.x >= form.right and preview.y == form.y


def test_parse_key_and_tags():
    assert [parse_key(k) for k in ("1", "۴", "٢", "", "5", "x")] == [1, 4, 2, None, None, None]
    assert parse_tags(f" غزل، نیم{ZWNJ}فاصله ,, test ") == ["غزل", f"نیم{ZWNJ}فاصله", "test"]


async def test_a_change_made_elsewhere_is_kept_on_save(db):
    """Bob saves a stem, an adjudicator sets key 2 meanwhile; Alice's category edit keeps both."""
    app = make_app(db, annotator="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, "e", AuthorScreen)
        with Store(db) as other:
            q = other.questions.get_question("q-love")
            q.stem = "ساقه‌ی باب"
            other.curation.update_question(q, "bob")
            other.curation.adjudicate("q-love", "maryam", "key", key=2, reason="بیت دوم")
        app.screen.query_one("#category", Input).value = "اخلاقی"
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        with Store(db) as s:
            q = s.questions.get_question("q-love")
        assert (q.stem, q.key, q.status, q.category) == ("ساقه‌ی باب", 2, "curated", "اخلاقی")
        assert any("kept what bob saved meanwhile: stem, key, status" in n for n in notices(app))
        assert app.screen.query_one("#stem", Input).value == "ساقه‌ی باب"  # the form shows it
        assert "no unsaved changes" in messages(app)


@pytest.mark.parametrize("side, stem", [("t", "ساقه‌ی باب"), ("y", "ساقه‌ی آلیس")])
async def test_a_real_conflict_shows_both_values_and_lets_you_choose(db, side, stem):
    from persian_tui.tui.dialogs.merge import MergeDialog

    app = make_app(db, annotator="alice")
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, "e", AuthorScreen)
        with Store(db) as other:
            q = other.questions.get_question("q-love")
            q.stem, q.category = "ساقه‌ی باب", "bob's"
            other.curation.update_question(q, "bob")
        app.screen.query_one("#stem", Input).value = "ساقه‌ی آلیس"
        app.screen.query_one("#key", Input).value = "3"
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MergeDialog)
        body = str(app.screen.query_one("#merge-body").render())
        assert "stem" in body and "yours" in body and "theirs" in body
        assert bidi.display_line("ساقه‌ی باب", 200, bidi.APP) in body
        assert bidi.display_line("ساقه‌ی آلیس", 200, bidi.APP) in body
        with Store(db) as s:
            assert s.questions.get_question("q-love").key == 1  # nothing saved while choosing
        await pilot.press("enter")  # nothing chosen yet: refused
        await settle(pilot)
        assert isinstance(app.screen, MergeDialog)
        await pilot.press(side, "enter")
        await settle(pilot)
        assert isinstance(app.screen, AuthorScreen)
        with Store(db) as s:
            q = s.questions.get_question("q-love")
        assert (q.stem, q.key, q.category) == (stem, 3, "bob's")
        assert app.screen.query_one("#stem", Input).value == stem


async def test_the_key_field_says_why_it_ignores_a_digit(tmp_path):
    """5 or ۵ in the key field is not taken, and the editor says why (only 1–4), not a silent bell."""
    app = make_app(tmp_path / "k.db", annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, "n", AuthorScreen)
        screen.query_one("#key").focus()
        await pilot.press("5")
        await pilot.pause()
        assert screen.query_one("#key").value == ""
        said = [n for n in notices(app) if "1–4" in n]
        assert said and "5" in said[-1], notices(app)
        await pilot.press("۵")
        await pilot.pause()
        assert "۵" in [n for n in notices(app) if "1–4" in n][-1]
        await pilot.press("۲")
        await pilot.pause()
        assert screen.query_one("#key").value == "۲"


async def test_a_paste_past_a_fields_cap_or_past_any_field_is_refused_with_a_notice(db):
    """Each field takes at most what the store keeps (models/limits.py): a longer paste is not
    inserted, a notice says so, what was typed stays; a paste longer than any field (1 MB) is
    refused by the app before a field sees it. The app goes on."""
    from textual import events

    from persian_tui.models.limits import MAX_PASTE, limit

    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await open_screen(pilot, "n", AuthorScreen)
        await type_into(pilot, "stem", "تازه")
        stem = app.screen.query_one("#stem", Input)
        app.post_message(events.Paste("ب" * (limit("stem") + 1)))
        await settle(pilot)
        assert stem.value == "تازه"
        assert any(n.startswith(f"at most {limit('stem'):,} characters in this field") for n in notices(app))
        app.screen.query_one("#m1-1", Input).focus()
        await settle(pilot)
        app.post_message(events.Paste("پ" * (limit("hemistich") + 1)))
        await settle(pilot)
        assert app.screen.query_one("#m1-1", Input).value == ""
        app.screen.query_one("#explanation", TextArea).focus()
        await settle(pilot)
        app.post_message(events.Paste("x" * (limit("explanation") + 1)))
        await settle(pilot)
        assert app.screen.query_one("#explanation", TextArea).text == ""
        app.post_message(events.Paste("ع" * (MAX_PASTE + 1)))
        await settle(pilot)
        assert any(n.startswith(f"not pasted: {MAX_PASTE + 1:,} characters") for n in notices(app))
        assert stem.value == "تازه" and isinstance(app.screen, AuthorScreen)

"""The bank screen, driven with Textual's Pilot; one SVG snapshot (pytest-textual-snapshot)."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import dated_question
from textual.widgets import Input
from tui_helpers import bank_loaded, make_app, notices, wait_for

from persian_tui import bidi, settings
from persian_tui.bank import jsonl
from persian_tui.store import Store
from persian_tui.tui.keys import APP_KEYS, BROWSER_ONLY, help_rows
from persian_tui.tui.render import GUTTER, detail_lines, plain
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.screens.help import HelpScreen
from persian_tui.tui.widgets.bank_table import BankTable
from persian_tui.tui.widgets.couplets import QuestionView

SIZE = (120, 40)


ZWNJ = "\u200c"


LOVE = dated_question("q-love", [
    ("طریق عشق پرآشوب و فتنه است ای دل", "بیفتد آن که در این راه با شتاب رود"),
    ("گر نور عشق حق به دل و جانت اوفتد", "بالله از آفتاب فلک خوبتر شوی"),
    ("شکوه عشق نگه کن که موی مجنون را", "فلک به شعشعه آفتاب، شانه کند"),
    ("فرزانه درآید به پری خانه مقصود", "هر کس که در این بادیه دیوانه عشق است"),
], source_name="fixture", source_id="6", category="عرفانی", poet="حافظ",
   explanation="بیت نخست از دشواری راه عشق می‌گوید.")


# Arabic yeh (U+064A) and kaf (U+0643) in the stored text
ARABIC = dated_question("q-arabic", [
    ("يكي را كه در بند بيني مخند", "مبادا كه ناگه در افتي به بند"),
    ("به نیکی گرای و میازار کس", "ره رستگاری همین است و بس"),
    ("توانا بود هر که دانا بود", "ز دانش دل پیر برنا بود"),
    ("چو از قومی یکی بی‌دانشی کرد", "نه که را منزلت ماند نه مه را"),
], source_name="fixture", source_id="12", key=3, status="draft", category="اخلاقی")


# ZWNJ and diacritics
ZWNJ_Q = dated_question("q-zwnj", [
    (f"بشنو این نی چون شکایت می{ZWNJ}کند", f"از جدایی{ZWNJ}ها حکایت می{ZWNJ}کند"),
    ("خُدا را چه دیدی، شاید مَن هم بیایم", "دلا نزد کسی بنشین که او از دل خبر دارد"),
    ("الا یا ایها الساقی ادر کاسا و ناولها", f"که عشق آسان نمود اول ولی افتاد مشکل{ZWNJ}ها"),
    ("هر که را جامه ز عشقی چاک شد", "او ز حرص و عیب کلی پاک شد"),
], source_name="fixture", source_id="14", key=2, status="curated")


PERSIAN_KAF = dated_question("q-kuy", [
    ("بر سر کوی تو عقل از دست برفت", "دل نیز به دنبال تو پیوست برفت"),
    ("ای که پنجاه رفت و در خوابی", "مگر این پنج روزه دریابی"),
    ("سحر با باد می‌گفتم حدیث آرزومندی", "خطاب آمد که واثق شو به الطاف خداوندی"),
    ("درخت دوستی بنشان که کام دل به بار آرد", "نهال دشمنی برکن که رنج بی‌شمار آرد"),
], source_name="fixture", source_id="21", key=4, status="retired")


QUESTIONS = [LOVE, ARABIC, ZWNJ_Q, PERSIAN_KAF]


@pytest.fixture
def bank_db(tmp_path) -> Path:
    path = tmp_path / "bank.db"
    with Store(path) as store:
        store.questions.add_questions(QUESTIONS)
    return path


def table_uids(app) -> list[str]:
    return list(app.screen.query_one(BankTable).uids)


def detail_text(app) -> list[str]:
    return app.screen.query_one(QuestionView).text_lines


def status_text(app) -> str:
    return str(app.screen.query_one("#status-line").render())


async def type_search(pilot, text: str) -> None:
    if not isinstance(pilot.app.focused, Input):
        await pilot.press("slash")
    for ch in text:
        await pilot.press(ch)
    await pilot.pause()
    await pilot.pause()


# ------------------------------------------------------------------ bank


async def test_bank_opens_with_all_rows(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        assert table_uids(app) == ["q-love", "q-arabic", "q-zwnj", "q-kuy"]
        status = status_text(app)
        assert "bank.db" in status and "4 questions" in status
        assert "draft 1 · ready 1 · curated 1 · retired 1" in status
        assert "4 match" in str(app.screen.query_one("#filters").render())
        assert isinstance(app.focused, BankTable)


async def test_search_narrows_and_escape_clears(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await type_search(pilot, "عشق")
        assert table_uids(app) == ["q-love", "q-zwnj"]
        assert "2 match" in str(app.screen.query_one("#filters").render())
        await type_search(pilot, " چاک")  # every word must occur
        assert table_uids(app) == ["q-zwnj"]
        await pilot.press("escape")  # clears the search
        await pilot.pause()
        assert len(table_uids(app)) == 4
        await pilot.press("escape")  # and leaves it
        await pilot.pause()
        assert isinstance(app.focused, BankTable)


async def test_search_matches_arabic_and_persian_letters(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await type_search(pilot, "كوي")  # Arabic kaf and yeh: finds the Persian کوی
        assert table_uids(app) == ["q-kuy"]
        await pilot.press("escape")
        await type_search(pilot, "یکی را که")  # Persian letters: finds the stored Arabic ones
        assert table_uids(app) == ["q-arabic"]


async def test_search_keeps_zwnj_words(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await type_search(pilot, f"جدایی{ZWNJ}ها")
        assert table_uids(app) == ["q-zwnj"]


async def test_detail_pane_shows_couplets_in_display_order(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await pilot.press("down")  # q-arabic
        await pilot.pause()
        view = app.screen.query_one(QuestionView)
        width = view.content_size.width
        lines = detail_text(app)
        assert width >= 40
        for o in ARABIC.options:
            for hemistich in (o.mesra1, o.mesra2):
                for expected in bidi.display_lines(hemistich, width - GUTTER, bidi.APP):
                    assert any(line.startswith(expected) for line in lines), expected
        # hemistich 1 then hemistich 2, right-aligned to the pane, numbered ۱..۴ on the right
        first = bidi.display_lines(ARABIC.options[0].mesra1, width - GUTTER, bidi.APP)[0]
        i = next(i for i, line in enumerate(lines) if line.startswith(first))
        assert lines[i] == first + " ۱"
        assert lines[i + 1] == bidi.display_lines(ARABIC.options[0].mesra2, width - GUTTER, bidi.APP)[0] + "  "
        assert all(len(lines[j]) <= width for j in (i, i + 1))
        assert [l[-1] for l in lines if l.endswith((" ۱", " ۲", " ۳", " ۴"))][:4] == list("۱۲۳۴")
        joined = "\n".join(lines)
        assert "category" in joined and bidi.visual("اخلاقی") in joined
        assert "fixture #12" in joined and "draft" in joined


async def test_detail_pane_keeps_zwnj_and_diacritics(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await pilot.press("down", "down")  # q-zwnj
        await pilot.pause()
        joined = "\n".join(detail_text(app))
        assert bidi.visual(ZWNJ_Q.options[0].mesra1) in joined
        assert ZWNJ in joined
        assert bidi.visual("خُدا") in joined and "ُ" in joined


async def test_detail_follows_resize(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        before = app.screen.query_one(QuestionView).content_size.width
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        await pilot.pause()
        view = app.screen.query_one(QuestionView)
        after = view.content_size.width
        assert after > before
        line = bidi.display_lines(LOVE.options[0].mesra1, after - GUTTER, bidi.APP)[0] + " ۱"
        assert line in detail_text(app)


async def test_status_and_category_filters(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        bank = await bank_loaded(pilot)
        await pilot.press("s")  # draft
        await pilot.pause()
        assert bank.status == "draft" and table_uids(app) == ["q-arabic"]
        await pilot.press("s")  # ready
        await pilot.pause()
        assert table_uids(app) == ["q-love"]
        await pilot.press("s", "s", "s")  # curated, retired, all
        await pilot.pause()
        assert bank.status is None and len(table_uids(app)) == 4
        await pilot.press("c")  # categories in order: اخلاقی, عرفانی
        await pilot.pause()
        assert bank.category == "اخلاقی" and table_uids(app) == ["q-arabic"]
        await pilot.press("c", "c")
        await pilot.pause()
        assert bank.category is None and len(table_uids(app)) == 4


async def test_help_screen(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = str(app.screen.query_one("#help-keys").render())
        assert "reload" in keys and "Ctrl+P" in keys
        rows = help_rows(BankScreen.KEY_TABLE + tuple(k for k in APP_KEYS if k.action not in BROWSER_ONLY))
        box = app.screen.query_one("#help-keys").region  # really on screen, not collapsed
        assert box.width >= max(len(k) + len(w) for k, w in rows) and box.height == len(rows)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BankScreen)


async def test_reload_sees_other_writers(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        with Store(bank_db) as other:  # e.g. an annotator over SSH
            other.questions.add_questions([dated_question("q-new", [(f"مصراع {i} نو", f"مصراع {i} دوم")
                                                                    for i in range(4)])])
        assert len(table_uids(app)) == 4
        await pilot.press("r")
        await pilot.pause()
        assert table_uids(app)[-1] == "q-new"
        assert "5 questions" in status_text(app)


async def test_command_palette_filters_status(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        bank = await bank_loaded(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        for ch in "status: curated":
            await pilot.press(ch)

        def offered():  # the palette's search (a worker) has put the filter first
            from textual.command import CommandList

            hits = app.screen.query_one(CommandList)
            return hits.highlighted is not None and \
                "status: curated" in str(hits.get_option_at_index(hits.highlighted).prompt)

        await wait_for(pilot, offered, "the palette offers the curated filter")
        await pilot.press("enter")
        await pilot.pause()
        assert bank.status == "curated" and table_uids(app) == ["q-zwnj"]


async def test_bidi_modes(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        bank = await bank_loaded(pilot)
        body = app.screen.query_one("#body")
        assert not body.has_class("-stacked")
        await pilot.press("b")  # terminal: logical text, table and detail stacked
        await pilot.pause()
        await pilot.pause()
        assert app.bidi_mode.name == "terminal" and body.has_class("-stacked")
        lines = detail_text(app)
        assert "۱ " + LOVE.options[0].mesra1 in lines
        assert "  " + LOVE.options[0].mesra2 in lines
        await pilot.press("b")  # off: logical text, side by side
        await pilot.pause()
        await pilot.pause()
        assert app.bidi_mode.name == "off" and not body.has_class("-stacked")
        assert "۱ " + LOVE.options[0].mesra1 in detail_text(app)
        assert bank.matches and len(table_uids(app)) == 4


async def test_shaping_is_the_apps_own_and_survives_a_mode_change(bank_db):
    """--shape on joins letters in this app's lines only (a value the app holds, no module
    switch): another app in the same process, and the bank's `b` cycling, keep their own."""
    joined = lambda lines: any("\ufb50" <= ch <= "\ufeff" for line in lines for ch in line)  # noqa: E731
    shaped, plain = make_app(bank_db, shape=True), make_app(bank_db)
    assert shaped.bidi_mode == bidi.Mode("app", shape=True) and plain.bidi_mode == bidi.APP
    async with shaped.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        assert joined(detail_text(shaped))
        for _ in range(3):  # app -> terminal -> off -> app
            await pilot.press("b")
            await pilot.pause()
        assert shaped.bidi_mode == bidi.Mode("app", shape=True) and joined(detail_text(shaped))
    async with plain.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        assert not joined(detail_text(plain))


async def test_terminal_mode_starts_stacked(bank_db):
    app = make_app(bank_db, "terminal")
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        assert app.screen.query_one("#body").has_class("-stacked")
        table = app.screen.query_one(BankTable)
        assert table.size.width >= SIZE[0] - 2  # full width, the detail pane below it
        assert app.screen.query_one("#detail").region.y > table.region.y


async def test_quit_key(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
    assert app.store is None  # closed on unmount


async def test_new_database_gets_the_sample_bank(tmp_path, monkeypatch):
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(jsonl.dumps(q) + "\n" for q in QUESTIONS[:2]), encoding="utf-8")
    monkeypatch.setattr(settings, "sample_bank_path", lambda: sample)
    app = make_app(tmp_path / "new.db", sample=True)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        assert table_uids(app) == ["q-love", "q-arabic"]


async def test_missing_sample_bank_notifies(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "sample_bank_path", lambda: tmp_path / "nope.jsonl")
    app = make_app(tmp_path / "new.db", sample=True)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert table_uids(app) == []
        assert any("no sample bank" in n for n in notices(app))
        assert "no question" in "\n".join(detail_text(app))


def test_detail_lines_without_a_question():
    assert plain(detail_lines(None, 40, bidi.APP)) == ["no question selected"]


# ------------------------------------------------------------------ snapshot


def test_bank_snapshot_app_mode(bank_db, snap_compare):

    async def run_before(pilot) -> None:
        await bank_loaded(pilot)

    app = make_app(bank_db, "app")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


# ------------------------------------------------------------------ agreement panel, name prompt


async def test_agreement_panel_shows_the_figures(bank_db):
    with Store(bank_db) as store:
        for uid, a, b in (("q-love", 1, 1), ("q-arabic", 2, 3)):
            store.labels.add_label(uid, "ali", a)
            store.labels.add_label(uid, "sara", b)
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await pilot.press("g")
        await pilot.pause()
        from textual.widgets import DataTable

        scopes = app.screen.query_one("#scopes", DataTable)
        people = app.screen.query_one("#people", DataTable)
        first = [str(c) for c in scopes.get_row_at(0)]
        assert first[0] == "all" and first[3] == "2"  # two items with 2+ votes
        names = sorted(str(people.get_row_at(i)[0]) for i in range(people.row_count))
        assert names == ["ali", "sara"]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BankScreen)


async def test_name_is_asked_once(bank_db):
    from persian_tui.tui.screens.name import NameScreen

    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await pilot.press("g")  # the agreement panel needs no name
        await pilot.pause()
        await pilot.press("escape")
        got = []
        app.with_name(got.append)
        await pilot.pause()
        assert isinstance(app.screen, NameScreen)
        for ch in "maryam":
            await pilot.press(ch)
        await pilot.press("enter")
        await pilot.pause()
        assert got == ["maryam"] and app.annotator == "maryam"
        app.with_name(got.append)  # known now: not asked again
        assert got == ["maryam", "maryam"]


async def test_new_database_is_filled_at_the_first_load(tmp_path, monkeypatch):
    """The sample is in the table when the bank first fills: no empty bank while a worker
    imports it, and no worker is needed for it (nothing to wait for)."""
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(jsonl.dumps(q) + "\n" for q in QUESTIONS[:2]), encoding="utf-8")
    monkeypatch.setattr(settings, "sample_bank_path", lambda: sample)
    app = make_app(tmp_path / "new.db", sample=True)
    seen = {}

    def first_load(message):
        if type(message).__name__ == "FirstLoad":
            seen["rows"] = table_uids(app)
            seen["status"] = str(app.bank.query_one("#status-line").render())

    async with app.run_test(size=SIZE, message_hook=first_load) as pilot:
        await bank_loaded(pilot)
        assert seen["rows"] == ["q-love", "q-arabic"]
        assert "2 questions" in seen["status"]
        await pilot.pause()
        assert any("imported 2 sample" in n for n in notices(app))


async def test_bank_says_loading_until_the_first_fill(bank_db):
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        bank = app.bank
        assert bank.loaded_at is None and "loading bank.db" in str(bank.query_one("#status-line").render())
        await bank_loaded(pilot)
        assert "4 questions" in str(bank.query_one("#status-line").render())


def first_hit(app) -> str:
    """The first entry of the open command palette ("" while it has none)."""
    from textual.command import CommandList

    found = app.screen.query(CommandList)
    if not found or not found.first().option_count:
        return ""
    return str(found.first().get_option_at_index(0).prompt)


async def test_command_palette_opens_every_screen(bank_db):
    from persian_tui.tui.commands import ScreenCommands
    from persian_tui.tui.screens.report import ReportScreen

    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        titles = [title for title, _, _ in ScreenCommands(app.screen)._commands()]
        for title in ("Label", "Label this question", "New question", "Edit question", "Adjudicate",
                      "Agreement", "Runs", "Review", "Report", "Search", "Reload", "Help", "Quit"):
            assert title in titles, title
        await pilot.press("ctrl+p")
        await pilot.pause()
        for ch in "report":
            await pilot.press(ch)
        await wait_for(pilot, lambda: first_hit(app).startswith("Report"), "the palette lists Report")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReportScreen), "the report opened")


async def test_detail_pane_lists_every_source_reference(bank_db):
    from persian_tui.models import SourceRef

    with Store(bank_db) as store:
        done = store.imports.add_new_questions([], links=[("q-arabic", SourceRef("bench", "12")),
                                                          ("q-arabic", SourceRef("exam-1401", "7"))])
        assert done.links == ["linked", "linked"]
    app = make_app(bank_db)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await pilot.press("down")  # q-arabic
        await pilot.pause()
        words = " ".join(" ".join(detail_text(app)).split())  # the list wraps in the pane
        assert "sources fixture #12; bench #12; exam-1401 #7" in words


async def test_notices_do_not_follow_the_user_to_another_screen(bank_db):
    """A toast raised on the bank is gone when another screen opens; a dialog keeps it (it is
    about the screen under it); a notice raised on the new screen shows there."""
    from textual.widgets._toast import Toast

    from persian_tui.tui.dialogs.common import ConfirmDialog
    from persian_tui.tui.screens.runs import RunsScreen

    def toasts() -> list[str]:
        return [str(t.render()) for t in app.screen.query(Toast)]

    app = make_app(bank_db)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await bank_loaded(pilot)
        app.notify("about the bank", timeout=60)
        await wait_for(pilot, lambda: any("about the bank" in t for t in toasts()), "the bank toast")
        app.push_screen(ConfirmDialog("sure?"))
        await pilot.pause()
        assert any("about the bank" in t for t in toasts())  # under a dialog: still there
        app.pop_screen()
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs screen")
        await pilot.pause()
        assert not any("about the bank" in t for t in toasts())
        app.notify("about the runs", timeout=60)
        await wait_for(pilot, lambda: any("about the runs" in t for t in toasts()), "the runs toast")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_id_column_keeps_the_books_number(tmp_path, size):
    """A book's question is known by its number: a long uid is cut in the id column, the
    number beside it never is (at 80 and at 120 columns)."""
    from tui_helpers import screen_lines

    db = tmp_path / "book.db"
    with Store(db) as s:
        s.questions.add_questions([dated_question(f"q-03768c34e{n}", source_id=str(220 + n)) for n in range(3)])
    app = make_app(db)
    async with app.run_test(size=size) as pilot:
        await bank_loaded(pilot)
        lines = "\n".join(screen_lines(app))
        assert all(f"({220 + n})" in lines for n in range(3)), lines


async def test_a_persian_search_is_shown_once_as_read(bank_db):
    """The search field lays Persian out as read itself: nothing repeats the query beside it
    behind an arrow (which read as "normalized to")."""
    from tui_helpers import screen_lines, type_persian

    app = make_app(bank_db)
    async with app.run_test(size=(120, 40)) as pilot:
        await bank_loaded(pilot)
        await pilot.press("slash")
        await type_persian(pilot, "عشق")
        await pilot.pause()
        top = "\n".join(screen_lines(app)[:3])
        shown = bidi.visual("عشق", shape=app.bidi_mode.shape)
        assert top.count(shown) == 1 and "→" not in top, top

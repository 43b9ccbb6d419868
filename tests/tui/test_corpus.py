"""The author screen's corpus pane, driven with Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import BABA, HAFEZ_1, MINI, SAADI, dated_question
from textual.widgets import Input, OptionList
from tui_helpers import bank_loaded, make_app, notices, open_screen, settle

from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.store import Store
from persian_tui.tui.screens.author import AuthorScreen
from persian_tui.tui.screens.corpus import CorpusScreen


def messages(app) -> str:
    return str(app.screen.query_one("#author-messages").render())


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "corpus.db"
    with Store(path) as store:
        import_corpus(store, MINI)
        store.questions.add_questions([dated_question("q-used", [HAFEZ_1, SAADI, BABA, ("بیتی", "که نیست")])])
    return path


async def search(pilot, words: str) -> CorpusScreen:
    screen = pilot.app.screen
    assert isinstance(screen, CorpusScreen)
    screen.query_one("#corpus-words", Input).value = words
    screen.query_one("#corpus-words").focus()
    await pilot.press("enter")
    await settle(pilot)
    return screen


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_search_insert_with_provenance_and_warnings(db, size):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=size) as pilot:
        author = await open_screen(pilot, "n", AuthorScreen)
        await pilot.press("ctrl+o")
        await settle(pilot)
        pane = await search(pilot, "میگذرد")  # no ZWNJ typed: finds می‌گذرد
        assert "7 poems" in str(pane.query_one("#corpus-header").render())
        assert [c.poem for c in pane.results] == ["/khayyam/robaee/sh1"] * 2
        assert pane.query_one("#corpus-results", OptionList).has_focus
        await pilot.press("2")  # one key: into option 2
        await pilot.press("down", "3")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is author
        assert author.query_one("#m1-2", Input).value == "این قافلهٔ عمر عجب می‌گذرد"
        assert author.query_one("#poet-2", Input).value == "خیام"
        assert author.query_one("#m2-3", Input).value == "پیش آر پیاله را که شب می‌گذرد"
        # a couplet used by another question, found through the corpus
        await pilot.press("ctrl+o")
        await settle(pilot)
        pane = await search(pilot, "عضوها")
        await pilot.press("1")
        await pilot.press("escape")
        await settle(pilot)
        author.query_one("#m1-4", Input).value = BABA[0]
        author.query_one("#m2-4", Input).value = "مصراعی که در هیچ دیوانی نیست و نخواهد بود"
        author.query_one("#key", Input).value = "1"
        await settle(pilot, seconds=0.6)
        text = messages(app)
        assert "options 2, 3 come from the same poem /khayyam/robaee/sh1" in text
        # one warning for couplet 1 in q-used (found both by text and through the corpus)
        about_1 = [w for w in author.warnings if w.startswith("couplet 1")]
        assert len(about_1) == 1 and "q-used" in about_1[0], author.warnings
        await pilot.press("ctrl+s")  # warned once
        await pilot.press("ctrl+s")
        await settle(pilot)
        uid = author.uid
        assert uid and any(n.startswith(f"saved {uid}") for n in notices(app))
    with Store(db) as store:
        links = store.links.links([uid])[uid]
        chosen = links[2]
        assert (chosen.method, chosen.couplet.poem, chosen.couplet.couplet) == ("chosen", "/khayyam/robaee/sh1", 0)
        assert links[1].method == "chosen" and links[4].method == "one_hemistich"


async def test_similar_couplets(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=(120, 40)) as pilot:
        author = await open_screen(pilot, "n", AuthorScreen)
        author.query_one("#m1-1", Input).value = "صلاح کار کجا و من خراب کجا"
        author.query_one("#m2-1", Input).value = "ببین تفاوت ره"
        author.query_one("#m1-1").focus()
        await pilot.press("ctrl+o")
        await settle(pilot)
        pane = pilot.app.screen
        await pilot.press("ctrl+t")  # similar to the couplet in focus in the form
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        assert pane.results and pane.results[0].poem == "/hafez/ghazal/sh2"
        assert "similar to the couplet in focus" in str(pane.query_one("#corpus-status").render())
        assert pane.scores == sorted(pane.scores, reverse=True)


async def test_pane_without_corpus(tmp_path):
    path = tmp_path / "empty.db"
    Store(path).close()
    app = make_app(path, annotator="reza")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "n", AuthorScreen)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert "none loaded" in str(pilot.app.screen.query_one("#corpus-header").render())
        await search(pilot, "عشق")
        assert pilot.app.screen.results == []
        pilot.app.screen.query_one("#corpus-results").focus()
        await pilot.press("1")  # nothing highlighted: a warning, no crash
        await settle(pilot)
        assert any("no couplet" in n for n in notices(app))
        assert isinstance(pilot.app.screen, CorpusScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(pilot.app.screen, AuthorScreen)


async def test_bank_detail_shows_derived_poets_marked(db):
    from persian_tui.tui.render import DERIVED
    from persian_tui.tui.widgets.couplets import QuestionDetail

    app = make_app(db, annotator="reza")
    async with app.run_test(size=(120, 40)) as pilot:
        await bank_loaded(pilot)
        await settle(pilot)
        q = pilot.app.screen.query_one(QuestionDetail).view.question
        assert q.uid == "q-used"
        assert [o.poet for o in q.options] == ["حافظ" + DERIVED, "سعدی" + DERIVED, "باباطاهر" + DERIVED, None]
    with Store(db) as store:
        assert all(o.poet is None for o in store.questions.get_question("q-used").options)  # not stored


async def test_similar_with_a_model_and_a_missing_one(db, tiny_st, monkeypatch):  # noqa: F811
    for spec, expect in [(f"st:{tiny_st['plain']}", f"(st:{tiny_st['plain']} cosine)"),
                         ("st:/nonexistent/model", "TF-IDF (st:/nonexistent/model unavailable")]:
        monkeypatch.setenv("PERSIAN_TUI_SIMILAR_MODEL", spec)
        app = make_app(db, annotator="reza")
        async with app.run_test(size=(120, 40)) as pilot:
            await open_screen(pilot, "n", AuthorScreen)
            await pilot.press("ctrl+o")
            await settle(pilot)
            pane = await search(pilot, "کجا")
            await pilot.press("ctrl+t")
            await pilot.app.workers.wait_for_complete()
            await settle(pilot)
            assert pane.results and expect in str(pane.query_one("#corpus-status").render())


async def test_placing_a_couplet_over_typed_text_asks_first(db):
    from persian_tui.tui.dialogs.common import ConfirmDialog

    app = make_app(db, annotator="reza")
    async with app.run_test(size=(120, 40)) as pilot:
        author = await open_screen(pilot, "n", AuthorScreen)
        author.query_one("#m1-2", Input).value = "مصراعی که نویسنده نوشت"
        author.query_one("#m2-2", Input).value = "و نباید گم شود"
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        await search(pilot, "میگذرد")
        await pilot.press("2")  # option 2 holds typed text: asked
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        message = app.screen.query_one("#confirm-message")
        assert "Option 2 holds text you typed" in str(message.render())
        # the typed Persian laid out as it is read, on its own lines: never run into the question after it
        from persian_tui import bidi

        lines = message.lines()
        ask = [i for i, line in enumerate(lines) if line.lstrip().startswith("Replace it with")]
        assert len(ask) == 1 and "(" + bidi.visual("خیام", shape=message.mode.shape) + ")?" in lines[ask[0]]
        typed = [line for line in lines[1:ask[0]] if line.strip()]
        assert typed and all(bidi.has_rtl(line) and "Replace" not in line for line in typed)
        await pilot.press("n")
        await settle(pilot)
        assert author.query_one("#m1-2", Input).value == "مصراعی که نویسنده نوشت"
        await pilot.press("1")  # option 1 is empty: placed at once
        await settle(pilot)
        assert isinstance(app.screen, CorpusScreen)
        assert author.query_one("#m1-1", Input).value == "این قافلهٔ عمر عجب می‌گذرد"
        await pilot.press("2", "y")
        await settle(pilot)
        assert author.query_one("#m1-2", Input).value == "این قافلهٔ عمر عجب می‌گذرد"
        assert author.query_one("#poet-2", Input).value == "خیام"
        assert any("option 2 ← /khayyam/robaee/sh1#" in n for n in notices(app))


@pytest.mark.parametrize("mode", ["app", "terminal"])
async def test_replace_question_wraps_persian_before_reordering_it(db, mode):
    """The "replace option?" question over long typed Persian: every line of the dialog is the
    logical message wrapped first and reordered after (bidi.block), so the typed text's first
    words open its first line and the poet's name in brackets reads as a word (reordered in app
    mode), not in logical order."""
    from tui_helpers import shown

    from persian_tui import bidi
    from persian_tui.models import CorpusCouplet
    from persian_tui.tui.dialogs.common import ConfirmDialog

    typed = "گر چه دوریم به یاد تو قدح می‌گیریم بعد منزل نبود در سفر روحانی و باز هم دوریم"
    couplet = CorpusCouplet("/hafez/ghazal/sh1", 0, HAFEZ_1[0], HAFEZ_1[1], "حافظ", "hafez", "غزل ۱",
                            "Ghazal", None, None)
    app = make_app(db, mode, annotator="reza")
    async with app.run_test(size=(80, 24)) as pilot:
        author = await open_screen(pilot, "n", AuthorScreen)
        author.query_one("#m1-1", Input).value = typed
        await settle(pilot)
        assert author._insert_couplet(1, couplet) is False
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        message = dialog.query_one("#confirm-message")
        lines = [t.rstrip() for t in shown(message)]
        width = message.content_size.width
        expected = [t.rstrip() for t in bidi.block(dialog.message, width, app.bidi_mode)]
        assert lines[:len(expected)] == expected
        persian = [t for t in lines if bidi.has_rtl(t) and not t.lstrip().startswith("Replace")]
        assert len(persian) > 1  # it wraps
        first = bidi.visual("گر چه") if mode == "app" else "گر چه"
        assert first in persian[0]
        poet = bidi.visual("حافظ", shape=app.bidi_mode.shape) if mode == "app" else "حافظ"
        assert any(t.startswith("Replace it with") and poet in t for t in lines), lines

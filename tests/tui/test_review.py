"""The review screen (judge verdicts reviewed by humans) and the taxonomy screen, with Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import make_question, numbered_couplets
from textual.widgets import DataTable, OptionList
from tui_helpers import make_app, notices, open_screen, settle, until, wait_for

from persian_tui import bidi
from persian_tui.annotation.consensus import adjudication_queue
from persian_tui.judging.verdicts import DEFAULT_TAXONOMY
from persian_tui.models import Prediction
from persian_tui.store import Store
from persian_tui.tui.dialogs.category_form import CategoryForm
from persian_tui.tui.dialogs.common import ConfirmDialog, ReasonDialog
from persian_tui.tui.dialogs.review import CategoryPicker
from persian_tui.tui.screens.review import ReviewScreen
from persian_tui.tui.screens.taxonomy import TaxonomyScreen
from persian_tui.tui.widgets.lines_view import LinesView

SIZE = (120, 40)


RATIONALE = "مدل معنای بیت دوم را نادرست فهمیده است; it read «ریگ صحرا» literally."


REASONING = "Option 2 talks about صبر and patience.\nگزینهٔ ۳ از عشق می‌گوید."


FLAG = "کلید اشتباه است"


# uid -> (predicted, judge verdict, judge category); every key is 1
JUDGED = {"q-0": (1, "sound", None), "q-1": (1, "sound", None), "q-2": (3, "flawed", "surface_overlap"),
          "q-3": (2, "flawed", "wrong_meaning"), "q-4": (4, "key_problem", "item_defect"),
          "q-5": (2, None, None)}


def build(path: Path, *, judged: bool = True) -> Path:
    with Store(path) as s:
        s.questions.add_questions([make_question(f"q-{i}", couplets=numbered_couplets(i),
                                                 explanation="سه بیت از صبر می‌گویند") for i in range(6)])
        if not judged:
            return path
        x = s.runs.create_run("llm", "model-x", {}, status="done", predictions=[
            Prediction(uid, pred, "ok", raw_output=f"Answer: {pred}", reasoning=REASONING)
            for uid, (pred, _, _) in JUDGED.items()])
        y = s.runs.create_run("llm", "model-y", {}, status="done",
                              predictions=[Prediction("q-0", 2, "ok", raw_output="2")])
        s.judging.ensure_error_categories(DEFAULT_TAXONOMY)
        judge = s.runs.create_run("judge", "judge-m", {}, status="done")
        for uid, (_, verdict, category) in JUDGED.items():
            if verdict is None:
                s.judging.save_judgment(judge.id, x.id, uid, status="unscored", raw_reply="hmm, hard to say")
            else:
                s.judging.save_judgment(judge.id, x.id, uid, status="ok", verdict=verdict, error_category=category,
                                        rationale=RATIONALE)
        s.judging.save_judgment(judge.id, y.id, "q-0", status="ok", verdict="flawed", error_category="missed_contrast",
                                rationale="chose 2")
        q1 = next(j for j in s.judging.judgments() if j.uid == "q-1")
        s.judging.add_review(q1.id, "ali", "accept")  # reviewed by someone else already
    return path


@pytest.fixture
def db(tmp_path) -> Path:
    return build(tmp_path / "review.db")


async def open_review(pilot) -> ReviewScreen:
    return await open_screen(pilot, ReviewScreen("reza"), ReviewScreen)


def queue(screen) -> list[str]:
    ol = screen.query_one("#rv-queue", OptionList)
    return [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]


def shown(screen) -> list[tuple[str, str]]:
    return [(j.uid, j.model) for j in screen.rows]


def pane(screen, which: str) -> str:
    return "\n".join(screen.query_one(f"#rv-{which}-view", LinesView).text_lines)


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def header(pilot, screen) -> str:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return text_of(screen, "#rv-header")


def notes(app) -> list[str]:
    return [n for n in notices(app)]


def rows(path: Path) -> dict[tuple[str, str], object]:
    with Store(path) as s:
        return {(j.uid, j.model): j for j in s.judging.judgments()}


async def select(pilot, screen, uid: str, model: str = "model-x") -> None:
    screen.query_one("#rv-queue", OptionList).highlighted = shown(screen).index((uid, model))
    await pilot.pause()
    assert (screen.current.uid, screen.current.model) == (uid, model)


async def type_text(pilot, text: str) -> None:
    for ch in text:
        await pilot.press("space" if ch == " " else ch)


async def test_queue_shows_both_sides_and_filters(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        # default: what is still to review (ali reviewed q-1)
        assert shown(screen) == [("q-0", "model-x"), ("q-0", "model-y"), ("q-2", "model-x"),
                                 ("q-3", "model-x"), ("q-4", "model-x"), ("q-5", "model-x")]
        assert "1/7 reviewed" in await header(pilot, screen)
        assert "show to review" in text_of(screen, "#rv-filters")
        assert queue(screen)[2].startswith("○ q-2  model-x  flawed · surface overlap")
        assert not screen.query_one("#rv-body").has_class("-stacked")

        await select(pilot, screen, "q-2")
        answer, judge = pane(screen, "answer"), pane(screen, "judge")
        assert bidi.visual(numbered_couplets(2)[0][0]) in answer  # couplets in display order
        assert "◆ key" in answer and "◆ model's choice ✗" in answer
        assert "choice      ۳" in answer and "key         ۱" in answer
        assert "Option 2 talks about" in answer and bidi.visual("گزینهٔ ۳ از عشق می‌گوید.") in answer
        assert "verdict     flawed" in judge and "category    surface overlap" in judge
        assert bidi.visual("شباهت ظاهری") in judge  # the Persian label too
        assert "not reviewed yet" in judge

        await pilot.press("a")  # reviewed
        assert shown(screen) == [("q-1", "model-x")]
        assert queue(screen)[0].startswith("✓ q-1") and "accepted" in queue(screen)[0]
        assert "accepted by ali" in pane(screen, "judge")
        await pilot.press("a")  # flagged
        assert shown(screen) == [] and "No flagged judgment" in pane(screen, "answer")
        await pilot.press("a")  # all
        assert len(shown(screen)) == 7
        await pilot.press("v")  # sound
        assert [u for u, _ in shown(screen)] == ["q-0", "q-1"]
        await pilot.press("v")  # flawed
        assert shown(screen) == [("q-0", "model-y"), ("q-2", "model-x"), ("q-3", "model-x")]
        await pilot.press("m")  # model-x only
        assert [u for u, _ in shown(screen)] == ["q-2", "q-3"]
        await pilot.press("v", "v")  # unscored
        assert [u for u, _ in shown(screen)] == ["q-5"]
        assert "unscored" in pane(screen, "judge") and "hmm, hard to say" in pane(screen, "judge")
        await pilot.press("V", "V", "V")  # back to sound (shift cycles backwards)
        assert [u for u, _ in shown(screen)] == ["q-0", "q-1"]


async def test_accept_and_override_persist_as_reviews(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("y")  # accept the judge on q-0 (sound)
        after = rows(db)
        assert after["q-0", "model-x"].review_verdict == "sound" and after["q-0", "model-x"].reviewer == "reza"
        assert (screen.current.uid, screen.current.model) == ("q-0", "model-y")  # the next to review
        assert ("q-0", "model-x") not in shown(screen)
        await select(pilot, screen, "q-2")

        await pilot.press("1")  # q-2: the judge said flawed, the reviewer says sound
        assert isinstance(app.screen, ReasonDialog)
        await type_text(pilot, "fine reading")
        await pilot.press("enter")
        await pilot.pause()
        j = rows(db)["q-2", "model-x"]
        assert (j.verdict, j.error_category) == ("flawed", "surface_overlap")  # the judge's is kept
        assert (j.review_verdict, j.review_category, j.review_note) == ("sound", None, "fine reading")

        assert screen.current.uid == "q-3"
        await pilot.press("2")  # flawed, but another category
        assert isinstance(app.screen, CategoryPicker)
        await pilot.press("4")  # missed_contrast
        await pilot.pause()
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("enter")  # no reason
        await pilot.pause()
        j = rows(db)["q-3", "model-x"]
        assert (j.error_category, j.review_verdict, j.review_category) == ("wrong_meaning", "flawed", "missed_contrast")

        await pilot.press("enter")  # Enter accepts too: q-4, key problem
        await pilot.pause()
        assert rows(db)["q-4", "model-x"].review_verdict == "key_problem"
        text = await header(pilot, screen)
        assert "5/7 reviewed" in text and "judge vs human κ" in text and "(4/5 agree) · category κ — (0/1)" in text

        await pilot.press("a", "a", "a")  # all: the marks tell accepted from overridden
        lines = dict(zip(shown(screen), queue(screen)))
        assert lines["q-2", "model-x"].startswith("≠") and "→ sound" in lines["q-2", "model-x"]
        assert "→ flawed · missed contrast" in lines["q-3", "model-x"]
        assert lines["q-0", "model-x"].startswith("✓")


async def test_unscored_cannot_be_accepted(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await select(pilot, screen, "q-5")
        await pilot.press("y")
        await pilot.pause()
        assert any("no verdict" in n for n in notes(app))
        assert not rows(db)["q-5", "model-x"].reviewed
        await pilot.press("3")  # overriding it works
        await pilot.press("enter")
        await pilot.pause()
        j = rows(db)["q-5", "model-x"]
        assert (j.review_verdict, j.review_category) == ("key_problem", "item_defect")


async def test_flag_sends_to_adjudication_and_undo_restores(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await select(pilot, screen, "q-4")
        assert "f sends the question to adjudication" in " ".join(pane(screen, "judge").split())
        await pilot.press("f")
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("enter")  # a reason is required
        assert isinstance(app.screen, ReasonDialog)
        await type_text(pilot, FLAG)
        await pilot.press("enter")
        await pilot.pause()
        assert rows(db)["q-4", "model-x"].flagged
        with Store(db) as s:
            assert [v.uid for v in adjudication_queue(s)] == ["q-4"]
        assert screen.current.uid == "q-5"  # moved on; the flagged item left "to review"
        assert "1 flagged" in await header(pilot, screen)

        await pilot.press("u")  # undo: the flag is retracted, back on q-4
        await pilot.pause()
        assert not rows(db)["q-4", "model-x"].flagged
        with Store(db) as s:
            assert adjudication_queue(s) == []
        assert screen.current.uid == "q-4"

        await pilot.press("y")  # accept, then undo: back to the judge's verdict alone
        await pilot.pause()
        assert rows(db)["q-4", "model-x"].reviewed
        await pilot.press("a")  # show reviewed: the undone item is not there any more...
        await pilot.press("u")
        await pilot.pause()
        j = rows(db)["q-4", "model-x"]
        assert not j.reviewed and j.verdict == "key_problem"
        assert screen.current.uid == "q-4"  # ...so the view changes to show it
        assert screen.filters.show == "todo"
        await pilot.press("u")  # nothing of reza's left (ali's review is not reza's to undo)
        await pilot.pause()
        assert any("nothing to undo" in n for n in notes(app))
        assert rows(db)["q-1", "model-x"].reviewed


async def test_note_keeps_the_item(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await select(pilot, screen, "q-3")
        await pilot.press("n")
        await type_text(pilot, "check couplet 2")
        await pilot.press("enter")
        await pilot.pause()
        j = rows(db)["q-3", "model-x"]
        assert j.review_note == "check couplet 2" and not j.reviewed
        assert screen.current.uid == "q-3" and "check couplet 2" in pane(screen, "judge")


async def test_blind_mode_hides_the_model(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("m")  # filter by a model, then go blind
        assert "model-x" in text_of(screen, "#rv-filters") or "model-y" in text_of(screen, "#rv-filters")
        assert any("model-" in line for line in queue(screen)) and "model-" in pane(screen, "answer")
        await pilot.press("b")
        everything = "\n".join([*queue(screen), pane(screen, "answer"), pane(screen, "judge"),
                                text_of(screen, "#rv-filters"), await header(pilot, screen)])
        assert "model-x" not in everything and "model-y" not in everything
        assert "model #" in everything and "blind on" in text_of(screen, "#rv-filters")
        await pilot.press("b")
        assert "model-" in pane(screen, "answer")


@pytest.mark.parametrize("mode,width,stacked", [("terminal", 120, True), ("app", 90, True), ("app", 120, False)])
async def test_panes_stack_in_terminal_mode_and_narrow(db, mode, width, stacked):
    app = make_app(db, mode, annotator="reza")
    async with app.run_test(size=(width, 40)) as pilot:
        screen = await open_review(pilot)
        assert screen.query_one("#rv-body").has_class("-stacked") == stacked
        if mode == "terminal":  # logical text: the terminal reorders
            assert numbered_couplets(0)[0][0] in pane(screen, "answer")


async def test_empty_database(tmp_path):
    app = make_app(build(tmp_path / "empty.db", judged=False), annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        assert "No judgments yet" in pane(screen, "answer")
        await pilot.press("y", "u")  # nothing happens, nothing breaks
        await pilot.press("escape")
        assert not isinstance(app.screen, ReviewScreen)


# ------------------------------------------------------------------ taxonomy


def table_names(screen) -> list[str]:
    return [k.value for k in screen.query_one(DataTable).rows]


async def open_taxonomy(pilot) -> TaxonomyScreen:
    await pilot.app.push_screen(TaxonomyScreen())
    await pilot.pause()
    assert isinstance(pilot.app.screen, TaxonomyScreen)
    return pilot.app.screen


async def test_taxonomy_is_seeded_on_open(tmp_path):
    path = build(tmp_path / "t.db", judged=False)
    app = make_app(path, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_taxonomy(pilot)
        assert table_names(screen) == [row[0] for row in DEFAULT_TAXONOMY]
        detail = "\n".join(screen.query_one(LinesView).text_lines)
        assert "wrong meaning" in detail and bidi.visual("بدفهمی معنا") in detail


async def test_taxonomy_add_edit_delete(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_taxonomy(pilot)
        await pilot.press("n")
        assert isinstance(app.screen, CategoryForm)
        await type_text(pilot, "bad name")
        await pilot.press("enter")  # next field
        await type_text(pilot, "خلط وزن")
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, CategoryForm)  # bad name, no English label
        error = str(app.screen.query_one("#form-error").render())
        assert "letters, digits and _" in error and "English label is required" in error
        app.screen.query_one("#f-name").value = "meter_confusion"
        app.screen.query_one("#f-label_en").value = "meter confusion"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TaxonomyScreen)
        assert table_names(screen)[-1] == "meter_confusion"
        with Store(db) as s:
            c = s.judging.error_categories()[-1]
        assert (c.name, c.label_fa, c.label_en) == ("meter_confusion", "خلط وزن", "meter confusion")

        await pilot.press("e")  # edit: the name is fixed, the labels change
        assert isinstance(app.screen, CategoryForm) and app.screen.query_one("#f-name").disabled
        app.screen.query_one("#f-description_en").value = "Confused the metre with the meaning."
        await pilot.press("ctrl+s")
        await pilot.pause()
        with Store(db) as s:
            assert s.judging.error_categories()[-1].description_en == "Confused the metre with the meaning."

        await pilot.press("d")  # unused: asks, then deletes
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await pilot.pause()
        assert "meter_confusion" not in table_names(screen)

        table = screen.query_one(DataTable)
        table.move_cursor(row=table_names(screen).index("surface_overlap"))
        await pilot.pause()
        await pilot.press("d")  # used by a judgment: the store refuses and says why
        await pilot.pause()
        assert any("is used by" in n for n in notes(app))
        assert "surface_overlap" in table_names(screen)

        await pilot.press("escape")
        assert not isinstance(app.screen, TaxonomyScreen)


async def test_taxonomy_from_review_and_picker_labels(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TaxonomyScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("2")
        picker = app.screen
        assert isinstance(picker, CategoryPicker)
        prompt = str(picker.query_one(OptionList).get_option_at_index(1).prompt)
        assert "surface overlap" in prompt and bidi.visual("شباهت ظاهری") in prompt
        await pilot.press("escape")  # cancelled: nothing recorded
        await pilot.pause()
        assert not rows(db)["q-0", "model-x"].reviewed


def test_review_snapshot(db, snap_compare):
    async def run_before(pilot) -> None:
        await open_review(pilot)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(make_app(db, annotator="reza"), terminal_size=SIZE, run_before=run_before)


async def test_a_flag_from_judge_review_shows_in_adjudication_with_its_judgment(db):
    from persian_tui.tui.screens.adjudicate import AdjudicationScreen

    with Store(db) as s:  # reza flags q-4 in judge review, with a reason
        j = next(j for j in s.judging.judgments() if j.uid == "q-4")
        s.judging.add_review(j.id, "reza", "flag", note=FLAG)
    app = make_app(db, "terminal", annotator="reza")  # logical text, to compare with what was typed
    async with app.run_test(size=SIZE) as pilot:
        await open_review(pilot)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AdjudicationScreen), "adjudication")
        await pilot.pause()
        text = "\n".join(app.screen.query_one("#adj-view", LinesView).text_lines)
        assert "key problem flagged by reza" in text
        assert FLAG in text  # the reason
        assert "model-x chose ۴" in text  # the judged answer
        assert "judge-m (run 3): key problem · item defect" in text  # the judgment
        assert "«ریگ صحرا»" in text  # and its rationale


async def test_taxonomy_counts_uses_in_a_worker(db):
    """The table shows at once with "…" for the uses; a worker counts them (every judgment
    read on its own connection) and posts UsageCounted, whose handler fills the column."""
    from persian_tui.tui.messages import UsageCounted

    seen: list[tuple[dict, str]] = []

    def hook(message):
        if isinstance(message, UsageCounted) and not any(m is message.used for m, _ in seen):
            table = app.screen.query_one("#tx-table", DataTable)
            seen.append((message.used, str(table.get_cell("surface_overlap", "used"))))

    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await open_review(pilot)
        await pilot.press("t")  # opened by the app (a screen pushed from the test task would not see the hook)
        await wait_for(pilot, lambda: isinstance(app.screen, TaxonomyScreen), "the taxonomy")
        screen = app.screen
        table = screen.query_one("#tx-table", DataTable)
        await wait_for(pilot, lambda: screen.used is not None, "the uses counted")
        assert [(used["surface_overlap"], cell) for used, cell in seen] == [(1, "…")]  # "…" until then
        assert str(table.get_cell("surface_overlap", "used")) == "1"
        assert str(table.get_cell("missed_contrast", "used")) == "1"  # model-y's judgment
        assert str(table.get_cell("wrong_meaning", "used")) == "1"


async def test_a_decision_rereads_one_judgment_not_all(db):
    """Accepting, noting and undoing re-read the judgment decided on; only r reads them all."""
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        calls = []
        real = app.store.judging.judgments

        def spy(**kw):
            calls.append(kw.get("ids"))
            return real(**kw)

        app.store.judging.judgments = spy
        first = screen.current.uid
        await pilot.press("y")  # accept: on to the next item to review
        await pilot.pause()
        await pilot.press("u")  # undo: back to it
        await pilot.pause()
        assert screen.current.uid == first and not screen.current.reviewed
        assert calls and all(ids is not None and len(ids) == 1 for ids in calls), calls
        await pilot.press("r")
        await pilot.pause()
        assert calls[-1] is None  # a reload reads everything
        with Store(db) as s:
            fresh = {j.id: j for j in s.judging.judgments()}
        assert [(j.id, j.reviewed, j.flagged) for j in screen.all] == [
            (j.id, fresh[j.id].reviewed, fresh[j.id].flagged) for j in screen.all]


async def test_a_flag_on_a_curated_question_reaches_adjudication(db):
    from persian_tui.tui.screens.adjudicate import AdjudicationScreen

    with Store(db) as s:
        s.curation.adjudicate("q-4", "maryam", "accept", reason="checked")  # curated before the review
        assert s.questions.get_question("q-4").status == "curated"
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await select(pilot, screen, "q-4")
        await pilot.press("f")
        await type_text(pilot, FLAG)
        await pilot.press("enter")
        await pilot.pause()
        with Store(db) as s:
            assert [v.uid for v in adjudication_queue(s)] == ["q-4"]
        await pilot.press("escape")
        await settle(pilot)
        adj = await open_screen(pilot, AdjudicationScreen("maryam"), AdjudicationScreen)
        assert [v.uid for v in adj.items] == ["q-4"]
    with Store(db) as s:  # a decision made after the flag settles it: it leaves the queue
        s.curation.adjudicate("q-4", "maryam", "retire", reason=FLAG)
        assert adjudication_queue(s) == []
        flag = next(j for j in s.judging.judgments() if j.uid == "q-2")
        s.judging.add_review(flag.id, "reza", "flag", note="again")  # a flag raised later comes back
        assert [v.uid for v in adjudication_queue(s)] == ["q-2"]


def test_review_names_the_judged_sample():
    from persian_tui.models import JudgmentRow
    from persian_tui.tui.widgets.review_lines import question_lines

    j = JudgmentRow(1, 2, 3, "q-001", "m", "ok", "flawed", None, None, sample=2)
    assert question_lines(j, None, None, "m", 80, bidi.APP)[0].text.endswith("run 3  ·  sample 2")
    j0 = JudgmentRow(1, 2, 3, "q-001", "m", "ok", "flawed", None, None)
    assert question_lines(j0, None, None, "m", 80, bidi.APP)[0].text.endswith("run 3")


@pytest.mark.parametrize("mode", ["app", "terminal"])
async def test_the_category_form_stays_put(db, mode):
    """Typing Persian (its preview line) or an error appearing does not move the form's fields."""
    app = make_app(db, mode, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await open_taxonomy(pilot)
        await pilot.press("n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, CategoryForm)
        fields = ["#f-name", "#f-label_en", "#f-description_en", "#f-example"]
        before = [form.query_one(f).region for f in fields]
        await type_text(pilot, "bad name")
        await pilot.press("enter")
        await type_text(pilot, "خلط وزن")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert str(form.query_one("#form-error").render())
        assert [form.query_one(f).region for f in fields] == before


async def test_the_judges_raw_reply_shows_persian_letters_not_escapes(db):
    """An unscored judgment shows the judge's raw reply; its JSON escapes of Persian letters
    (`\\u0645\\u0627\\u0631`) are shown as the letters a reviewer reads (`مار`)."""
    with Store(db) as s:
        s.conn.execute("UPDATE judgments SET raw_reply = ? WHERE raw_reply = 'hmm, hard to say'",
                       ('{"verdict": "flawed", "rationale": "\\u0645\\u0627\\u0631 is a metaphor\\u001b"',))
        s.conn.commit()
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        await select(pilot, screen, "q-5")
        text = pane(screen, "judge")
        assert "\\u0645" not in text and bidi.visual("مار", shape=app.bidi_mode.shape) in text, text
        assert "\\u001b" in text  # a control character stays escaped


async def test_the_taxonomy_counts_a_categorys_uses_as_its_delete_refusal_does(db):
    """One count of a category's uses: the table's `used`, the detail's "used by N", and the
    refusal to delete it say the same number, reviews (an accept, an undone override) included."""
    with Store(db) as s:
        for j in s.judging.judgments():
            if j.error_category == "surface_overlap":
                s.judging.add_review(j.id, "reza", "accept")
                s.judging.add_review(j.id, "reza", "override", verdict="flawed", error_category="surface_overlap")
                s.judging.undo_review("reza")
                break
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_taxonomy(pilot)
        await until(pilot, lambda: screen.used is not None, "the uses counted")
        shown = screen.used["surface_overlap"]
        table = screen.query_one(DataTable)
        table.move_cursor(row=table_names(screen).index("surface_overlap"))
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        refusal = next(n for n in notes(app) if "is used by" in n)
        assert f"is used by {shown} " in refusal, (shown, refusal)


def test_the_review_filters_on_the_category_in_force_and_on_judge_human_agreement():
    """`c` filters on the category after review (an override moves a judgment to its new
    category); `a` shows the judgments where the reviewer agreed with the judge, or overrode it."""
    from persian_tui.models import JudgmentRow
    from persian_tui.tui.widgets.review_filters import ReviewFilters

    def row(i, verdict, category, review=None, review_category=None):
        return JudgmentRow(i, 9, 1, f"q-{i}", "m", "ok", verdict, category, None, review_verdict=review,
                           review_category=review_category, reviewer="reza" if review else None)

    rows = [row(1, "flawed", "surface_overlap", "flawed", "missed_contrast"),  # overridden to another category
            row(2, "flawed", "surface_overlap", "flawed", "surface_overlap"),  # accepted
            row(3, "sound", None, "key_problem", "item_defect"),  # overridden
            row(4, "flawed", "surface_overlap")]  # not reviewed
    by_category = ReviewFilters(category="missed_contrast", show="all")
    assert [j.uid for j in rows if by_category.keeps(j)] == ["q-1"]
    assert "missed_contrast" in ReviewFilters().choices("category", rows)
    assert [j.uid for j in rows if ReviewFilters(show="agreed").keeps(j)] == ["q-2"]
    assert [j.uid for j in rows if ReviewFilters(show="overridden").keeps(j)] == ["q-1", "q-3"]


async def test_a_runs_answers_show_their_judges_verdicts(db):
    """A judged run's answers show each answer's verdict: the judge's (with its run) and the
    review in force, in the answer's pane."""
    from persian_tui.tui.screens.run_detail import RunDetailScreen

    with Store(db) as s:
        target = next(r for r in s.runs.runs() if r.model == "model-x").id
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(RunDetailScreen(target))
        await wait_for(pilot, lambda: app.screen.shown, "the run's answers")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        detail.show("q-1")
        await wait_for(pilot, lambda: detail.text_lines and detail.text_lines[0].startswith("q-1"), "q-1's pane")
        text = " ".join(" ".join(detail.text_lines).split())  # however the pane's width wrapped it
        assert "judge" in text and "run 3: sound; accepted by ali" in text, text


async def test_at_80x24_the_review_shows_its_kappa_and_every_key(db):
    """At 80×24 the header gives judge–human agreement first when the counts leave no room for
    both, and the keys take two lines rather than hiding half behind "…"."""
    from tui_helpers import screen_lines, until

    app = make_app(db, annotator="reza")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        await until(pilot, lambda: "κ" in screen.kappa or "no reviews" in screen.kappa, "the kappa")
        await pilot.pause()
        lines = screen_lines(app)
        head = lines[0]
        assert screen.kappa.startswith("judge vs human κ") and screen.kappa in head, head
        keys = "\n".join(lines[-2:])
        assert "Flag" in keys and "Note" in keys and "…" not in keys, keys

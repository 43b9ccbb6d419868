"""The label screen, driven with Textual's Pilot: blind display, one-key answers, undo, queue."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import make_question, numbered_couplets
from textual.widgets import TextArea
from tui_helpers import bank_loaded, make_app, notices, open_screen, until, wait_for

from persian_tui import bidi
from persian_tui.models import QueueScope
from persian_tui.store import Store
from persian_tui.tui.dialogs.common import ConfirmDialog
from persian_tui.tui.dialogs.text_prompt import TextPrompt
from persian_tui.tui.fields.rtl_text import RtlText
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.screens.guidelines import DEFAULT_GUIDELINES, GuidelinesScreen
from persian_tui.tui.screens.label import LabelScreen
from persian_tui.tui.widgets.blind_question import BlindQuestionView

SIZE = (120, 40)
ME = "maryam"
SECRET = "SECRET"  # in every field an annotator must not see


QUESTIONS = [
    make_question(f"q-{i}", numbered_couplets(i), key=(i % 4) + 1, stem=f"صورت پرسش {i}",
                  explanation=f"{SECRET}-explanation توضیح", category=f"{SECRET}-category",
                  poet=f"{SECRET}-poet")
    for i in range(1, 7)
]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "label.db"
    with Store(path) as store:
        store.questions.add_questions(QUESTIONS)
    return path


async def open_label(pilot) -> LabelScreen:
    return await open_screen(pilot, "l", LabelScreen)


async def press(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await pilot.pause()


def shown_uid(screen: LabelScreen) -> str | None:
    return screen.current.uid if screen.current else None


def question_lines(app) -> list[str]:
    return app.screen.query_one(BlindQuestionView).text_lines


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def screen_text(app) -> str:
    """The text of every widget on the current screen."""
    parts = question_lines(app) if app.screen.query(BlindQuestionView) else []
    for widget in app.screen.query("*"):
        try:
            parts.append(str(widget.render()))
        except Exception:  # some containers do not render text
            pass
    return "\n".join(parts)


def my_labels(app):
    return app.store.labels.labels(annotator=ME)


# ------------------------------------------------------------------ blind display


async def test_opens_blind_with_the_four_couplets(db):
    with Store(db) as other:  # someone else's labels (and notes) are never shown
        for i in range(1, 7):
            other.labels.add_label(f"q-{i}", "ali", 2, note=f"{SECRET}-others-note", flag=f"{SECRET}-flag")
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        assert shown_uid(screen) == "q-1"
        lines = question_lines(app)
        width = app.screen.query_one(BlindQuestionView).content_size.width
        assert bidi.display_lines("صورت پرسش 1", width, bidi.APP)[0] in lines
        numbers = [line[-1] for line in lines if line.endswith((" ۱", " ۲", " ۳", " ۴"))]
        assert numbers == list("۱۲۳۴")
        for mesra1, mesra2 in numbered_couplets(1):
            assert any(bidi.visual(mesra1) in line for line in lines)
            assert any(bidi.visual(mesra2) in line for line in lines)
        everything = screen_text(app)
        assert "q-1" in everything and "0 answered, " in everything  # the collector works
        assert SECRET not in everything and "توضیح" not in everything
        assert not any("key" in line for line in lines)
        assert ME in text_of(app, "#label-head") and "q-1" in text_of(app, "#label-head")


async def test_terminal_mode_keeps_logical_text(db):
    app = make_app(db, "terminal", annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        await open_label(pilot)
        lines = question_lines(app)
        assert "۱ " + numbered_couplets(1)[0][0] in lines
        assert "  " + numbered_couplets(1)[0][1] in lines


# ------------------------------------------------------------------ one key answers


async def test_digit_answers_and_moves_on(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await pilot.pause(0.1)
        await press(pilot, "2")
        (label,) = my_labels(app)
        assert (label.uid, label.answer, label.confidence, label.skipped) == ("q-1", 2, None, False)
        assert label.seconds is not None and label.seconds >= 0
        assert shown_uid(screen) == "q-2"
        assert "labelled q-1 as ۲" in text_of(app, "#label-last")
        assert "1 answered, 5 to go" in text_of(app, "#progress-mine")


async def test_persian_and_arabic_digits_answer(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await press(pilot, "۳")
        await press(pilot, "١")  # Arabic-Indic one
        assert [(l.uid, l.answer) for l in my_labels(app)] == [("q-1", 3), ("q-2", 1)]
        assert shown_uid(screen) == "q-3"


async def test_skip(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await press(pilot, "s")
        (label,) = my_labels(app)
        assert label.skipped and label.answer is None
        assert shown_uid(screen) == "q-2" and "skipped q-1" in text_of(app, "#label-last")
        await press(pilot, "س")  # the s key on a Persian keyboard layout
        assert [(l.uid, l.skipped) for l in my_labels(app)] == [("q-1", True), ("q-2", True)]


async def test_flag_asks_a_reason(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await press(pilot, "f")
        assert isinstance(app.screen, TextPrompt)
        await press(pilot, "enter")  # a reason is required
        assert isinstance(app.screen, TextPrompt) and my_labels(app) == []
        for ch in "دو پاسخ":
            await pilot.press(ch)
        await press(pilot, "enter")
        (label,) = my_labels(app)
        assert (label.uid, label.flag, label.answer) == ("q-1", "دو پاسخ", None)
        assert app.screen is screen and shown_uid(screen) == "q-2"
        assert "flagged q-1" in text_of(app, "#label-last")


async def test_flag_cancelled_keeps_the_item(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await press(pilot, "f")
        await press(pilot, "escape")
        assert app.screen is screen and shown_uid(screen) == "q-1" and my_labels(app) == []


async def test_note_is_shown_and_saved_with_the_answer(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await press(pilot, "n")
        for ch in "مبهم":
            await pilot.press(ch)
        await press(pilot, "enter")
        assert screen.note == "مبهم"
        note = app.screen.query_one("#label-note")
        assert note.display and bidi.visual("مبهم") in str(note.render())
        await press(pilot, "4")
        (label,) = my_labels(app)
        assert (label.answer, label.note) == (4, "مبهم")
        assert not app.screen.query_one("#label-note").display  # the next item starts without


async def test_a_pasted_note_past_the_limit_is_not_kept_and_says_why(db):
    from textual.events import Paste

    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await press(pilot, "n")
        app.screen.query_one("Input").post_message(Paste("x" * 5000))
        await pilot.pause()
        assert app.screen.query_one("Input").value == ""  # the field takes at most a note's 2,000
        assert any(n.startswith("at most 2,000 characters in this field") for n in notices(app))
        await press(pilot, "enter")
        assert screen.note is None
        await press(pilot, "4")
        (label,) = my_labels(app)
        assert (label.answer, label.note) == (4, None)  # the answer is saved; nothing oversized reached it


async def test_confidence_cycles_and_shift_digit_is_sure(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        await open_label(pilot)
        await press(pilot, "c", "c")
        assert "medium" in text_of(app, "#label-head")
        await press(pilot, "1")
        await press(pilot, "@")  # Shift+2 on a US keyboard
        await press(pilot, "c")  # low: Shift overrides it
        await press(pilot, "$")
        got = [(l.uid, l.answer, l.confidence) for l in my_labels(app)]
        assert got == [("q-1", 1, "medium"), ("q-2", 2, "high"), ("q-3", 4, "high")]
        assert "labelled q-3 as ۴ (high)" in text_of(app, "#label-last")


# ------------------------------------------------------------------ undo


async def test_undo_twice_goes_back_and_retracts(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await press(pilot, "1")  # q-1
        await press(pilot, "2")  # q-2
        assert shown_uid(screen) == "q-3"
        await press(pilot, "u")
        assert shown_uid(screen) == "q-2" and "undone: q-2" in text_of(app, "#label-last")
        assert [l.uid for l in my_labels(app)] == ["q-1"]
        await press(pilot, "u")
        assert shown_uid(screen) == "q-1" and my_labels(app) == []
        # answering again walks forward through the undone items, then back to the queue
        await press(pilot, "3")
        assert shown_uid(screen) == "q-2"
        await press(pilot, "4")
        assert shown_uid(screen) == "q-3"
        assert [(l.uid, l.answer) for l in my_labels(app)] == [("q-1", 3), ("q-2", 4)]
        await press(pilot, "u", "u", "u")
        assert my_labels(app) == [] and "nothing to undo" in text_of(app, "#label-last")


# ------------------------------------------------------------------ the queue


async def test_queue_end_state(db):
    with Store(db) as other:
        for i in range(1, 5):
            other.labels.add_label(f"q-{i}", "ali", 1)
        other.labels.set_setting("label_target", "1")
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        assert screen.target == 1 and shown_uid(screen) == "q-5"
        await press(pilot, "1", "2")
        assert screen.current is None
        assert app.screen.query_one("#label-empty").display
        assert not app.screen.query_one("#label-question").display
        assert "Nothing left for you to label" in text_of(app, "#label-empty")
        await press(pilot, "3")
        assert "nothing to label" in text_of(app, "#label-last") and len(my_labels(app)) == 2
        await press(pilot, "t", "y")  # target 2 (confirmed): the questions labelled once by ali come back
        assert screen.target == 2 and shown_uid(screen) == "q-1"
        assert app.store.labels.get_setting("label_target") == "2"


async def test_target_counts_other_annotators(db):
    with Store(db) as other:
        for i in (1, 2, 3):
            other.labels.add_label(f"q-{i}", "ali", 1)
            other.labels.add_label(f"q-{i}", "sara", 2)
        other.labels.add_label("q-4", "ali", skipped=True)  # a skip does not count towards the target
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await press(pilot, "t", "t", "t", "t", "y")  # 3 -> 4 -> 5 -> 1 -> 2, confirmed
        assert screen.target == 2
        seen = []
        while screen.current is not None and len(seen) < 10:
            seen.append(shown_uid(screen))
            await press(pilot, "1")
        assert seen == ["q-4", "q-5", "q-6"]
        assert "0 left for you" in text_of(app, "#progress-queue")


async def test_the_lease_is_renewed_on_a_long_stay(db, monkeypatch):
    from persian_tui.tui.screens import label

    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        expires = "SELECT expires_at FROM claims WHERE annotator = ?"
        before = app.store.conn.execute(expires, (ME,)).fetchone()[0]
        monkeypatch.setattr(label, "RENEW_AFTER", -1)
        screen._tick()
        assert app.store.conn.execute(expires, (ME,)).fetchone()[0] > before
        assert shown_uid(screen) == "q-1"


async def test_escape_releases_the_claim(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        await open_label(pilot)
        assert app.store.conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 1
        await press(pilot, "escape")
        assert isinstance(app.screen, BankScreen)
        assert app.store.conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


async def test_quitting_from_the_label_screen_releases_the_claim(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        await open_label(pilot)
        await press(pilot, "ctrl+q")
    with Store(db) as store:
        assert store.conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


# ------------------------------------------------------------------ guidelines


async def test_guidelines_default_and_edit(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        await press(pilot, "g")
        assert isinstance(app.screen, GuidelinesScreen)
        shown = app.screen.query_one("#guide-text", RtlText)
        assert shown.text == DEFAULT_GUIDELINES
        lines = shown.lines()
        assert "Labelling guidelines: the couplet that differs in meaning" in lines
        assert any(line.endswith(bidi.visual("راهنمای برچسب‌گذاری: قرابت معنایی")) for line in lines)
        await press(pilot, "e")
        editor = app.screen.query_one("#guide-editor", TextArea)
        assert editor.has_focus and editor.text == DEFAULT_GUIDELINES
        for ch in "نو ":
            await pilot.press(ch)
        await press(pilot, "ctrl+s")
        assert app.store.labels.get_setting("guidelines") == "نو " + DEFAULT_GUIDELINES
        assert not app.screen.editing
        await press(pilot, "escape")
        assert app.screen is screen
        await press(pilot, "g")  # shown again from the database
        assert app.screen.query_one("#guide-text", RtlText).text.startswith("نو ")
        await press(pilot, "e", "x", "escape")  # Escape with a change asks first
        assert isinstance(app.screen, ConfirmDialog)
        await press(pilot, "n")  # no: still editing, the typed text kept
        assert isinstance(app.screen, GuidelinesScreen) and app.screen.editing
        assert app.screen.query_one("#guide-editor", TextArea).text.startswith("x")
        await press(pilot, "escape", "y")  # yes: the change is dropped
        assert app.store.labels.get_setting("guidelines").startswith("نو ")
        assert isinstance(app.screen, GuidelinesScreen) and not app.screen.editing
        await press(pilot, "q")
        assert app.screen is screen and shown_uid(screen) == "q-1"


async def test_label_this_question_from_the_bank(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await press(pilot, "down", "down", "down")
        await press(pilot, "L")
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        assert shown_uid(screen) == "q-4"
        await press(pilot, "2")
        assert [(l.uid, l.answer) for l in my_labels(app)] == [("q-4", 2)]
        assert shown_uid(screen) == "q-1"  # then the queue


async def test_scoped_queue_and_honest_bars(tmp_path):
    path = tmp_path / "scoped.db"
    with Store(path) as store:
        store.questions.add_questions([make_question(f"q-{i}", numbered_couplets(i), tags=["قدیم"] if i > 3 else [])
                                       for i in range(1, 7)])
        store.labels.add_label("q-5", "ali", 1)
    app = make_app(path, "app", annotator=ME, queue_scope=QueueScope(tag="قدیم"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        assert shown_uid(screen) == "q-5"  # in scope, and another annotator started it
        assert "tag قدیم" in text_of(app, "#label-head")
        await press(pilot, "s")  # a skip is not a label
        assert "0 answered (1 skipped), 2 to go" in text_of(app, "#progress-mine")
        assert bar(app, "mine") == (0, 3)  # the bar counts answers, as its text says
        assert "0 of 3 open questions have 3 labels" in text_of(app, "#progress-bank")
        assert bar(app, "bank") == (0, 3)
        await press(pilot, "1", "1")
        assert screen.current is None  # only the three tagged questions were served
        assert "2 answered (1 skipped), 0 to go" in text_of(app, "#progress-mine")
        assert bar(app, "mine") == (2, 3)  # not full: the skipped question is not answered


def bar(app, row: str) -> tuple[int, int]:
    from textual.widgets import ProgressBar

    b = app.screen.query_one(f"#progress-{row}-bar", ProgressBar)
    return int(b.progress), int(b.total)


async def test_busy_database_does_not_freeze_the_label_screen(db):
    """Another connection holds the write lock while I answer: the screen stays responsive,
    says the database is busy, and the label is saved once (and the queue goes on) when
    the lock is released."""
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        assert shown_uid(screen) == "q-1"
        # the UI thread's connection waits at most 250 ms for the lock (the CLI's 10 s would freeze it)
        assert app.store.conn.execute("PRAGMA busy_timeout").fetchone()[0] <= 250
        other = Store(db)
        other.conn.execute("BEGIN IMMEDIATE")  # another program writing
        try:
            await press(pilot, "2")
            assert "busy" in text_of(app, "#label-last") and screen.saving == "q-1"
            await press(pilot, "3")  # handled (no second label while the first is saving)
            assert "still saving q-1" in text_of(app, "#label-last")
            assert any("database busy" in n for n in notices(app))
        finally:
            other.conn.execute("COMMIT")
            other.close()
        await until(pilot, lambda: shown_uid(screen) == "q-2", "q-1 saved once the lock is free, q-2 shown")
        assert screen.saving is None
        assert [(lab.uid, lab.answer) for lab in my_labels(app)] == [("q-1", 2)]
        assert "labelled q-1 as ۲" in text_of(app, "#label-last")


async def test_label_saved_message_flow(db):
    """Message flow of a save the database delayed: the screen posts LabelSaved once, for
    the item it showed, after the lock is free; only its arrival moves the queue on."""
    from persian_tui.tui.messages import LabelSaved

    flow: list[tuple[str, str | None, str | None]] = []
    seen: list[LabelSaved] = []  # kept alive, so an id is never reused

    def hook(message):
        # first seen at the screen, before its handler runs (then it bubbles to the app)
        if isinstance(message, LabelSaved) and not any(m is message for m in seen):
            seen.append(message)
            flow.append((message.uid, message.error, shown_uid(app.screen)))

    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = await open_label(pilot)
        other = Store(db)
        other.conn.execute("BEGIN IMMEDIATE")
        try:
            await press(pilot, "3")
            assert flow == [] and screen.saving == "q-1" and shown_uid(screen) == "q-1"
        finally:
            other.conn.execute("COMMIT")
            other.close()
        await wait_for(pilot, lambda: shown_uid(screen) == "q-2", "the next item")
        assert flow == [("q-1", None, "q-1")]  # one message; the screen still on q-1 when it came
        await press(pilot, "4")  # a free database: saved at once, no message needed
        assert flow == [("q-1", None, "q-1")]
        assert [(lab.uid, lab.answer) for lab in my_labels(app)] == [("q-1", 3), ("q-2", 4)]


def test_label_snapshot(db, snap_compare, monkeypatch):
    monkeypatch.setattr("persian_tui.tui.screens.label.monotonic", lambda: 1000.0)  # ⏱ 0:00

    async def run_before(pilot) -> None:
        await open_label(pilot)
        await press(pilot, "2", "s")  # one answer and one skip in the bars

    assert snap_compare(make_app(db, annotator=ME), terminal_size=SIZE, run_before=run_before)


# ------------------------------------------------------------------ honest figures


class Clock:
    """A monotonic clock the test moves (the label screen's timer reads it)."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def test_the_item_timer_survives_t_and_fast_answers_are_marked(db, monkeypatch):
    from textual.widgets import DataTable

    from persian_tui.tui.screens.agreement import AgreementScreen

    clock = Clock()
    monkeypatch.setattr("persian_tui.tui.screens.label.monotonic", clock)
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        assert shown_uid(screen) == "q-1"
        clock.now += 40
        await press(pilot, "c")  # confidence low
        await press(pilot, "t", "y")  # target 4: the same item stays, its clock and confidence too
        assert shown_uid(screen) == "q-1" and screen.confidence == "low"
        clock.now += 0.5
        await press(pilot, "1")
        await press(pilot, *"234")  # typed ahead: nobody read those items
        labels = {l.uid: l for l in my_labels(app)}
        assert labels["q-1"].seconds == pytest.approx(40.5) and labels["q-1"].confidence == "low"
        assert [labels[u].seconds for u in ("q-2", "q-3", "q-4")] == [0.0, 0.0, 0.0]  # kept
        assert "fast: under 1 s, kept and marked fast" in text_of(app, "#label-last")
        await press(pilot, "escape")
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, AgreementScreen), "the agreement screen")
        people = app.screen.query_one("#people", DataTable)
        row = [str(c) for c in people.get_row_at(0)]
        assert row[0] == ME and row[1] == "4" and row[-1] == "3"  # 4 answers, 3 fast
        assert "fast (< 1 s)" in str(people.ordered_columns[-1].label)


async def test_the_fast_minimum_is_a_setting(db, monkeypatch):
    from persian_tui.annotation.agreement import agreement_report

    clock = Clock()
    monkeypatch.setattr("persian_tui.tui.screens.label.monotonic", clock)
    with Store(db) as s:
        s.labels.set_setting("label_min_seconds", "5")
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        await open_label(pilot)
        clock.now += 3
        await press(pilot, "1")
        assert "fast: under 5 s" in text_of(app, "#label-last")
    with Store(db) as s:
        assert agreement_report(s)[0].annotators[0].fast == 1


async def test_a_flag_is_not_an_answer_in_the_bars(db):
    with Store(db) as s:
        s.labels.set_setting("label_target", "1")
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        await open_label(pilot)
        await press(pilot, "1", "2")
        await press(pilot, "f")
        await pilot.press(*"broken", "enter")
        await pilot.pause()
        await press(pilot, "3")
        assert "3 answered (1 flagged), 2 to go" in text_of(app, "#progress-mine")
        assert bar(app, "mine") == (3, 6)
        assert "3 of 6 open questions have 1 label" in text_of(app, "#progress-bank")
    from persian_tui.annotation.agreement import agreement_report

    with Store(db) as s:  # the agreement screen's figures agree with the bars
        a = agreement_report(s)[0]
        assert a.labelled == 3 and a.annotators[0].answered == 3


@pytest.mark.parametrize("status", ["retired", "draft"])
async def test_label_this_refuses_a_question_the_queue_does_not_serve(db, status):
    with Store(db) as s:
        if status == "retired":
            s.curation.adjudicate("q-2", "maryam", "retire", reason="broken")
        else:
            q = s.questions.get_question("q-2")
            q.status = "draft"
            s.curation.update_question(q, "ali")
    scope = QueueScope(status="ready") if status == "draft" else None
    app = make_app(db, annotator=ME, queue_scope=scope)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await press(pilot, "down")
        await press(pilot, "L")
        assert isinstance(app.screen, BankScreen)
        assert f"not labelled: q-2 is {status}" in notices(app)[-1]
    with Store(db) as s:
        assert s.labels.labels(annotator=ME) == []


async def test_label_this_marks_the_item_chosen_not_undone(db):
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await press(pilot, "down", "L")
        head = text_of(app, "#label-head")
        assert "q-2" in head and "chosen" in head and "undone" not in head


async def test_the_item_clock_stops_while_the_guidelines_are_open(db, monkeypatch):
    """Time spent reading the guidelines is not time on the item: the clock pauses while they
    are open, and the label saves only the time on the item."""
    clock = Clock()
    monkeypatch.setattr("persian_tui.tui.screens.label.monotonic", clock)
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        clock.now += 10
        await press(pilot, "g")
        assert app.screen is not screen
        clock.now += 120  # reading the guidelines
        await press(pilot, "escape")
        assert app.screen is screen
        assert "⏱ 0:10" in text_of(app, "#label-head")
        clock.now += 5
        await press(pilot, "1")
        labels = {l.uid: l for l in my_labels(app)}
        assert labels["q-1"].seconds == pytest.approx(15.0)


async def test_label_this_on_a_question_already_answered_says_what_a_new_answer_replaces(db):
    """`L` on a question the annotator answered serves it again, saying so: the answer given
    before (the annotator's own, no one else's), and that a new one replaces it."""
    with Store(db) as s:
        s.labels.add_label("q-2", ME, 3)
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        await bank_loaded(pilot)
        await press(pilot, "down", "L")
        screen = app.screen
        assert isinstance(screen, LabelScreen) and shown_uid(screen) == "q-2"
        said = notices(app)[-1]
        assert "you answered ۳" in said and "replaces" in said and "\n" not in said
        assert "replaces your answer ۳" in text_of(app, "#label-head")
        await press(pilot, "1")
        assert [(l.uid, l.answer) for l in my_labels(app)] == [("q-2", 1)]


async def test_the_clock_on_screen_stops_while_the_guidelines_are_open(db, monkeypatch):
    """Reading the guidelines is not time on the item: the head line's clock stands still while
    they are open (as the stored seconds do) and goes on from there after (a virtual clock)."""
    from persian_tui.tui.screens import label

    now = [1000.0]
    monkeypatch.setattr(label, "monotonic", lambda: now[0])
    app = make_app(db, annotator=ME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_label(pilot)
        now[0] += 4
        screen._tick()
        assert "⏱ 0:04" in text_of(app, "#label-head")
        await press(pilot, "g")
        assert isinstance(app.screen, GuidelinesScreen)
        now[0] += 90
        screen._tick()
        assert "⏱ 0:04" in str(screen.query_one("#label-head").render())  # stands still behind the guidelines
        await press(pilot, "escape")
        assert app.screen is screen and "⏱ 0:04" in text_of(app, "#label-head")
        now[0] += 3
        screen._tick()
        assert "⏱ 0:07" in text_of(app, "#label-head")
        uid = shown_uid(screen)
        await press(pilot, "2")
        assert [l.seconds for l in my_labels(app) if l.uid == uid] == [7.0]

"""The adjudication screen, driven with Textual's Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList
from tui_helpers import make_app, notices, open_screen

from persian_tui import bidi
from persian_tui.models import Option, Question
from persian_tui.store import Store
from persian_tui.tui.dialogs.common import ConfirmDialog, ReasonDialog
from persian_tui.tui.screens.adjudicate import BULK_REASON, AdjudicationScreen
from persian_tui.tui.screens.author import AuthorScreen
from persian_tui.tui.screens.bank import BankScreen
from persian_tui.tui.widgets.lines_view import LinesView

SIZE = (120, 40)
FLAG = "دو گزینه یکسان‌اند"
NOTE = "بیت دوم هم می‌تواند متفاوت باشد"


def couplets(n: int) -> list[tuple[str, str]]:
    words = ["عشق", "قناعت", "صبر", "دانش", "تواضع", "ادب", "همت", "وفا"]
    w = words[n % len(words)]
    return [(f"مصراع نخست بیت {i} در باب {w} شماره {n}", f"مصراع دوم بیت {i} در باب {w} شماره {n}")
            for i in range(1, 5)]


def question(uid: str, n: int, key: int | None = 1) -> Question:
    return Question(uid=uid, options=[Option(i, a, b) for i, (a, b) in enumerate(couplets(n), 1)],
                    key=key, status="ready" if key else "draft")


def build(path: Path, *, queue: bool = True) -> Path:
    with Store(path) as s:
        s.questions.add_questions([question(f"q-{c}", i) for i, c in enumerate("abcdef")])
        if queue:
            s.labels.add_label("q-a", "ali", 1, confidence="high")  # annotators disagree
            s.labels.add_label("q-a", "sara", 2, confidence="low", note=NOTE)
            s.labels.add_label("q-b", "ali", 3)  # both against the key
            s.labels.add_label("q-b", "sara", 3)
            s.labels.add_label("q-c", "ali", 1)  # flagged
            s.labels.add_label("q-c", "sara", flag=FLAG)
        for uid in ("q-d", "q-e"):  # all agree with the key: bulk-acceptable
            s.labels.add_label(uid, "ali", 1)
            s.labels.add_label(uid, "sara", 1)
    return path


@pytest.fixture
def db(tmp_path) -> Path:
    return build(tmp_path / "adj.db")


async def open_queue(pilot) -> AdjudicationScreen:
    return await open_screen(pilot, "a", AdjudicationScreen)


def detail(app) -> str:
    return "\n".join(app.screen.query_one("#adj-view", LinesView).text_lines)


async def answer(pilot, reason: str) -> None:
    """Type a reason into the open ReasonDialog and press Enter."""
    assert isinstance(pilot.app.screen, ReasonDialog)
    for ch in reason:
        await pilot.press(ch)
    await pilot.press("enter")
    await pilot.pause()


async def test_queue_shows_disagreeing_and_flagged_items(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        assert screen.uids == ["q-a", "q-b", "q-c"]
        # the one digit rule: an option number (key, vote) in Persian digits, as in the bank and
        # the detail below; a count in Latin ones
        entries = [str(screen.query_one("#adj-queue", OptionList).get_option_at_index(i).prompt) for i in range(3)]
        assert "key ۱ · ۱ ۲" in entries[0] and not any(d in entries[0].split("key", 1)[1] for d in "1234")
        header = str(screen.query_one("#adj-header").render())
        assert "3 in queue" in header and "2 agree with their key" in header
        text = detail(app)  # q-a selected
        assert "q-a" in text and "annotators disagree" in text
        assert bidi.visual(couplets(0)[0][0]) in text  # couplets in display order
        assert "◆ key · 1 vote(s): ali" in text and "◆ 1 vote(s): sara" in text
        assert "majority  tie" in text
        assert "ali         ۱  high" in text and "sara        ۲  low" in text
        assert "note  " + bidi.visual(NOTE) in text

        await pilot.press("down", "down")  # q-c: flagged
        await pilot.pause()
        text = detail(app)
        assert "q-c" in text and "flagged" in text and "flag  " + bidi.visual(FLAG) in text
        await pilot.press("up")  # q-b: both against the key
        await pilot.pause()
        text = detail(app)
        assert "labels differ from the key" in text and "majority  ۳ (2 of 2 votes)" in text


async def test_set_the_key_with_a_reason(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        await pilot.press("۲")  # Persian digits too
        await pilot.pause()
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("enter")  # a key change needs a reason
        await pilot.pause()
        assert isinstance(app.screen, ReasonDialog)
        assert "a reason is required" in str(app.screen.query_one("#reason-error").render())
        await answer(pilot, "بیت دوم متفاوت است")
        assert isinstance(app.screen, AdjudicationScreen)
        with Store(db) as s:
            (decision,) = s.curation.adjudications("q-a")
            q = s.questions.get_question("q-a")
        assert (decision.adjudicator, decision.decision, decision.key) == ("reza", "key", 2)
        assert decision.reason == "بیت دوم متفاوت است"
        assert (q.key, q.status) == (2, "curated")
        assert screen.uids == ["q-b", "q-c"]  # it left the queue; the next one is selected
        assert screen.current.uid == "q-b"
        assert app.screen.query_one("#adj-queue", OptionList).highlighted == 0
        assert "q-a: key set to 2" in notices(app)


async def test_accept_the_key_reason_optional(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        await pilot.press("down", "down")  # q-c (flagged, key 1)
        await pilot.press("k")
        await pilot.pause()
        await pilot.press("enter")  # empty reason is fine for accepting
        await pilot.pause()
        with Store(db) as s:
            (decision,) = s.curation.adjudications("q-c")
            assert s.questions.get_question("q-c").status == "curated"
        assert (decision.decision, decision.key, decision.reason) == ("accept", 1, None)
        assert screen.uids == ["q-a", "q-b"] and screen.current.uid == "q-b"  # the last: previous


async def test_escape_cancels_a_decision(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        await pilot.press("3")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, AdjudicationScreen) and screen.uids == ["q-a", "q-b", "q-c"]
        with Store(db) as s:
            assert s.curation.adjudications() == []


async def test_retire_needs_a_reason(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        await pilot.press("down")  # q-b
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ReasonDialog)
        await answer(pilot, "two options say the same")
        with Store(db) as s:
            (decision,) = s.curation.adjudications("q-b")
            q = s.questions.get_question("q-b")
        assert (decision.decision, decision.reason) == ("retire", "two options say the same")
        assert (q.status, q.key) == ("retired", 1)
        assert screen.uids == ["q-a", "q-c"] and screen.current.uid == "q-c"


async def test_bulk_accept_after_confirming_the_count(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        assert "2 question(s)" in str(app.screen.query_one("#confirm-message").render())
        await pilot.press("n")
        await pilot.pause()
        with Store(db) as s:
            assert s.curation.adjudications() == []
        await pilot.press("A")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        with Store(db) as s:
            decisions = s.curation.adjudications()
            statuses = {u: s.questions.get_question(u).status for u in ("q-d", "q-e")}
        assert [(d.uid, d.decision, d.reason, d.adjudicator) for d in decisions] == [
            ("q-d", "accept", BULK_REASON, "reza"), ("q-e", "accept", BULK_REASON, "reza")]
        assert statuses == {"q-d": "curated", "q-e": "curated"}
        assert screen.uids == ["q-a", "q-b", "q-c"] and screen.bulk == 0
        assert "accepted the key of 2 question(s)" in notices(app)


async def test_empty_queue_says_so_and_counts_the_bulk(tmp_path):
    app = make_app(build(tmp_path / "calm.db", queue=False), annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        assert screen.uids == [] and not screen.query_one("#adj-queue").display
        text = detail(app)
        assert "Nothing to adjudicate" in text and "2 question(s)" in text and "press A" in text
        await pilot.press("1", "k", "x")  # nothing selected: no decision, no dialog
        await pilot.pause()
        assert isinstance(app.screen, AdjudicationScreen)


async def test_decided_elsewhere_meanwhile(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        with Store(db) as other:  # another adjudicator, another process
            other.curation.adjudicate("q-a", "maryam", "retire", reason="تکراری")
        await pilot.press("2")
        await pilot.pause()
        assert isinstance(app.screen, AdjudicationScreen)  # no dialog
        assert any("decided meanwhile" in n for n in notices(app))
        assert screen.uids == ["q-b", "q-c"]


async def test_edit_from_the_queue_and_reload(db):
    app = make_app(db, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        await pilot.press("down")  # q-b
        await pilot.press("e")
        await pilot.pause()
        author = app.screen
        assert isinstance(author, AuthorScreen) and author.uid == "q-b" and author.author == "reza"
        key = author.query_one("#key", Input)
        key.focus()
        await pilot.pause()
        await pilot.press("3", "ctrl+s")  # the author agrees with the annotators
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert screen.uids == ["q-a", "q-c"]  # q-b now agrees with its key: bulk-acceptable
        assert screen.bulk == 3
        with Store(db) as s:
            (revision,) = s.curation.revisions("q-b")
        assert revision.author == "reza" and revision.changes["key"] == [1, 3]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BankScreen)


async def test_terminal_mode_stacks_queue_and_detail(db):
    app = make_app(db, "terminal", annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        await pilot.pause()
        queue = screen.query_one("#adj-queue").region
        panel = screen.query_one("#adj-detail").region
        assert panel.y >= queue.bottom
        lines = screen.query_one("#adj-view", LinesView).text_lines
        assert "۱ " + couplets(0)[0][0] in lines  # logical text: the terminal reorders
        assert any(l.startswith("key") and "۱" in l for l in lines)
        assert any(l.startswith("majority") and "tie" in l for l in lines)  # own row


async def test_item_flags_feed_the_queue_with_their_evidence(tmp_path):
    """Five runs all choose option 3 on q-d (key 1, which both annotators chose too): the item
    analysis flags suspect_key (5 to 0, binomial p 0.031, alone so BH q 0.031), so q-d waits in adjudication with the
    evidence and is no longer accepted in bulk."""
    from persian_tui.models import Prediction

    path = build(tmp_path / "flags.db")
    with Store(path) as s:
        for m in ("model-a", "model-b", "model-c", "model-d", "model-e"):
            preds = [Prediction(f"q-{c}", 3 if c == "d" else 1, "ok") for c in "abcdef"]
            s.runs.create_run("imported", m, {}, status="done", total=6, predictions=preds)
    app = make_app(path, annotator="reza")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_queue(pilot)
        assert screen.uids == ["q-a", "q-b", "q-c", "q-d"]
        header = str(screen.query_one("#adj-header").render())
        assert "4 in queue" in header and "1 agree with their key" in header
        entries = [str(screen.query_one("#adj-queue", OptionList).get_option_at_index(i).prompt)
                   for i in range(4)]
        assert entries[3].startswith("key? q-d")  # the marks first: never cut, never wrapped
        await pilot.press("down", "down", "down")
        await pilot.pause()
        text = " ".join(detail(app).split())
        assert "item analysis suspect_key: 5 of 5 runs chose 3, 0 the key 1 (binomial p 0.031, BH q 0.031)" in text
        await pilot.press("A")  # bulk accept takes the one agreeing question, never the flagged one
        await pilot.pause()
        assert "1 question(s)" in str(app.screen.query_one("#confirm-message").render())
        await pilot.press("y")
        await pilot.pause()
    with Store(path) as s:
        assert s.questions.get_question("q-d").status != "curated"
        assert s.questions.get_question("q-e").status == "curated"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_queue_lines_never_wrap_their_tags(tmp_path, size):
    """A queue line with a long identifier, three votes, a flag and item-analysis marks stays
    one line: the flag and the marks come first, only the votes may be cut ("…")."""
    from tui_helpers import screen_lines

    from persian_tui import display

    db = tmp_path / "tags.db"
    with Store(db) as s:
        s.questions.add_questions([Question(uid=f"sample-question-{n:04d}", source_id=f"book-{n}",
                                            options=question("x", n).options, key=1, status="ready")
                                   for n in range(6)])
        for n in range(6):
            for who, answer in (("ali", 2), ("sara", 3), ("mina", 4)):
                s.labels.add_label(f"sample-question-{n:04d}", who, answer, flag=FLAG if who == "ali" else None)
    app = make_app(db, annotator="reza")
    async with app.run_test(size=size) as pilot:
        screen = await open_screen(pilot, "a", AdjudicationScreen)
        await pilot.pause()
        queue = screen.query_one("#adj-queue", OptionList)
        assert queue.option_count == 6
        top = queue.region.y + 1  # under the border
        lines = screen_lines(app)[top:top + 6]
        for n, line in enumerate(lines):
            name = display.question_id(f"sample-question-{n:04d}", f"book-{n}")
            assert "⚑" in line and name[:10] in line, (n, lines)


async def test_the_queue_follows_the_books_numbers_shows_every_vote_at_120_and_explains_its_marks(tmp_path):
    """Questions imported from a book are listed by the book's number (9 before 10, whatever
    their uids); at 120 columns a line with a book number and three votes is not cut; the
    header says what `agree?` means."""
    from tui_helpers import screen_lines

    db = tmp_path / "book.db"
    with Store(db) as s:
        s.questions.add_questions([Question(uid=uid, source_id=number, options=question("x", n).options, key=1,
                                            status="ready")
                                   for n, (uid, number) in enumerate([("q-b", "10"), ("q-a", "227"), ("q-c", "9")])])
        for uid in ("q-a", "q-b", "q-c"):
            for who, answer in (("ali", 2), ("sara", 3), ("mina", 4)):
                s.labels.add_label(uid, who, answer)
    app = make_app(db, annotator="reza")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(pilot, "a", AdjudicationScreen)
        await pilot.pause()
        assert screen.uids == ["q-c", "q-b", "q-a"]  # 9, 10, 227
        queue = screen.query_one("#adj-queue", OptionList)
        top = queue.region.y + 1
        lines = screen_lines(app)[top:top + 3]
        assert all("۲ ۳ ۴" in line and "…" not in line for line in lines), lines
        header = str(screen.query_one("#adj-header").render())
        assert "agree?" in header and "annotators" in header

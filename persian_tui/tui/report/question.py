"""The report's question pop-up: one question's couplets (key in green) and what the runs chose."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ...bidi import Mode
from ..guard import access
from ..keys import Key, bindings, help_key
from ..widgets.couplets import QuestionDetail

if TYPE_CHECKING:
    from ...models import Question
    from ..base import AppState


class HardQuestionScreen(ModalScreen[None]):
    """One of the hardest questions: its couplets (key in green) and what the runs chose."""

    KEYS_TITLE = "question"
    KEY_TABLE = (Key("escape,enter,q", "app.pop_screen", "Close", "close", palette="Close"), help_key())
    BINDINGS = bindings(KEY_TABLE)
    DEFAULT_CSS = """
    HardQuestionScreen { align: center middle; }
    HardQuestionScreen > Vertical {
        width: 90; max-width: 95%; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    HardQuestionScreen #hq-note { color: $text-muted; height: auto; }
    HardQuestionScreen QuestionDetail { height: 1fr; }
    """

    def __init__(self, question: Question, note: str, mode: Mode,
                 recall: dict[int, tuple[int, int]] | None = None) -> None:
        super().__init__()
        self.question, self.recall = question, recall
        self.note = note
        self.mode = mode

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.note, id="hq-note", markup=False)
            yield QuestionDetail(self.mode, id="hq-detail")

    def on_mount(self) -> None:
        self.query_one(QuestionDetail).show(self.question, recall=self.recall)


def open_question(widget: AppState, uid: str | None, note: Callable[[Question], str]) -> None:
    """Push the pop-up for question ``uid`` (``note(question)`` is its first line), or say it is gone."""
    question = widget.store.questions.get_question(uid) if uid else None
    if question is None:
        widget.notify(f"question {uid} is no longer in the bank", severity="warning", timeout=3)
        return
    who = access(widget)  # the report is for reviewers and admins; recall is checked again in the core
    recall = None if who.blind else who.couplet_recall(widget.store, question.uid) or None
    widget.app.push_screen(HardQuestionScreen(question, note(question) + "   (Escape: close)", widget.mode, recall))

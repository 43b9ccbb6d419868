"""Small modal dialogs: a yes/no question and a one-line reason."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from ... import display
from ...models.limits import limit
from ...text import nfc
from ..base import AppState
from ..fields.persian_input import PersianInput
from ..fields.rtl_text import RtlText
from ..keys import Key, bindings, help_key

_BOX = """
{name} { align: center middle; }
{name} > Vertical {
    width: 70; max-width: 90%; height: auto;
    border: round $accent; background: $surface; padding: 1 2;
}
{name} .dialog-hint { color: $text-muted; margin: 1 0 0 0; }
{name} .dialog-error { color: $text-error; height: auto; }
"""


class ConfirmDialog(AppState, ModalScreen[bool]):
    """A question answered with y / Enter (True) or n / Escape (False). The message is logical
    text: Persian in it is wrapped first and reordered after (``bidi.block``), in every mode."""

    DEFAULT_CSS = _BOX.replace("{name}", "ConfirmDialog")
    KEYS_TITLE = "confirm"
    KEY_TABLE = (
        Key("y,enter", "answer(True)", "Yes", "yes", palette="Yes"),
        Key("n,escape", "answer(False)", "No", "no", palette="No"),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)
    quit_question = False  # the app's "Quit persian-tui?" (a second Ctrl+Q does not stack another)

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical():
            yield RtlText(self.message, self.mode, id="confirm-message")
            yield Static("y or Enter: yes   n or Escape: no", classes="dialog-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def drop_asking(screen: Screen, lost: str | None, drop: Callable[[], object]) -> None:
    """Escape on a form or dialog: with text typed (``lost`` names it, as the form's
    ``unsaved_work()`` does), ask before dropping it (n or Escape: back to it); else drop at once."""
    if not lost:
        drop()
        return

    def answered(yes: bool | None) -> None:
        if yes:
            drop()

    screen.app.push_screen(ConfirmDialog(f"Drop {lost}?\n(No goes back to it.)"), answered)


class ReasonDialog(AppState, ModalScreen["str | None"]):
    """Asks why; Enter accepts (an empty reason only when not ``required``), Escape cancels
    (None). The reason comes back as typed (NFC, outer spaces trimmed)."""

    DEFAULT_CSS = _BOX.replace("{name}", "ReasonDialog")
    KEYS_TITLE = "reason"
    KEY_TABLE = (
        Key("enter", "", "", "accept what is typed"),
        help_key("f1"),
        Key("escape", "cancel", "Cancel", "cancel", palette="Cancel"),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, title: str, *, required: bool, what: str = "reason",
                 check: Callable[[str], str | None] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.required = required
        self.what = what  # the word for what is asked: "reason", "base URL"
        self.check = check  # what is wrong with a value (None: fine); the dialog stays open until fine

    def compose(self) -> ComposeResult:
        hint = "Enter: confirm   Escape: cancel"
        placeholder = f"{self.what} (required)" if self.required else f"{self.what} (optional)"
        with Vertical():
            yield Static(self.title_text, id="reason-title", markup=False)
            yield PersianInput(placeholder=placeholder, id="reason", max_length=limit("reason"))
            yield Static("", id="reason-error", classes="dialog-error")
            yield Static(hint, classes="dialog-hint")

    def unsaved_work(self) -> str | None:
        """What quitting would lose: the text typed here."""
        typed = self.query_one("#reason", Input).value.strip()
        return f"the {self.what} typed in “{self.title_text}”" if typed else None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        reason = nfc(event.value)
        if self.required and not reason:
            self.query_one("#reason-error", Static).update(f"a {self.what} is required")
            return
        problem = self.check(reason) if self.check and reason else None
        if problem:  # what was typed stays, to be corrected
            self.query_one("#reason-error", Static).update(display.line(problem))
            return
        self.dismiss(reason)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#reason-error", Static).update("")  # an edit: the problem named may be gone

    def action_cancel(self) -> None:
        drop_asking(self, self.unsaved_work(), lambda: self.dismiss(None))

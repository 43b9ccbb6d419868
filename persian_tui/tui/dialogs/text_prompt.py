"""A small modal that asks for one line of (Persian) text.

Dismisses with the stripped text on Enter, or None on Escape. The field (``PersianInput``) holds
logical text and shows it as it is read in "app" bidi mode.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from ...bidi import APP, Mode
from ...models.limits import limit
from ..fields.persian_input import PersianInput
from ..keys import Key, bindings, help_key
from .common import drop_asking


class TextPrompt(ModalScreen[str | None]):
    KEYS_TITLE = "text"
    KEY_TABLE = (
        Key("enter", "", "", "accept what is typed"),
        help_key("f1"),
        Key("escape", "cancel", "Cancel", "cancel", palette="Cancel"),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, title: str, value: str = "", *, placeholder: str = "", hint: str = "",
                 required: bool = False, mode: Mode = APP, id: str | None = None,
                 max_length: int = limit("line")) -> None:
        super().__init__(id=id)
        self.max_length = max_length  # characters (models/limits.py): past it, a notice
        self.title_text = title
        self.value = value
        self.placeholder = placeholder
        self.hint = hint
        self.required = required
        self.mode = mode

    def compose(self) -> ComposeResult:
        with Vertical(classes="prompt-box"):
            yield Label(Content.assemble((self.title_text, "bold")))
            yield PersianInput(self.value, placeholder=self.placeholder, id="prompt-input",
                               max_length=self.max_length)
            tail = "Enter keeps it · Escape cancels"
            yield Label(f"{self.hint}\n{tail}" if self.hint else tail, classes="prompt-hint")

    def unsaved_work(self) -> str | None:
        """What quitting would lose: text typed here (other than what it opened with)."""
        typed = self.query_one("#prompt-input", Input).value.strip()
        return f"the text typed in “{self.title_text}”" if typed != self.value.strip() else None

    @on(Input.Submitted, "#prompt-input")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if self.required and not text:
            self.notify("please type a reason (Escape cancels)", severity="warning", timeout=3)
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        drop_asking(self, self.unsaved_work(), lambda: self.dismiss(None))

"""Asks the user's name (annotator / author / adjudicator) once per session."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from ...models.users import MAX_NAME
from ..dialogs.common import drop_asking
from ..fields.persian_input import PersianInput
from ..keys import Key, bindings, help_key


class NameScreen(ModalScreen[str | None]):
    KEYS_TITLE = "your name"
    KEY_TABLE = (
        Key("enter", "", "", "use this name"),
        help_key("f1"),
        Key("escape", "cancel", "Cancel", "cancel", palette="Cancel"),
    )
    BINDINGS = bindings(KEY_TABLE)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Your name (recorded with your labels, edits and decisions):", id="name-title")
            yield PersianInput(placeholder="e.g. maryam", id="name", max_length=MAX_NAME)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if name:
            self.dismiss(name)
        else:
            self.notify("a name is needed", severity="warning")

    def unsaved_work(self) -> str | None:
        """What quitting would lose: the name typed."""
        return "the name typed" if self.query_one("#name", Input).value.strip() else None

    def action_cancel(self) -> None:
        drop_asking(self, self.unsaved_work(), lambda: self.dismiss(None))

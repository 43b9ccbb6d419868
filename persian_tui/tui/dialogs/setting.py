"""The confirmation a shared setting changes with: it says that everyone gets the new value, shows
the value now and the one chosen (a digit or the setting's own key chooses), and changes nothing
until y or Enter."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keys import Key, bindings, help_key

_CSS = """
SettingDialog { align: center middle; }
SettingDialog > Vertical {
    width: 70; max-width: 90%; height: auto;
    border: round $warning; background: $surface; padding: 1 2;
}
SettingDialog #setting-values { margin: 1 0; }
SettingDialog .dialog-hint { color: $text-muted; }
"""


class SettingDialog(ModalScreen["int | None"]):
    """Change the shared setting ``what`` from ``current`` to one of ``choices`` (the next one
    preselected): the chosen value (y / Enter), or None (n / Escape)."""

    DEFAULT_CSS = _CSS
    KEYS_TITLE = "shared setting"
    KEY_TABLE = (
        Key("1,۱,١", "choose(1)", "choose", "choose the value", display="1-5", shown="1–5"),
        Key("2,۲,٢", "choose(2)", footer=False, help=False),
        Key("3,۳,٣", "choose(3)", footer=False, help=False),
        Key("4,۴,٤", "choose(4)", footer=False, help=False),
        Key("5,۵,٥", "choose(5)", footer=False, help=False),
        Key("t,up", "cycle(1)", "next", "the next value", footer=False),
        Key("down", "cycle(-1)", "previous", "the previous value", footer=False),
        Key("y,enter", "answer(True)", "Set for everyone", "set it for everyone", palette="Set for everyone"),
        Key("n,escape", "answer(False)", "Keep", "keep the value as it is", palette="Keep"),
        help_key(),
    )
    BINDINGS: ClassVar[list[BindingType]] = list(bindings(KEY_TABLE))

    def __init__(self, what: str, current: int, choices: tuple[int, ...], note: str = "") -> None:
        super().__init__()
        self.what = what
        self.current = current
        self.choices = choices
        self.note = note  # what follows the change, one line
        i = choices.index(current) if current in choices else -1
        self.value = choices[(i + 1) % len(choices)]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content.assemble((self.what, "bold"), " — a shared setting: ",
                                          "everyone working on this database gets the new value at once. ",
                                          self.note))
            yield Static(id="setting-values")
            yield Static(f"1–{len(self.choices)} or t chooses · y or Enter: set it for everyone · "
                         f"n or Escape: keep {self.current}", classes="dialog-hint")

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        self.query_one("#setting-values", Static).update(Content.assemble(
            "now ", (str(self.current), "bold"), "   →   new ", (str(self.value), "bold $text-warning")))

    def action_choose(self, value: int) -> None:
        if value in self.choices:
            self.value = value
            self._show()

    def action_cycle(self, step: int) -> None:
        self.value = self.choices[(self.choices.index(self.value) + step) % len(self.choices)]
        self._show()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(self.value if yes and self.value != self.current else None)

"""The editor's conflict dialog: a question someone else saved since the editor opened it, with
fields both changed to different values. Each field shows both values; the person saving
chooses yours or theirs per field, then saves (or goes back to the editor, nothing saved)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ... import bidi
from ...bidi import APP, Mode
from ...models.merge import Conflict, shown
from ..keys import Key, bindings, help_key

YOURS, THEIRS = "yours", "theirs"


class MergeDialog(ModalScreen["dict[str, str] | None"]):
    """Dismisses with {field: "yours" | "theirs"} for every conflict, or None (Escape)."""

    DEFAULT_CSS = """
    MergeDialog { align: center middle; }
    MergeDialog > Vertical {
        width: 100; max-width: 96%; height: auto; max-height: 92%;
        border: round $warning; background: $surface; padding: 0 1;
    }
    MergeDialog #merge-rows { height: auto; max-height: 30; }
    MergeDialog .dialog-hint { color: $text-muted; }
    """
    KEYS_TITLE = "conflicting edits"
    KEY_TABLE = (
        Key("up", "move(-1)", "", "the previous field", footer=False),
        Key("down", "move(1)", "", "the next field", footer=False),
        Key("y,left", "choose('yours')", "Yours", "keep your value of this field", palette="Keep yours"),
        Key("t,right", "choose('theirs')", "Theirs", "keep their value of this field", palette="Keep theirs"),
        Key("Y", "choose_all('yours')", "All yours", "keep your values of every field", footer=False),
        Key("T", "choose_all('theirs')", "All theirs", "keep their values of every field", footer=False),
        Key("enter,ctrl+s", "save", "Save", "save with these choices", priority=True, palette="Save"),
        Key("escape", "cancel", "Back", "back to the editor, nothing saved", palette="Back"),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, uid: str, who: str, conflicts: list[Conflict], mode: Mode = APP) -> None:
        super().__init__()
        self.uid, self.who, self.conflicts, self.mode = uid, who, conflicts, mode
        self.choices: dict[str, str] = {}
        self.row = 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content.assemble(
                (f"{self.uid} was saved by {self.who} since you opened it. ", "bold $text-warning"),
                f"You both changed {len(self.conflicts)} field(s): choose which value each keeps "
                "(their other changes are kept, and yours)."), id="merge-title")
            with VerticalScroll(id="merge-rows"):
                yield Static(id="merge-body")
            yield Static("", id="merge-error", classes="dialog-hint")
            yield Static("↑↓ field · y/← yours · t/→ theirs · Y/T all · Enter save · Escape back",
                         classes="dialog-hint")

    def on_mount(self) -> None:
        self._show()

    def _value(self, value: object, width: int) -> str:
        return bidi.display_line(shown(value), width, self.mode) if isinstance(value, str) else shown(value)

    def _show(self) -> None:
        width = max((self.query_one("#merge-rows").content_size.width or 90) - 12, 20)
        parts: list[str | tuple[str, str]] = []
        for i, c in enumerate(self.conflicts):
            here = i == self.row
            pick = self.choices.get(c.field)
            parts += [("▶ " if here else "  ", "bold $text-accent"), (c.field, "bold"),
                      ("  → " + (f"keep {pick}" if pick else "choose y or t"),
                       "$text-success" if pick else "$text-warning"), "\n"]
            for side, value in ((YOURS, c.mine), (THEIRS, c.theirs)):
                mark = "●" if pick == side else "○"
                style = "bold" if pick == side else ""
                parts += [f"   {mark} {side:<7} ", (self._value(value, width), style), "\n"]
        self.query_one("#merge-body", Static).update(Content.assemble(*parts).rstrip())

    def action_move(self, step: int) -> None:
        self.row = (self.row + step) % len(self.conflicts)
        self._show()

    def action_choose(self, side: str) -> None:
        self.choices[self.conflicts[self.row].field] = side
        if self.row < len(self.conflicts) - 1:
            self.row += 1
        self._show()

    def action_choose_all(self, side: str) -> None:
        self.choices = {c.field: side for c in self.conflicts}
        self._show()

    def action_save(self) -> None:
        left = [c.field for c in self.conflicts if c.field not in self.choices]
        if left:
            self.query_one("#merge-error", Static).update(
                Content.styled(f"choose yours or theirs for: {', '.join(left)}", "$text-error"))
            return
        self.dismiss(dict(self.choices))

    def action_cancel(self) -> None:
        self.dismiss(None)

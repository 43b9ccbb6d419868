"""The error-category picker of the review screen: the taxonomy in an OptionList (English and
Persian labels, the English description under them); a digit picks directly."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ... import bidi
from ...bidi import APP, Mode
from ...models import ErrorCategory
from ..keys import Key, bindings, help_key

FA_DIGITS = "۱۲۳۴۵۶۷۸۹"


def fa_inline(text: str, mode: Mode) -> str:
    """Persian text inside an LTR line: reordered in app mode, logical otherwise."""
    return bidi.visual(text, shape=mode.shape) if mode.name == "app" else text


def category_prompt(i: int, c: ErrorCategory, mode: Mode) -> Content:
    head = Content.assemble((f"{i} " if i <= 9 else "  ", "bold $text-accent"), (c.label_en, "bold"),
                            "  ", (fa_inline(c.label_fa, mode), "$text-accent"))
    if c.description_en:
        return Content("\n").join([head, Content.styled("  " + c.description_en, "dim")])
    return head


class CategoryPicker(ModalScreen["str | None"]):
    """Pick an error category; returns its name, or None on Escape."""

    DEFAULT_CSS = """
    CategoryPicker { align: center middle; }
    CategoryPicker > Vertical {
        width: 80; max-width: 95%; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 1 2;
    }
    CategoryPicker OptionList { height: auto; max-height: 24; margin: 1 0 0 0; }
    CategoryPicker .dialog-hint { color: $text-muted; margin: 1 0 0 0; }
    """
    KEYS_TITLE = "pick a category"
    KEY_TABLE = (
        Key("escape", "cancel", "Cancel", "cancel", palette="Cancel"),
        Key("1,۱", "pick(1)", "", "pick that category (Persian digits too)", footer=False, shown="1–9"),
        *(Key(f"{i},{FA_DIGITS[i - 1]}", f"pick({i})", footer=False, help=False) for i in range(2, 10)),
        Key("enter", "", "", "pick the highlighted category"),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, title: str, categories: list[ErrorCategory], current: str | None,
                 mode: Mode = APP) -> None:
        super().__init__()
        self.title_text = title
        self.categories = categories
        self.current = current
        self.mode = mode

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="picker-title", markup=False)
            yield OptionList(*[Option(category_prompt(i, c, self.mode), id=c.name)
                               for i, c in enumerate(self.categories, 1)], id="picker")
            yield Static("↑↓ and Enter, or a digit: pick   Escape: cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        picker = self.query_one(OptionList)
        names = [c.name for c in self.categories]
        if self.current in names:
            picker.highlighted = names.index(self.current)
        picker.focus()

    @on(OptionList.OptionSelected, "#picker")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_pick(self, i: int) -> None:
        if i <= len(self.categories):
            self.dismiss(self.categories[i - 1].name)

    def action_cancel(self) -> None:
        self.dismiss(None)

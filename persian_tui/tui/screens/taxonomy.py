"""The error taxonomy of the LLM judge: a table of categories (seeded with the default once),
the highlighted one in full below; n new, e edit, d delete (refused for a used category)."""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ... import bidi
from ...eval.judge import DEFAULT_TAXONOMY
from ...models import ErrorCategory
from ..render import LABEL, Line, couplet_cell
from ..widgets.dialogs import ConfirmDialog
from ..widgets.key_bar import KeyBar
from ..widgets.lines_view import LinesView
from ..widgets.review_category_form import CategoryForm
from .base import AppState

# column, width, Persian?
COLUMNS = [("name", 18, False), ("Persian", 14, True), ("English", 18, False), ("used", 4, False),
           ("desc. fa", 18, True), ("desc. en", 18, False), ("example", 14, True)]


def category_cells(c: ErrorCategory, used: int, mode: str) -> list[Text]:
    values = [c.name, c.label_fa, c.label_en, str(used), c.description_fa, c.description_en, c.example]
    return [Text(couplet_cell(v, w, mode) if fa else couplet_cell(v, w, "off"), no_wrap=True,
                 justify="right" if fa and mode == "app" else "left")
            for v, (_, w, fa) in zip(values, COLUMNS)]


def category_lines(c: ErrorCategory | None, used: int, width: int, mode: str) -> list[Line]:
    if c is None:
        return [Line("no category", "dim")]
    out = [Line(f"{c.name}  ·  used by {used} judgment(s) or review(s)", "bold")]
    for label, value, rtl in (("Persian", c.label_fa, True), ("English", c.label_en, False),
                              ("desc. fa", c.description_fa, True), ("desc. en", c.description_en, False),
                              ("example", c.example, True)):
        text = value or "—"
        if rtl:
            lines = bidi.display_lines(text, max(width - LABEL, 1), mode, align="none")
        else:
            lines = bidi.wrap(text, max(width - LABEL, 1)) or [""]
        out += [Line(t, "", label if i == 0 else " ") for i, t in enumerate(lines)]
    return out


class TaxonomyScreen(AppState, Screen[None]):
    BINDINGS = [
        Binding("n", "new", "New"),
        Binding("e", "edit", "Edit"),
        Binding("d", "delete", "Delete"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.categories: list[ErrorCategory] = []
        self.used: Counter = Counter()

    def compose(self) -> ComposeResult:
        yield Static(id="tx-header", markup=False)
        yield DataTable(id="tx-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="tx-detail"):
            yield LinesView(id="tx-view")
        yield KeyBar()

    def on_mount(self) -> None:
        self.store.ensure_error_categories(DEFAULT_TAXONOMY)
        table = self.query_one(DataTable)
        for label, width, _ in COLUMNS:
            table.add_column(label, width=width)
        self.reload()
        table.focus()

    def reload(self, select: str | None = None) -> None:
        self.categories = self.store.error_categories()
        self.used = Counter()
        for j in self.store.judgments():
            self.used.update({j.error_category, j.review_category} - {None})
        table = self.query_one(DataTable)
        current = select or self.current_name
        table.clear()
        for c in self.categories:
            table.add_row(*category_cells(c, self.used[c.name], self.mode), key=c.name)
        names = [c.name for c in self.categories]
        if current in names:
            table.move_cursor(row=names.index(current), animate=False)
        self.query_one("#tx-header", Static).update(
            f"error taxonomy · {len(self.categories)} categories · the judge and reviewers pick from these")
        self._show()

    @property
    def current_name(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    @property
    def current(self) -> ErrorCategory | None:
        name = self.current_name
        return next((c for c in self.categories if c.name == name), None)

    def _show(self) -> None:
        c, mode = self.current, self.mode
        used = self.used[c.name] if c else 0
        self.query_one(LinesView).show(lambda w: category_lines(c, used, w, mode))

    @on(DataTable.RowHighlighted, "#tx-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show()

    @on(DataTable.RowSelected, "#tx-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_edit()

    def _save(self, c: ErrorCategory | None) -> None:
        if c is None:
            return
        try:
            self.store.save_error_category(c)
        except ValueError as e:
            self.notify(f"not saved: {e}", severity="error", timeout=6)
            return
        self.notify(f"saved {c.name}", timeout=3)
        self.reload(select=c.name)

    def action_new(self) -> None:
        self.app.push_screen(CategoryForm(None, {c.name for c in self.categories}), self._save)

    def action_edit(self) -> None:
        c = self.current
        if c is not None:
            self.app.push_screen(CategoryForm(c, {x.name for x in self.categories}), self._save)

    def action_delete(self) -> None:
        c = self.current
        if c is None:
            return
        if self.used[c.name]:  # the store refuses: say why without asking first
            self._delete(c.name)
            return
        self.app.push_screen(ConfirmDialog(f"Delete the error category {c.name} ({c.label_en})?"),
                             lambda yes: yes and self._delete(c.name))

    def _delete(self, name: str) -> None:
        try:
            self.store.delete_error_category(name)
        except ValueError as e:
            self.notify(f"not deleted: {e}", severity="error", timeout=6)
            return
        self.notify(f"deleted {name}", timeout=3)
        index = self.query_one(DataTable).cursor_row
        self.reload()
        table = self.query_one(DataTable)
        if table.row_count:
            table.move_cursor(row=min(index, table.row_count - 1), animate=False)
            self._show()

    def action_back(self) -> None:
        self.dismiss(None)

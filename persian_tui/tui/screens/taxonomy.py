"""The error taxonomy of the LLM judge: a table of categories (seeded with the default once),
the highlighted one in full below; n new, e edit, d delete (refused for a used category).
How often each category is used is counted in a worker (it reads every judgment): the table
shows at once, its "used" column follows."""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from ... import bidi
from ...bidi import Mode
from ...judging.verdicts import DEFAULT_TAXONOMY
from ...models import ErrorCategory
from ..base import AppState
from ..dialogs.category_form import CategoryForm
from ..dialogs.common import ConfirmDialog
from ..guard import Guarded, refused
from ..keys import Key, bindings, help_key
from ..messages import UsageCounted
from ..render import LABEL, Line, couplet_cell
from ..widgets.key_bar import KeyBar
from ..widgets.lines_view import LinesView
from ..widgets.rows_table import RowsTable

# column, width, Persian?
COLUMNS = [("name", 18, False), ("Persian", 14, True), ("English", 18, False), ("used", 4, False),
           ("desc. fa", 18, True), ("desc. en", 18, False), ("example", 14, True)]


def category_cells(c: ErrorCategory, used: int | None, mode: Mode) -> list[Text]:
    """The row of a category; ``used`` None while it is being counted ("…")."""
    values = [c.name, c.label_fa, c.label_en, "…" if used is None else str(used), c.description_fa,
              c.description_en, c.example]
    return [Text(couplet_cell(v, w, mode) if fa else couplet_cell(v, w, bidi.OFF), no_wrap=True,
                 justify="right" if fa and mode.name == "app" else "left")
            for v, (_, w, fa) in zip(values, COLUMNS)]


def category_lines(c: ErrorCategory | None, used: int | None, width: int, mode: Mode) -> list[Line]:
    if c is None:
        return [Line("no category", "dim")]
    uses = "counting its uses …" if used is None else f"used by {used} judgment(s) or review(s)"
    out = [Line(f"{c.name}  ·  {uses}", "bold")]
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


class TaxonomyScreen(AppState, Guarded, Screen[None]):
    KEYS_TITLE = "error taxonomy"
    KEY_TABLE = (
        Key("n", "new", "New", "a new category", palette="New category"),
        Key("e", "edit", "Edit", "edit the highlighted category", palette="Edit category"),
        Key("d", "delete", "Delete", "delete the highlighted category (not one in use)", palette="Delete category"),
        help_key(),
        Key("escape,q", "back", "Back", "back to the review", palette="Back"),
    )
    BINDINGS = bindings(KEY_TABLE)
    ACTS = {"new": "author", "edit": "author", "delete": "author"}

    def __init__(self) -> None:
        super().__init__()
        self.categories: list[ErrorCategory] = []
        self.used: Counter[str] | None = None  # None while the worker counts
        self.generation = 0  # of the count in progress

    def compose(self) -> ComposeResult:
        yield Static(id="tx-header", markup=False)
        yield RowsTable(id="tx-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="tx-detail"):
            yield LinesView(id="tx-view")
        yield KeyBar()

    def on_mount(self) -> None:
        self.store.judging.ensure_error_categories(DEFAULT_TAXONOMY)
        table = self.query_one(DataTable)
        for label, width, _ in COLUMNS:
            table.add_column(label, width=width, key=label)
        self.reload()
        table.focus()

    def reload(self, select: str | None = None) -> None:
        """The categories now; their uses when the worker has counted them."""
        self.categories = self.store.judging.error_categories()
        self.used = None
        self.generation += 1
        self._count_uses(self.generation)
        table = self.query_one(DataTable)
        current = select or self.current_name
        table.clear()
        for c in self.categories:
            table.add_row(*category_cells(c, None, self.mode), key=c.name)
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

    @work(thread=True, exclusive=True, group="tx-uses", exit_on_error=False)
    def _count_uses(self, generation: int) -> None:
        """Judgments and reviews that name each category (the store's one count, the figure a
        refused delete gives), read on this thread's own connection."""
        from ...store import Store, StoreError

        worker = get_current_worker()
        used: Counter[str] = Counter()
        error = None
        try:
            with Store(self.app.db_path) as store:
                used.update(store.judging.category_uses())
        except (StoreError, OSError) as e:
            error = str(e)
        if not worker.is_cancelled:
            self.post_message(UsageCounted(dict(used), generation, error))

    def on_usage_counted(self, message: UsageCounted) -> None:
        if message.generation != self.generation:
            return  # a newer count is on its way
        if message.error:
            self.notify(f"uses not counted: {message.error}", severity="warning", timeout=6)
            return
        self.used = Counter(message.used)
        table = self.query_one(DataTable)
        for c in self.categories:
            table.update_cell(c.name, "used", category_cells(c, self.used[c.name], self.mode)[3])
        self._show()

    def _show(self) -> None:
        c, mode = self.current, self.mode
        used = None if self.used is None or c is None else self.used[c.name]
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
            self.store.judging.save_error_category(c)
        except ValueError as e:
            self.notify(f"not saved: {e}", severity="error", timeout=6)
            return
        self.notify(f"saved {c.name}", timeout=3)
        self.reload(select=c.name)

    def action_new(self) -> None:
        if refused(self, "author"):
            return
        self.app.push_screen(CategoryForm(None, {c.name for c in self.categories}), self._save)

    def action_edit(self) -> None:
        c = self.current
        if c is not None and not refused(self, "author"):
            self.app.push_screen(CategoryForm(c, {x.name for x in self.categories}), self._save)

    def action_delete(self) -> None:
        c = self.current
        if c is None or refused(self, "author"):
            return
        if self.used and self.used[c.name]:  # the store refuses: say why without asking first
            self._delete(c.name)
            return
        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(c.name)

        self.app.push_screen(ConfirmDialog(f"Delete the error category {c.name} ({c.label_en})?"), answered)

    def _delete(self, name: str) -> None:
        try:
            self.store.judging.delete_error_category(name)
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

"""The shape a run's answers (run_detail.py) and a recall run's probes (run_probes.py) share: a
head line, a filter line, a table of rows and, beside it or below, a pane of the highlighted
row's lines (AppState.stacked)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Container, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ..base import AppState
from ..widgets.key_bar import KeyBar
from ..widgets.lines_view import LinesView
from ..widgets.rows_table import RowsTable


class RowsPaneScreen(AppState, Screen[None]):
    """Subclasses read their rows in `reload()`, fill the table (keys: row ids) in `fill()` and
    show one row's lines in `show(key)`; `which` is the filter in force."""

    which = "all"

    def compose(self) -> ComposeResult:
        yield Static(id="rd-head", markup=False)
        yield Static(id="rd-filter")
        with Container(id="rd-body"):
            yield RowsTable(id="rd-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="rd-pane"):
                yield LinesView(id="rd-view")
        yield KeyBar()

    def reload(self) -> None:
        raise NotImplementedError

    def fill(self) -> None:
        raise NotImplementedError

    def show(self, key: str | None) -> None:
        raise NotImplementedError

    def _apply_layout(self) -> None:
        self.query_one("#rd-body").set_class(self.stacked, "-stacked")

    def on_resize(self) -> None:
        self._apply_layout()

    def show_filters(self, labels: dict[str, str], counts: dict[str, int], keys: dict[str, str]) -> None:
        """The filter line: each filter's label, count and key, the one in force reversed."""
        parts = []
        for w, label in labels.items():
            text = f"{label} {counts[w]} ({keys[w]})"
            parts.append(f"[b reverse] {text} [/]" if w == self.which else f" {text} ")
        self.query_one("#rd-filter", Static).update("showing " + "".join(parts))

    @property
    def current_key(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def show_lines(self, lines) -> None:
        """Show `lines(width)` in the pane, from its top."""
        self.query_one(LinesView).show(lines)
        self.query_one("#rd-pane").scroll_home(animate=False)

    @on(DataTable.RowHighlighted, "#rd-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show(event.row_key.value if event.row_key else None)

    @property
    def text_lines(self) -> list[str]:
        """What the pane shows (for tests)."""
        return self.query_one(LinesView).text_lines

    def action_filter(self, which: str) -> None:
        self.which = which
        self.fill()

    def action_reload(self) -> None:
        self.reload()

    def action_back(self) -> None:
        self.dismiss()

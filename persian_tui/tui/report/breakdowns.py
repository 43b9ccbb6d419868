"""The report's breakdowns tab: each run's accuracy by one dimension (category, poet, ...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable, Label, Select, Static

from ... import bidi
from ...display import count, percent
from ...reports.notes import BREAKDOWN_HELP
from ..widgets.rows_table import RowsTable
from .cells import ReportTab, RunNames, cut, right

if TYPE_CHECKING:
    from ...reports.figures import BreakdownRow, Report

DIMENSIONS = (("category", "category"), ("source", "source"), ("poet", "poet"),
              ("difficulty", "difficulty"), ("origin", "origin"), ("key poet (corpus)", "key poet"),
              ("key form (corpus)", "key form"), ("key metre (corpus)", "key metre"),
              ("question poet (corpus)", "question poet"), ("question form (corpus)", "question form"),
              ("question metre (corpus)", "question metre"))
VALUE_WIDTH = 18  # a breakdown value (column header)


class BreakdownsTab(ReportTab):
    """Tab 3: runs × the values of one dimension; d (or the select) picks the dimension."""

    runs: RunNames | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="report-bar"):
            yield Label("by ")
            yield Select(DIMENSIONS, value="category", allow_blank=False, compact=True, id="bd-dimension")
            yield Static(id="bd-note", markup=False, classes="bar-note")
        yield Static(id="bd-help", markup=False, classes="report-note")
        yield RowsTable(id="bd-table", cursor_type="row", zebra_stripes=True)

    @property
    def dimension(self) -> str:
        value = self.query_one("#bd-dimension", Select).value
        return value if isinstance(value, str) else "category"

    def next_dimension(self) -> None:
        """The next dimension the report has (the first four always; the corpus ones when linked)."""
        select = self.query_one("#bd-dimension", Select)
        present = {b.dimension for b in self.report.breakdowns} if self.report else set()
        names = [v for i, (_, v) in enumerate(DIMENSIONS) if i < 4 or v in present or v == self.dimension]
        select.value = names[(names.index(self.dimension) + 1) % len(names)]

    @on(Select.Changed, "#bd-dimension")
    def _dimension_changed(self) -> None:
        if self.report is not None and self.runs is not None:
            self.fill(self.report, self.runs)

    def fill(self, report: Report, runs: RunNames) -> None:
        self.report, self.runs = report, runs
        mode = self.mode
        dim = self.dimension
        values: list[str] = []
        totals: dict[str, int] = {}
        cells: dict[tuple[int, str], BreakdownRow] = {}
        for b in report.breakdowns:
            if b.dimension != dim:
                continue
            v = "—" if b.value in (None, "") else str(b.value)
            if v not in totals:
                values.append(v)
            totals[v] = max(totals.get(v, 0), b.total)
            cells[(b.run_id, v)] = b
        if dim != "difficulty":  # tiers keep the core's order (easy → hard)
            values.sort(key=lambda v: (-totals[v], v))
        table = self.query_one("#bd-table", DataTable)
        table.clear(columns=True)
        ranked = runs.ranked()

        def cell(run_id: int, v: str) -> Text:
            b = cells.get((run_id, v))
            return right("—" if b is None or not b.total else f"{percent(b.accuracy, 0)} {count(b.correct)}/{b.total}")

        if mode.name == "terminal":
            # a bidi terminal reorders whole rows: one (Persian) value per row, runs as columns
            table.add_column("value", key="value")
            table.add_column(right("questions"), key="n")
            for run_id in ranked:
                table.add_column(right(runs.name(run_id, 18)), key=str(run_id))
            for v in values:
                table.add_row(bidi.display_line(v, VALUE_WIDTH, mode), right(totals[v]),
                              *(cell(r, v) for r in ranked), key=v)
        else:
            table.add_column("#", key="rank")
            table.add_column("run", key="run")
            for v in values:
                label = bidi.display_line(v, VALUE_WIDTH, mode) if bidi.has_rtl(v) else cut(v, VALUE_WIDTH)
                table.add_column(right(f"{label} ({totals[v]})"), key=v)
            for run_id in ranked:
                table.add_row(right(runs.ranks[run_id]), runs.name(run_id),
                              *(cell(run_id, v) for v in values), key=str(run_id))
        self.query_one("#bd-note", Static).update(f"  {len(values)} value(s)  (d: next dimension)")
        self.query_one("#bd-help", Static).update(BREAKDOWN_HELP[dim])

"""The report's behaviour tab: one run's position bias and confusion, and agreement between runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Label, Select, Static

from ...display import p_value
from ...reports.figures import ALPHA
from .cells import ReportTab, RunNames, right, theme_color
from .charts import PositionChart

if TYPE_CHECKING:
    from ...reports.figures import Report


class BehaviourTab(ReportTab):
    """Tab 4: the chosen run (select) and every run's agreement with the others."""

    runs: RunNames | None = None
    run_id: int | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="report-bar"):
            yield Label("run ")
            yield Select([], allow_blank=True, compact=True, id="bh-run")
            yield Static(id="bh-note", markup=False, classes="bar-note")
        with Horizontal(id="bh-top"):
            yield PositionChart(id="bh-chart")
            with Vertical(id="bh-confusion-box"):
                yield Static("confusion: key (rows) × chosen", classes="report-note")
                yield DataTable(id="bh-confusion", cursor_type="none")
        yield Static(id="bh-agreement-note", markup=False, classes="report-note")
        yield DataTable(id="bh-agreement", cursor_type="cell")

    def fill(self, report: Report, runs: RunNames) -> None:
        """A new report: the run select offers its runs (keeping the chosen one), then the figures."""
        self.report, self.runs = report, runs
        select: Select[int] = self.query_one("#bh-run", Select)
        options = [(runs.name(r, 40), r) for r in runs.ranked()]
        keep = self.run_id if self.run_id in runs.ranks else (options[0][1] if options else None)
        with select.prevent(Select.Changed):
            select.set_options(options)
            if keep is not None:
                select.value = keep
        self.run_id = keep
        self._fill_run(report, runs)

    @on(Select.Changed, "#bh-run")
    def _run_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int):
            self.run_id = event.value
            if self.report is not None and self.runs is not None:
                self._fill_run(self.report, self.runs)

    def _fill_run(self, report: Report, runs: RunNames) -> None:
        pos = next((p for p in report.position if p.run_id == self.run_id), None)
        chart = self.query_one(PositionChart)
        if pos is None:
            chart.show([], [], "")
            note = ""
        else:
            chart.show(pos.chosen, pos.keys, f"positions chosen vs keys · χ² p = {p_value(pos.p)}")
            if pos.chi2 is None or pos.p is None:
                note = "  χ² undefined (too few valid answers)"
            else:
                verdict = ("prefers some positions more than the keys do" if pos.p < ALPHA
                           else "no evidence of a position preference")
                note = f"  against the keys: χ² = {pos.chi2:.2f}, p = {p_value(pos.p)}: {verdict}"
            if pos.p_uniform is not None:
                note += f"; against a uniform choice: p = {p_value(pos.p_uniform)}"
        self.query_one("#bh-note", Static).update(note)
        self._fill_confusion(report)
        self._fill_agreement(report, runs)

    def _fill_confusion(self, report: Report) -> None:
        table = self.query_one("#bh-confusion", DataTable)
        table.clear(columns=True)
        matrix = report.confusion.get(self.run_id) if self.run_id is not None else None
        if matrix is None:
            return
        table.add_column("key", key="key")
        for j in range(len(matrix[0])):
            table.add_column(right(str(j + 1) if j < 4 else "invalid"), key=str(j))
        success = theme_color(self, "success")
        for i, row in enumerate(matrix):
            table.add_row(right(i + 1), *(Text(str(v), justify="right", style=f"bold {success}" if i == j else "")
                                          for j, v in enumerate(row)))

    def _fill_agreement(self, report: Report, runs: RunNames) -> None:
        table = self.query_one("#bh-agreement", DataTable)
        table.clear(columns=True)
        ids, matrix = report.agreement
        table.add_column("run", key="run")
        for r in ids:
            table.add_column(right(str(r)), key=str(r))
        for a, row in zip(ids, matrix):
            cells = [Text(f"{v:.2f}".removeprefix("0") if v < 1 else "1", justify="right",
                          style="dim" if a == b else "") for b, v in zip(ids, row)]
            table.add_row(runs.name(a), *cells, key=str(a))
        self.query_one("#bh-agreement-note", Static).update(
            "Agreement between runs: the share of the shared questions on which both chose the same "
            "option (columns: run ids; the dim diagonal is the run's share of valid answers)")

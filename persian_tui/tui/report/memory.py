"""The report's Memory tab: what the recall runs say (reports/memory.py): recall per recall run,
each model's accuracy on the questions whose outlier couplet it recalls against the others, and
the most recalled couplets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from ...reports.memory_files import (
    CHANCE_HEADER,
    CHANCE_NOTE,
    COUPLET_HEADER,
    NOTE,
    RECALL_HEADER,
    SPLIT_HEADER,
    chance_rows,
    couplet_rows,
    recall_rows,
    split_rows,
)
from ..widgets.rows_table import RowsTable
from .cells import ReportTab, RunNames, cut, right

if TYPE_CHECKING:
    from ...reports.figures import Report

LEFT = 3  # the first columns of each table are names, the rest figures


def _table(table: DataTable, header: list[str], rows: list[list[str]], left: int = LEFT) -> None:
    table.clear(columns=True)
    for i, head in enumerate(header):
        table.add_column(head if i < left else right(head), key=f"c{i}")
    for n, row in enumerate(rows):
        table.add_row(*(cut(c, 30) if i < left else right(c) for i, c in enumerate(row)), key=str(n))


class MemoryTab(ReportTab):
    """Tab 8: meaning or memory (recall probes: persian-tui run recall)."""

    def compose(self) -> ComposeResult:
        yield Static(id="memory-note", markup=False, classes="report-note")
        yield RowsTable(id="memory-runs", cursor_type="row", zebra_stripes=True)
        yield Static("Recognition against chance (choose runs). " + CHANCE_NOTE, id="memory-chance-title",
                     markup=False, classes="report-note")
        yield RowsTable(id="memory-chance", cursor_type="row", zebra_stripes=True)
        yield Static("Accuracy by recall (same model, same questions)", id="memory-split-title",
                     classes="report-note")
        yield RowsTable(id="memory-split", cursor_type="row", zebra_stripes=True)
        yield Static("Most recalled couplets (across models)", id="memory-couplets-title", classes="report-note")
        yield RowsTable(id="memory-couplets", cursor_type="row", zebra_stripes=True)

    def fill(self, report: Report, runs: RunNames) -> None:
        self.report = report
        memory = report.memory
        note = self.query_one("#memory-note", Static)
        for part in ("#memory-runs", "#memory-split", "#memory-split-title", "#memory-couplets",
                     "#memory-couplets-title", "#memory-chance", "#memory-chance-title"):
            self.query_one(part).display = memory is not None
        if memory is None:
            note.update("No recall runs yet: probe whether a model remembers the couplets with "
                        "`persian-tui run recall` (or n on the runs screen, kind recall), then press r.")
            return
        flagged = (f" {len(memory.from_memory)} question(s) answerable from memory (the outlier couplet "
                   "recalled by most probed models): the items tab flags them from_memory."
                   if memory.from_memory else "")
        note.update(NOTE + flagged)
        _table(self.query_one("#memory-runs", DataTable), RECALL_HEADER, recall_rows(memory), left=4)
        chance = chance_rows(memory)
        for part in ("#memory-chance", "#memory-chance-title"):
            self.query_one(part).display = bool(chance)
        _table(self.query_one("#memory-chance", DataTable), CHANCE_HEADER, chance, left=3)
        _table(self.query_one("#memory-split", DataTable), SPLIT_HEADER, split_rows(memory))
        couplets = couplet_rows(memory)
        self.query_one("#memory-couplets-title", Static).update(
            "Most recalled couplets (across models)" if couplets else "No couplet recalled by any model.")
        self.query_one("#memory-couplets").display = bool(couplets)
        _table(self.query_one("#memory-couplets", DataTable), COUPLET_HEADER, couplets, left=1)

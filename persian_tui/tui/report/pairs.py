"""The report's paired comparisons tab: McNemar and Holm per pair, and the letters they imply."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from ...display import MISSING, p_value, points, signed_interval
from ...reports.notes import GROUPS_TITLE, pairs_note
from ...stats import letter_names
from ..widgets.rows_table import RowsTable
from .cells import ReportTab, RunNames, right, theme_color
from .groups import RunGroups

if TYPE_CHECKING:
    from ...reports.figures import Report


def _pt(x: float | None) -> str:
    return MISSING if x is None else f"{100 * x:.1f}"


class PairsTab(ReportTab):
    """Tab 2: each pair of runs on the same questions."""

    def compose(self) -> ComposeResult:
        yield Static(id="pairs-note", markup=False, classes="report-note")
        yield RowsTable(id="pairs-table", cursor_type="row", zebra_stripes=True)
        yield RunGroups(id="pairs-groups")

    def fill(self, report: Report, runs: RunNames) -> None:
        table = self.query_one("#pairs-table", DataTable)
        table.clear(columns=True)
        table.add_column("run A", key="a")
        table.add_column("run B", key="b")
        for label, key in (("n", "n"), ("only A", "a_only"), ("only B", "b_only"), ("McNemar p", "p"),
                           ("Holm p", "holm"), ("A − B", "diff"), ("Tango 95 %", "ci"),
                           ("MDE", "mde"), ("MDE Bonf.", "mde_holm")):
            table.add_column(right(label), key=key)
        table.add_column("", key="verdict")
        pairs = sorted(report.pairs, key=lambda p: (runs.ranks.get(p.a, 0), runs.ranks.get(p.b, 0)))
        for p in pairs:
            ci = signed_interval(p.diff_low, p.diff_high) + (" †" if p.disagree else "")
            verdict = (Text("differ", style=f"bold {theme_color(self, 'success')}") if p.significant
                       else Text("—", style="dim"))
            table.add_row(runs.name(p.a, 20), runs.name(p.b, 20), right(p.n), right(p.a_only),
                          right(p.b_only), right(p_value(p.p_exact)), right(p_value(p.p_holm)),
                          right(points(p.diff)), right(ci),
                          right(_pt(p.mde)), right(_pt(p.mde_adjusted)), verdict, key=f"{p.a}-{p.b}")
        differ = sum(p.significant for p in pairs)
        self.query_one("#pairs-note", Static).update(pairs_note(report, len(pairs), differ))
        groups = [[runs.name(r, 40) for r in g] for g in (report.groups or [])]
        title = GROUPS_TITLE
        if len(runs.models) < 2:
            title, groups = "One run: nothing to compare.", []
        self.query_one(RunGroups).show(title, groups, letter_names(len(groups)))

"""The report's accuracy tabs: the leaderboard (table and chart) and the human baseline."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from ... import bidi, display
from ...display import MISSING, dollars, interval, percent, seconds, tokens
from ...reports.notes import cluster_text, leader_note
from ..widgets.rows_table import RowsTable
from .cells import ReportTab, RunNames, cursor_key, cut, restore_cursor, right
from .charts import Bar, LeaderChart, short_model

if TYPE_CHECKING:
    from ...reports.figures import Report

MODEL_WIDTH = 25
# a row of the human tab: (sort accuracy, is a run, kind, who, accuracy, correct, total, Wilson low, high)
HumanRow = tuple[float, int, str, str, float | None, float, int, float | None, float | None]


class LeaderboardTab(ReportTab):
    """Tab 1: every run's accuracy with its intervals, ranked, and the same as a chart."""

    def compose(self) -> ComposeResult:
        yield Static(id="lb-note", markup=False, classes="report-note")
        yield RowsTable(id="lb-table", cursor_type="row", zebra_stripes=True)
        yield LeaderChart(id="lb-chart")
        yield Static(id="lb-clusters", markup=False, classes="report-note")

    def fill(self, report: Report, runs: RunNames) -> None:
        rows = report.leaderboard
        table = self.query_one("#lb-table", DataTable)
        current = cursor_key(table)
        table.clear(columns=True)
        table.add_column("#", key="rank")
        table.add_column("run", key="run")
        table.add_column("model", key="model")
        whole = report.ranked_by == "whole set"  # runs on different questions: ranked on the common scale
        for label, key in (("accuracy", "accuracy"), ("correct", "correct"), ("Wilson", "wilson"),
                           *((("whole set", "whole"), ("95 %", "whole95")) if whole else ()),
                           ("rank 95 %", "ranks"), ("letters", "letters"), ("usable acc", "usable"),
                           ("invalid", "invalid"), ("tokens i/o", "tokens"), ("latency", "latency"), ("cost", "cost"),
                           ("shared", "shared")):
            table.add_column(right(label), key=key)
        models = dict(zip((r.run_id for r in rows),
                          display.distinct_cuts([display.line(r.model) for r in rows], MODEL_WIDTH)))
        for r in rows:
            n = r.answered
            invalid = str(r.invalid) if not r.invalid or not n else f"{r.invalid} ({r.invalid / n:.0%})"
            none = r.no_success  # not one request succeeded: no accuracy, not 0.0 %
            ranks = (MISSING if r.rank_low is None or none
                     else f"{r.rank_low}–{r.rank_high}")
            scale = ([right(MISSING if none else percent(r.whole_accuracy)),
                      right(MISSING if none else interval(r.whole_low, r.whole_high))] if whole else [])
            table.add_row(right(r.rank), right(r.run_id), models[r.run_id],
                          right(MISSING if none else percent(r.answered_accuracy)),
                          right(f"{display.count(r.answered_correct)}/{n}"),
                          right(MISSING if none else interval(r.answered_low, r.answered_high)), *scale, right(ranks),
                          r.letters or MISSING,
                          right(MISSING if none else percent(r.usable_accuracy)), right(invalid),
                          right(tokens(r.tokens_in, r.tokens_out)), right(seconds(r.latency_mean)),
                          right(dollars(r.cost)),
                          right(f"{MISSING if none else percent(r.accuracy)} {display.count(r.correct)}/{r.total}"),
                          key=str(r.run_id))
        table.set_class(len(rows) >= 8, "-many")
        restore_cursor(table, current)
        self.query_one("#lb-note", Static).update(leader_note(report))
        def pct(x: float | None) -> float | None:
            return None if x is None else 100 * x

        bars = [Bar(r.rank, short_model(r.model), pct(r.whole_accuracy) or 0.0, pct(r.whole_low), pct(r.whole_high))
                if whole else Bar(r.rank, short_model(r.model), pct(r.answered_accuracy) or 0.0,
                                  pct(r.answered_low), pct(r.answered_high))
                for r in rows]  # what the table ranks
        base = report.baseline.share if report.baseline is not None else None
        self.query_one(LeaderChart).show(bars, "whole set, 95 % prediction" if whole else "Wilson 95 %",
                                         None if base is None else 100 * base)
        self.query_one("#lb-clusters", Static).update(cluster_text(report))


class HumanTab(ReportTab):
    """Tab 6: annotators' accuracy against the key beside the best runs."""

    def compose(self) -> ComposeResult:
        yield Static(id="human-note", markup=False, classes="report-note")
        yield RowsTable(id="human-table", cursor_type="row", zebra_stripes=True)

    def fill(self, report: Report, runs: RunNames) -> None:
        mode = self.mode
        table = self.query_one("#human-table", DataTable)
        table.clear(columns=True)
        human = list(report.human or [])
        note = self.query_one("#human-note", Static)
        if not human:
            note.update("No annotator labels on these questions yet: label some (l on the bank) to "
                        "see people's accuracy against the key beside the models.")
            return
        table.add_column("", key="kind")
        table.add_column("who", key="who")
        for label, key in (("accuracy", "accuracy"), ("correct", "correct"), ("Wilson 95 %", "wilson")):
            table.add_column(right(label), key=key)
        entries: list[HumanRow] = [(h.accuracy or 0.0, 0, "annotator", h.annotator, h.accuracy, h.correct,
                                    h.total, h.low, h.high) for h in human]
        entries += [(r.accuracy or 0.0, 1, "run", runs.name(r.run_id, 30), r.accuracy, r.correct, r.total,
                     r.wilson_low, r.wilson_high) for r in list(report.leaderboard)[:3]]
        entries.sort(key=lambda e: (-e[0], e[1], e[3]))
        for _, is_run, kind, name, acc, c, n, lo, hi in entries:
            shown = bidi.display_line(name, 30, mode) if bidi.has_rtl(name) else cut(name, 30)
            style = "dim" if is_run else ""
            table.add_row(Text(kind, style=style), Text(shown, style=style), right(percent(acc)),
                          right(f"{display.count(c)}/{n}"), right(interval(lo, hi)))
        note.update(f"Annotators' accuracy against the key on the shared questions they labelled, "
                    f"beside the {min(3, len(report.leaderboard))} best run(s) (dim, on all "
                    f"{report.questions}); Wilson 95 %.")

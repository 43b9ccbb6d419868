"""The report's question tabs: the hardest questions and the item analysis; Enter opens one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from ... import bidi, display
from ..widgets.item_table import fill_items, item_note
from ..widgets.rows_table import RowsTable
from .cells import ReportTab, RunNames, cut, right
from .question import open_question

if TYPE_CHECKING:
    from ...models import Question
    from ...reports.figures import Report


SCROLLBAR = 2  # the table's vertical scrollbar (more rows than lines)


class HardestTab(ReportTab):
    """Tab 5: the questions the fewest runs solve, and the wrong option they chose most."""

    def compose(self) -> ComposeResult:
        yield Static(id="hard-note", markup=False, classes="report-note")
        yield RowsTable(id="hard-table", cursor_type="row", zebra_stripes=True)

    def fill(self, report: Report, runs: RunNames) -> None:
        self.report = report
        mode = self.mode
        table = self.query_one("#hard-table", DataTable)
        table.clear(columns=True)
        heads = ("question", "solved", "key", "common wrong", "chosen by")
        rows = []
        for h in report.hardest:
            q = self.store.questions.get_question(h.uid)
            wrong = "—" if h.common_wrong is None else str(h.common_wrong)
            unsolved = round(h.runs - h.solved)  # runs with no credit, or a tie
            share = f"{h.common_wrong_count} of {unsolved} wrong" if unsolved else "—"
            first = next((o for o in q.options if o.position == 1), None) if q else None
            rows.append((h.uid, [cut(display.question_id(h.uid, q.source_id if q else None), 20),
                                 f"{display.count(h.solved)}/{h.runs}", str(q.key if q and q.key else "—"),
                                 wrong, share], first.mesra1 if first else ""))
        # the couplet gets the room the other columns leave: cut here at its logical end, never
        # by the table (which would cut a reordered line at its logical start)
        used = sum(max([len(head), *(len(r[1][i]) for r in rows)]) + 2 for i, head in enumerate(heads))
        shown = table.size.width or self.app.size.width - 4  # the tab is filled before it is laid out
        room = min(40, max(12, shown - SCROLLBAR - used - 2))  # 2: the couplet cell's padding
        for i, head in enumerate(heads):
            table.add_column(head if i == 0 else right(head), key=("uid", "solved", "key", "wrong", "share")[i])
        table.add_column(right("first couplet"), key="text", width=room)
        for uid, cells, couplet in rows:
            table.add_row(cells[0], *(right(c) for c in cells[1:]),
                          right(bidi.display_line(couplet, room, mode) if couplet else ""), key=uid)
        self.query_one("#hard-note", Static).update(
            f"The {len(report.hardest)} question(s) the fewest runs solve, with the wrong option "
            f"chosen most often and by how many of the runs that got it wrong. Enter shows the question.")

    @on(DataTable.RowSelected, "#hard-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        uid = event.row_key.value if event.row_key else None
        hardest = self.report.hardest if self.report is not None else []
        h = next((h for h in hardest if h.uid == uid), None)

        def note(question: Question) -> str:
            if h is None:
                return ""
            text = f"{uid}: solved by {display.count(h.solved)} of {h.runs} run(s)"
            if h.common_wrong is not None:
                text += f"; {h.common_wrong_count} chose option {h.common_wrong}"
            return text + (f"; key {question.key}" if question.key else "")

        open_question(self, uid, note)


class ItemsTab(ReportTab):
    """Tab 7: the item analysis (difficulty, discrimination, flags) of every question."""

    def compose(self) -> ComposeResult:
        yield Static(id="items-note", markup=False, classes="report-note")
        yield RowsTable(id="items-table", cursor_type="row", zebra_stripes=True)

    def fill(self, report: Report, runs: RunNames) -> None:
        self.report = report
        fill_items(self.query_one("#items-table", DataTable), self.query_one("#items-note", Static), report.items,
                   self.store.questions.source_ids())

    @on(DataTable.RowSelected, "#items-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        uid = event.row_key.value if event.row_key else None
        items = self.report.items if self.report is not None else []
        open_question(self, uid, lambda question: item_note(items, uid or ""))

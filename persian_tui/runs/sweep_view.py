"""What a sweep looks like while it runs: one rich renderable of its runs (bar, rows, requests/s,
errors, 429s, retries, cost) and endpoints (window, in flight, slow-downs), drawn by the CLI's live
view and the TUI's sweep dashboard alike. Wide, a table; narrow (an 80-column terminal), each run
on two lines, its slot and then its figures, so that every run stays named."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import display

if TYPE_CHECKING:
    from .sweep import SweepProgress

WIDE = 110  # columns from which the runs are a table (below: two lines each)


def money(value: float | None) -> str:
    return display.MISSING if value is None else f"${value:.4f}" if value < 1 else f"${value:,.2f}"


@dataclass
class _Row:
    slot: str
    done: int
    total: int
    rate: float
    errors: int
    throttled: int
    retries: int
    cost: str
    status: str


@dataclass
class SweepView:
    """The sweep as it was when drawn (the figures copied: the sweep goes on meanwhile)."""

    title: str
    rows: list[_Row]
    notes: list[str]  # under the runs: the endpoints' figures, why runs stopped short

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        yield self._table() if options.max_width >= WIDE else self._lines()
        yield from self.notes

    def _table(self) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        table = Table(title=self.title, expand=False)
        for col in ("run", "progress", "rows", "req/s", "errors", "429s", "retries", "cost", "status"):
            table.add_column(col, justify="left" if col in ("run", "progress", "status") else "right")
        for r in self.rows:
            table.add_row(r.slot, ProgressBar(total=max(1, r.total), completed=r.done, width=24),
                          f"{r.done}/{r.total}", f"{r.rate:.1f}", str(r.errors), str(r.throttled),
                          str(r.retries), r.cost, r.status)
        return table

    def _lines(self) -> Any:
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        from rich.text import Text

        parts: list[Any] = [Text(self.title, overflow="ellipsis", no_wrap=True)]
        for r in self.rows:
            figures = Table.grid(padding=(0, 1))
            figures.add_row(" ", ProgressBar(total=max(1, r.total), completed=r.done, width=10),
                            f"{r.done}/{r.total}", f"{r.rate:.1f}/s", f"errors {r.errors}", f"429s {r.throttled}",
                            f"retries {r.retries}", r.cost, r.status)
            parts += [Text(r.slot, overflow="ellipsis", no_wrap=True), figures]
        return Group(*parts)


def render(p: SweepProgress) -> SweepView:
    """The sweep's renderable (every name in it cleaned of control characters)."""
    title = display.line(f"sweep {p.name}: {p.done}/{p.total} rows, {p.rate:.1f} rows/s, spent {money(p.spent)}"
                         + (f" of {money(p.budget.limit)}" if p.budget.limit is not None else ""))
    rows = []
    for r in p.runs:
        rows.append(_Row(display.line(r.slot), r.progress.done if r.progress else 0, r.total,
                         r.pace.rate(), r.progress.errors if r.progress else 0, r.pace.throttled,
                         r.pace.retries, money(None if r.pace.model.uncounted and not r.pace.cost else r.pace.cost),
                         r.status))
    notes = [f"endpoint {display.line(e.name)}: {e.in_flight} in flight, window {int(e.window)}/{e.limit}, "
             f"{e.requests} requests, {e.throttled} 429s, {e.decreases} slow-downs" for e in p.endpoints]
    return SweepView(title, rows, notes + [display.line(why) for why in p.stops()])

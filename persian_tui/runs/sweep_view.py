"""What a sweep looks like while it runs: one rich renderable of its runs (bar, rows, requests/s,
errors, 429s, retries, cost) and endpoints (window, in flight, slow-downs), drawn by the CLI's live
view and the TUI's sweep dashboard alike."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .. import display

if TYPE_CHECKING:
    from .sweep import SweepProgress


def money(value: float | None) -> str:
    return display.MISSING if value is None else f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def render(p: SweepProgress) -> Any:
    """The sweep's renderable (every name in it cleaned of control characters)."""
    from rich.console import Group
    from rich.progress_bar import ProgressBar
    from rich.table import Table

    table = Table(title=display.line(f"sweep {p.name}: {p.done}/{p.total} rows, {p.rate:.1f} rows/s, "
                                     f"spent {money(p.spent)}"
                                     + (f" of {money(p.budget.limit)}" if p.budget.limit is not None else "")),
                  expand=False)
    for col in ("run", "progress", "rows", "req/s", "errors", "429s", "retries", "cost", "status"):
        table.add_column(col, justify="left" if col in ("run", "progress", "status") else "right")
    for r in p.runs:
        done = r.progress.done if r.progress else 0
        elapsed = max(1e-9, time.monotonic() - r.pace.started)
        table.add_row(display.line(r.slot), ProgressBar(total=max(1, r.total), completed=done, width=24),
                      f"{done}/{r.total}", f"{r.pace.requests / elapsed:.1f}",
                      str(r.progress.errors if r.progress else 0), str(r.pace.throttled), str(r.pace.retries),
                      money(None if r.pace.model.uncounted and not r.pace.cost else r.pace.cost), r.status)
    lines = [f"endpoint {display.line(e.name)}: {e.in_flight} in flight, window {int(e.window)}/{e.limit}, "
             f"{e.requests} requests, {e.throttled} 429s, {e.decreases} slow-downs" for e in p.endpoints]
    return Group(table, *lines)

"""Measure the bank screen headless (for bench/bench_bank.py; never asserted in tests; not shipped).

Called by bench/bench_bank.py on the database it builds; ``measure`` reports:
  start_ms      App start -> bank table populated and painted (run_test, headless)
  fill_ms       the bank screen's own query + table fill at start
  baseline_ms   an unbound key: press -> idle (the harness's own round trip)
  keystroke_ms  each search keystroke: press -> filter + table refill + repaint -> idle
                (wall clock; pilot's idle detection sleeps in steps, so this is coarse)
  cpu_ms        CPU time spent over the same span: the work a keystroke costs
  handler_ms    the part of it spent in the screen's handler (SQL + fill)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from time import perf_counter, process_time


@dataclass(frozen=True)
class BankTimings:
    """What ``measure`` found (the fields the module's docstring lists; one per keystroke in lists)."""

    rows: int  # in the table at start
    start_ms: float
    fill_ms: float
    baseline_ms: float
    baseline_cpu_ms: float
    keystroke_ms: list[float]
    cpu_ms: list[float]
    handler_ms: list[float]
    rows_after_query: int
    matching_after_query: int
    clear_ms: float


async def measure(db_path: Path, *, query: str = "عشق", mode: str = "app",
                  size: tuple[int, int] = (120, 40)) -> BankTimings:
    from persian_tui.tui.app import PersianTUI
    from persian_tui.tui.widgets.bank_table import BankTable

    t0 = perf_counter()
    app = PersianTUI(db_path, mode)
    async with app.run_test(size=size) as pilot:
        while app.bank is None or app.bank.loaded_at is None:  # noqa: ASYNC110 (polls the first paint, 1 ms)
            await asyncio.sleep(0.001)
        start_ms = (app.bank.loaded_at - t0) * 1000
        await app.workers.wait_for_complete()  # hazm warm-up (a thread started at mount)
        await pilot.pause()
        bank = app.bank
        table = app.screen.query_one(BankTable)
        rows_at_start = table.row_count
        fill_ms = bank.last_refresh_ms
        await pilot.press("slash")
        baseline: list[float] = []
        baseline_cpu: list[float] = []
        for _ in range(3):  # the harness's own press -> idle round trip (an unbound key)
            t, c = perf_counter(), process_time()
            await pilot.press("f20")
            await pilot.pause()
            baseline.append((perf_counter() - t) * 1000)
            baseline_cpu.append((process_time() - c) * 1000)
        keystroke: list[float] = []
        cpu: list[float] = []
        handler: list[float] = []
        for ch in query:
            t, c = perf_counter(), process_time()
            await pilot.press(ch)
            await pilot.pause()
            keystroke.append((perf_counter() - t) * 1000)
            cpu.append((process_time() - c) * 1000)
            handler.append(bank.last_refresh_ms)
        rows_after, matching = table.row_count, len(bank.matches)
        t = perf_counter()
        await pilot.press("escape")
        await pilot.pause()
        clear_ms = (perf_counter() - t) * 1000
    return BankTimings(rows_at_start, start_ms, fill_ms, median(baseline), median(baseline_cpu), keystroke, cpu,
                       handler, rows_after, matching, clear_ms)


def report(r: BankTimings, query: str) -> list[str]:
    """Printable lines of a ``measure`` result."""
    lines = [f"bank screen: App start -> {r.rows} rows painted {r.start_ms:.0f} ms "
             f"(screen query + fill {r.fill_ms:.0f} ms)   [target < 1 s]",
             f"  harness round trip of an unbound key: {r.baseline_ms:.0f} ms wall, "
             f"{r.baseline_cpu_ms:.0f} ms CPU"]
    for ch, k, c, h in zip(query, r.keystroke_ms, r.cpu_ms, r.handler_ms):
        lines.append(f"  search keystroke {ch!r}: {c - r.baseline_cpu_ms:.0f} ms CPU over the harness "
                     f"(filter + table refill {h:.0f} ms; {k:.0f} ms wall incl. harness idle wait)"
                     "   [target < 100 ms]")
    lines.append(f"  after {query!r}: {r.matching_after_query:,} match, {r.rows_after_query} rows "
                 f"in the table (more load on scroll); Escape (clear) {r.clear_ms:.0f} ms wall")
    return lines

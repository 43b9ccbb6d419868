"""What a sweep's runs cost (`report --sweep NAME`): the report's closing section in every
format. Per run and for the sweep: the rows stored, the requests sent (rows plus retries: a
reply from the cache counts as one), the 429s and retries of the retry log, and the cost spent
(the endpoint's reported cost, else the tokens at the spec's prices; none when neither is known);
and the sweep's budget (the one it was last asked under: sweep.max_cost or --max-cost)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..runs.sweep import JUDGE_SLOT, sweep_rows
from ..runs.sweep_view import money
from ..store import Store
from .csv_text import csv_text

HEADER = ["run", "slot", "status", "rows", "requests", "429s", "retries", "cost"]
CSV_HEADER = ["sweep", "run_id", "slot", "status", "rows", "requests", "throttled", "retries", "cost_usd",
              "budget_usd"]
NOTE = ("Cost: what the endpoint reported, else the tokens at the spec's prices (— when neither is "
        "known); requests: rows plus retries (a reply from the cache counts as one); 429s: the retries "
        "that followed a rate limit (HTTP 429).")


@dataclass
class RunCost:
    run_id: int
    slot: str
    status: str
    rows: int
    requests: int
    throttled: int  # 429s
    retries: int
    cost: float | None  # USD; None: no reply has a cost (no price, none reported)


@dataclass
class SweepCost:
    name: str
    budget: float | None  # USD (the last it was asked under); None: no budget
    runs: list[RunCost] = field(default_factory=list)
    spent: float = 0.0  # the runs' costs (those known)
    requests: int = 0
    throttled: int = 0
    retries: int = 0


def sweep_cost(store: Store, name: str, only: list[int] | None = None) -> SweepCost:
    """The sweep's runs (those of `only` when given, with the judge runs that judge them) and what
    they cost; RunError: no such sweep."""
    sweep = store.sweeps.get_sweep(name)
    rows = sweep_rows(store, name)
    kept = {r.slot for r in rows if only is None or r.run_id in only}
    rows = [r for r in rows
            if r.slot in kept or (r.slot.startswith(JUDGE_SLOT) and r.slot.removeprefix(JUDGE_SLOT) in kept)]
    runs = [RunCost(r.run_id, r.slot, r.status, r.done, r.done + r.retries, r.throttled, r.retries, r.cost)
            for r in rows]
    budget = sweep.spec["sweep"].get("max_cost") if sweep is not None else None
    return SweepCost(name, budget, runs, sum(r.cost or 0.0 for r in runs), sum(r.requests for r in runs),
                     sum(r.throttled for r in runs), sum(r.retries for r in runs))


def _spent(cost: SweepCost) -> str:
    if cost.budget is None:
        return f"spent {money(cost.spent)} (no budget)"
    return f"spent {money(cost.spent)} of the budget {money(cost.budget)} ({100 * cost.spent / cost.budget:.0f} %)" \
        if cost.budget else f"spent {money(cost.spent)} of the budget {money(cost.budget)}"


def sweep_text(cost: SweepCost | None, table, *, md: bool = False) -> list[str]:
    """The section's lines; `table(header, rows)` draws a table (text or Markdown)."""
    if cost is None:
        return []
    rows = [[f"#{r.run_id}", r.slot, r.status, str(r.rows), str(r.requests), str(r.throttled), str(r.retries),
             money(r.cost)] for r in cost.runs]
    rows.append(["", "total", "", str(sum(r.rows for r in cost.runs)), str(cost.requests), str(cost.throttled),
                 str(cost.retries), money(cost.spent)])
    title = f"## Sweep {cost.name}: cost" if md else f"== Sweep {cost.name}: cost per run"
    return ["", title, "", NOTE, ""] + table(HEADER, rows) + ["", f"Sweep {cost.name}: {_spent(cost)}."]


def sweep_csvs(cost: SweepCost | None) -> dict[str, str]:
    """sweep_cost.csv: a row per run, then the sweep's total with its budget (none without --sweep)."""
    if cost is None:
        return {}
    rows: list[list[object]] = [[cost.name, r.run_id, r.slot, r.status, r.rows, r.requests, r.throttled,
                                 r.retries, r.cost, None] for r in cost.runs]
    rows.append([cost.name, None, "total", None, sum(r.rows for r in cost.runs), cost.requests, cost.throttled,
                 cost.retries, cost.spent, cost.budget])
    return {"sweep_cost.csv": csv_text(CSV_HEADER, rows)}

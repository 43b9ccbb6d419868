"""`persian-tui sweep SPEC.toml`: models × strategies × samples × shuffle seeds from one spec,
asked at once through the endpoints' shared limits within a budget (runs/sweep.py); `sweep status
[NAME]` and `sweep resume NAME`. One live view of the whole sweep on a terminal (rich), a line
every few seconds otherwise."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from .. import display
from ..runs.sweep_view import money, render
from .common import UserError, open_store
from .runs import run_async

USAGE = ("persian-tui sweep SPEC.toml [--dry-run] [--resume [--retry-errors]] [--max-cost USD]\n"
         "       persian-tui sweep resume NAME [--retry-errors] [--max-cost USD]\n"
         "       persian-tui sweep status [NAME]")


def cmd_sweep(args: argparse.Namespace) -> int:
    if args.target == "status":
        return _status(args)
    from ..runs.sweep_spec import SweepSpecError, load_sweep_spec

    resume = args.resume
    try:
        if args.target == "resume":
            if not args.name:
                raise UserError("sweep resume NAME: name the sweep (see persian-tui sweep status)")
            spec, resume = None, True
        else:
            if args.name:
                raise UserError(f"sweep takes one spec file (got also {args.name!r})")
            spec = load_sweep_spec(args.target)
    except SweepSpecError as e:
        raise UserError(str(e)) from None
    return _sweep(args, spec, resume)


def _sweep(args, spec, resume: bool) -> int:
    from ..runs import RunError
    from ..runs.sweep import check_resume, create_sweep, execute_sweep, plan_sweep, stored_sweep_spec

    with open_store(args, read=args.dry_run) as store:
        try:
            if spec is None:
                spec = stored_sweep_spec(store, args.name)
            plan = plan_sweep(store, spec)
            if args.dry_run:
                _print_plan(store, plan, resume, args.max_cost)
                return 0
            if resume:
                check_resume(store, spec)
            else:
                create_sweep(store, plan)
        except RunError as e:
            raise UserError(str(e)) from None
        db = store.path
    from ..judging.run import execute_judge_run, judge_run_fields

    view = LiveView(spec.sweep.name)
    try:
        progress = run_async(execute_sweep(db, spec, max_cost=args.max_cost, retry_errors=args.retry_errors,
                                           on_progress=view, judge_with=(judge_run_fields, execute_judge_run)))
    except RunError as e:
        raise UserError(str(e)) from None
    finally:
        view.stop()
    with open_store(args, read=True) as store:
        rows = _print_rows(store, spec.sweep.name)  # as stored: a row written as a stop came is there
    limit = args.max_cost if args.max_cost is not None else spec.sweep.max_cost
    stopped = any(r.pace.stopped for r in progress.runs)
    done, total = sum(r.done for r in rows), sum(r.total for r in rows)
    print(f"sweep {spec.sweep.name} {progress.status}: {done}/{total} rows, spent "
          f"{money(progress.spent)}" + (f" of {money(limit)}" if limit is not None else ""))
    for why in progress.stops():
        print(f"sweep {spec.sweep.name}: {display.line(why)}", file=sys.stderr)
    uncounted = sorted({r.pace.spec.model for r in progress.runs if r.pace.model.uncounted})
    if uncounted and (limit is not None or any(m.max_cost is not None for m in spec.model)):
        print(f"warning: {', '.join(uncounted)}: the endpoint reports no cost and the spec gives no "
              "price_in/price_out, so the budget did not count their requests", file=sys.stderr)
    if progress.status != "done":
        print(f"sweep {spec.sweep.name} stopped; `persian-tui sweep resume {spec.sweep.name}` goes on"
              + (" (with a larger --max-cost)" if stopped else ""), file=sys.stderr)
    return 0 if progress.status == "done" else 1


def _print_plan(store, plan, resume: bool, max_cost: float | None) -> None:
    s = plan.spec.sweep
    sweep = store.sweeps.get_sweep(s.name)
    left = {}
    if resume and sweep is not None:
        for slot, run in store.sweeps.sweep_runs(sweep.id):
            left[slot] = run.total - len(store.runs.predicted_samples(run.id))
    limit = max_cost if max_cost is not None else s.max_cost
    source = f"release {s.release}" if s.release else f"questions {s.questions}"
    requests = sum(left.get(r.slot, r.requests) for r in plan.runs) if resume else plan.requests
    runs = f"{len(plan.runs)} run{'s' * (len(plan.runs) > 1)}"
    print(f"sweep {s.name}: {runs}, {len(plan.questions)} questions ({source}) × "
          f"{s.samples} sample{'s' * (s.samples > 1)}, {requests} requests"
          + (" still to ask" if resume else ""))
    for r in plan.runs:
        n = left.get(r.slot, r.requests) if resume else r.requests
        cost = None if r.cost is None else r.cost * n / r.requests
        print(f"  {display.line(r.slot):<48} {n:>7} requests  {money(cost):>10}  "
              f"{r.model.connections} connections")
    total = plan.cost
    print("estimated cost: " + (money(total * requests / plan.requests) if total is not None else
                                "unknown (a model without price_in/price_out: its endpoint reports the cost)")
          + (f"; budget {money(limit)}" if limit is not None else "")
          + " (input: a third of a token per prompt character; output: "
          + (f"{s.max_tokens}" if s.max_tokens else "256") + " tokens per reply)")
    if plan.spec.judge is not None:
        j = plan.spec.judge
        print(f"then a judge run of {display.line(j.model)} over each answer run once it is done"
              + (" (its wrong answers)" if j.only_wrong else "") + ": up to one request per question each")
    if sweep is not None and not resume:
        print(f"note: a sweep named {s.name!r} exists: --resume goes on with it")
    print("dry run: nothing sent")


def _print_rows(store, name: str) -> list:
    from ..runs.sweep import sweep_rows

    rows = sweep_rows(store, name)
    wide = max([len(display.line(r.slot)) for r in rows] + [5])  # the slots' width: no padding to wrap
    for r in rows:
        print(f"{r.run_id:>4}  {display.line(r.slot):<{wide}} {r.status:<11} {r.done:>6}/{r.total:<6} "
              f"errors {r.errors:<4} retries {r.retries:<4} (429: {r.throttled:<4}) {money(r.cost)}"
              + (f"  ({display.line(r.reason)})" if r.reason and r.status != "done" else ""))
    print(f"      {'total':<{wide}} {'':<11} {sum(r.done for r in rows):>6}/{sum(r.total for r in rows):<6} "
          f"errors {sum(r.errors for r in rows):<4} retries {sum(r.retries for r in rows):<4} "
          f"(429: {sum(r.throttled for r in rows):<4}) {money(sum(r.cost or 0 for r in rows))}")
    return rows


def report_runs(store, name: str, only: list[int] | None) -> list[int]:
    """`report --sweep NAME`: the sweep's run ids (those of `only` when given); its cost closes
    the report (reports/sweep_costs.py)."""
    from ..runs import RunError
    from ..runs.sweep import JUDGE_SLOT, sweep_rows

    try:
        rows = sweep_rows(store, name)
    except RunError as e:
        raise UserError(str(e)) from None
    rows = [r for r in rows if (only is None or r.run_id in only) and not r.slot.startswith(JUDGE_SLOT)]
    if not rows:  # (its judge runs judge these: their cost is in the report's cost section)
        raise UserError(f"sweep {name!r} has none of runs {', '.join(map(str, only or []))}")
    return [r.run_id for r in rows]


def _status(args) -> int:
    from ..runs import RunError

    with open_store(args, read=True) as store:
        sweeps = [store.sweeps.get_sweep(args.name)] if args.name else store.sweeps.sweeps()
        if args.name and sweeps[0] is None:
            raise UserError(f"no sweep {args.name!r} (see persian-tui sweep status)")
        if not sweeps:
            print("no sweeps yet")
        for sweep in sweeps:
            assert sweep is not None
            print(f"sweep {sweep.name} (created {sweep.created_at})")
            try:
                _print_rows(store, sweep.name)
            except RunError as e:
                raise UserError(str(e)) from None
    return 0


class LiveView:
    """The sweep's live view: a rich table of its runs (bar, rows, requests/s, errors, 429s,
    retries, cost) and its endpoints (window, in flight) on a terminal's stderr; without a
    terminal, one line every 5 s."""

    def __init__(self, name: str):
        self.name, self.last = name, 0.0
        self.live: Any = None  # the rich Live view, made at the first report
        self.tty = sys.stderr.isatty()

    def __call__(self, p) -> None:
        if not self.tty:
            now = time.monotonic()
            if p.status == "running" and now - self.last < 5:
                return
            self.last = now
            print(display.line(f"sweep {self.name}: {p.done}/{p.total} rows, {p.rate:.1f}/s, spent "
                               f"{money(p.spent)}, 429s {sum(e.throttled for e in p.endpoints)}"),
                  file=sys.stderr)
            return
        if self.live is None:
            from rich.console import Console
            from rich.live import Live

            console = Console(file=getattr(sys.stderr, "raw", sys.stderr))  # our controls; data is cleaned
            self.live = Live(console=console, auto_refresh=False, transient=False)
            self.live.start()
        self.live.update(render(p), refresh=True)

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()


def add_commands(sub) -> None:
    sw = sub.add_parser("sweep", help="a paper's worth of runs from one spec: models × strategies × samples",
                        usage=USAGE,
                        description="Expand a TOML spec (endpoints, models, strategies, samples, shuffle "
                        "seeds, questions or release, budget) to LLM runs recorded as one sweep, and ask them "
                        "all at once: every run on one endpoint shares its connections and per-minute limits, "
                        "a 429 slows them all, a budget stops new requests before the recorded cost can pass "
                        "it. See the guide: docs/guide/sweeps.md.")
    sw.add_argument("target", metavar="SPEC|status|resume",
                    help="the spec file (TOML); `status [NAME]` lists sweeps; `resume NAME` goes on with one")
    sw.add_argument("name", nargs="?", help="with status or resume: the sweep's name")
    sw.add_argument("--dry-run", action="store_true",
                    help="list the runs, the request count and the estimated cost; send nothing")
    sw.add_argument("--resume", action="store_true",
                    help="go on with the sweep the spec names: only what is missing is asked")
    sw.add_argument("--max-cost", type=_usd, metavar="USD",
                    help="stop new requests before the recorded cost could pass USD (overrides sweep.max_cost, "
                    "and stays the sweep's budget: its report's, a later resume's)")
    sw.add_argument("--retry-errors", action="store_true", help="with --resume: ask failed requests again")
    sw.set_defaults(func=cmd_sweep)


def _usd(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a number of US dollars, e.g. 5 or 0.5") from None
    if not 0 <= value <= 1_000_000 or value != value:
        raise argparse.ArgumentTypeError("must be between 0 and 1000000")
    return value

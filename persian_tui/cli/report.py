"""`persian-tui report`: the leaderboard, paired tests and breakdowns, printed or written as files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..files.outputs import WriteError
from ..models import QUESTION_SETS
from . import sweep
from .common import UserError, bounded_int, open_store, run_ids


def cmd_report(args: argparse.Namespace) -> int:
    from ..access import AccessDenied, acting
    from ..reports.figures import ReportError, build_report
    from ..reports.report_files import render_text, write_report
    from .access import acting_name

    with open_store(args, read=True) as store:
        if args.format != "table":  # a non-admin writes under the database's exports/ only
            try:
                acting(store, acting_name(args)).export_folder(store.path, Path(args.output).resolve())
            except AccessDenied as e:
                raise UserError(str(e)) from None
        chosen = run_ids(args.runs)
        if args.sweep:
            chosen = sweep.report_runs(store, args.sweep, chosen)
        try:
            report = build_report(store, run_ids=chosen, questions=args.questions, seed=args.seed,
                                  n_boot=args.bootstrap)
        except ReportError as e:
            raise UserError(str(e)) from None
        if args.sweep:  # what its runs (those reported) cost, closing every format
            from ..reports.sweep_costs import sweep_cost

            report.sweep = sweep_cost(store, args.sweep, chosen)
    if not report.run_ids:
        raise UserError("no runs to report (finished runs with predictions; see persian-tui runs)")
    if not report.questions:
        raise UserError(f"runs {', '.join(map(str, report.run_ids))} share no question with a key in "
                        f"the question set {args.questions!r}")
    if args.format == "table":
        sys.stdout.write(render_text(report, intervals=args.intervals))
        return 0
    try:
        paths = write_report(report, args.output, args.format, args.intervals)
    except WriteError as e:
        raise UserError(f"cannot write the report: {e}") from None
    except OSError as e:
        raise UserError(f"cannot write the report to {args.output}: {e.strerror or e}") from None
    print(f"report of {len(report.run_ids)} run(s) on {report.questions} shared question(s): "
          f"{len(paths)} file(s) in {args.output}: {', '.join(p.name for p in paths)}")
    return 0


def add_commands(sub) -> None:
    """The commands `report`."""
    rep = sub.add_parser("report", help="leaderboard with intervals, paired tests, breakdowns, charts",
                         description="Rank runs on every keyed question each answered (Wilson 95 %, "
                         "rank confidence sets, letters), compare each pair on the questions both answered "
                         "(exact McNemar, Holm over the report's pairs, Tango intervals, exact power), the "
                         "majority-key baseline, "
                         "clustered standard errors; on the questions all share: breakdowns, position "
                         "bias, confusion, agreement, hardest questions, the human baseline.")
    rep.add_argument("--runs", metavar="IDS", help="run ids, e.g. 1,2,5 (default: every finished run)")
    rep.add_argument("--sweep", metavar="NAME", help="the runs of this sweep (with --runs: those of them), "
                     "and what each cost")
    rep.add_argument("--questions", default="all", choices=QUESTION_SETS,
                     help="question set (all = draft, ready and curated; default: all)")
    rep.add_argument("--format", default="table", choices=("table", "md", "csv", "json"),
                     help="table prints; md (with PNG charts), csv and json write files (default: table)")
    rep.add_argument("-o", "--output", default="exports/report", metavar="DIR",
                     help="folder for md/csv/json files (default: exports/report); a non-admin's must be under "
                     "the database's exports/ folder")
    rep.add_argument("--seed", type=bounded_int(0), default=0, help="bootstrap seed (default: 0)")
    rep.add_argument("--bootstrap", type=bounded_int(1, 1_000_000), default=2000, metavar="N",
                     help="bootstrap resamples (default: 2000)")
    rep.add_argument("--intervals", default="pair", choices=("pair", "simultaneous"),
                     help="pair differences: Tango's 95 %% score interval of each pair's difference "
                     "(pair) or Bonferroni-adjusted intervals holding for all pairs at once "
                     "(simultaneous); JSON and CSV always have both (default: pair)")
    rep.set_defaults(func=cmd_report)

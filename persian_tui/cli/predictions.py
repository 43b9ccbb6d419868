"""`persian-tui import-predictions`, `import-reasoning` and `errors`: published answers and reasoning
traces as runs, and the judge's error categories per run."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import display
from .common import UserError, bounded_int, open_store, print_capped
from .options import one_run


def cmd_import_predictions(args: argparse.Namespace) -> int:
    from ..runs.prediction_files import import_predictions
    from .harness import cmd_import_log, is_harness_log

    if is_harness_log(args.file):
        return cmd_import_log(args)

    with open_store(args, read=args.dry_run) as store:  # a dry run only reads
        r = import_predictions(store, args.file, source=args.source, dry_run=args.dry_run)
    if r.unmatched:
        ids = ", ".join(sorted(r.unmatched, key=lambda s: (len(s), s))[:15])
        more = " ..." if len(r.unmatched) > 15 else ""
        print(f"unmatched: {sum(r.unmatched.values())} row(s) of {len(r.unmatched)} question id(s) "
              f"not in the bank: {ids}{more}")
    if r.ambiguous:
        ids = ", ".join(sorted(r.ambiguous, key=lambda s: (len(s), s))[:15])
        more = " ..." if len(r.ambiguous) > 15 else ""
        print(f"ambiguous: {sum(r.ambiguous.values())} row(s) skipped: {len(r.ambiguous)} question id(s) "
              f"{ids}{more} answered more than once per model or shared by several questions (the source "
              "repeats the id)")
        print_capped("ambiguous", r.reasons.values())
    head = "dry run: would import" if args.dry_run else "imported"
    print(f"{head} {len(r.runs_new)} run(s) ({sum(r.runs_new.values())} predictions, {r.invalid} "
          f"without a usable answer); {len(r.runs_unchanged)} already imported")
    return 0


def cmd_errors(args: argparse.Namespace) -> int:
    import json

    from ..judging.distribution import distributions, judge_agreement, reviews

    with open_store(args, read=True) as store:
        rows = store.judging.judgments(target_run=args.run) if args.run is not None else store.judging.judgments()
        names = {c.name: c for c in store.judging.error_categories()}
    if not rows:
        raise UserError("no judgments yet" + (f" for run {args.run}" if args.run is not None else "")
                        + ": run `persian-tui judge` first")
    dists, agreement, acted = distributions(rows), judge_agreement(rows), reviews(rows)
    if args.format == "json":
        from dataclasses import asdict

        print(display.json_safe(json.dumps({"runs": [asdict(d) for d in dists],
                                            "judge_vs_human": asdict(agreement),
                                            "reviews": [asdict(r) for r in acted]},
                                           ensure_ascii=False, indent=2)))
        return 0
    counts = lambda c: ", ".join(f"{v} {n}" for v, n in sorted(c.items())) or "—"  # noqa: E731
    for d in dists:
        print(f"== run {d.target_run} ({d.model}): {d.judged} judged, {d.unscored} unscored, "
              f"{d.errors} api errors, {d.reviewed} reviewed, {d.flagged} flagged")
        print(f"   verdicts (judge):        {counts(d.verdicts)}")
        print(f"   verdicts (after review): {counts(d.final_verdicts)}")
        flawed = sum(d.categories.values()) or 1
        final = sum(d.final_categories.values()) or 1
        print(f"   {'category':<20} {'judge':>12} {'after review':>14}")
        for name in sorted(set(d.categories) | set(d.final_categories),
                           key=lambda n: -d.final_categories.get(n, 0)):
            j, f = d.categories.get(name, 0), d.final_categories.get(name, 0)
            label = names[name].label_en if name in names else name
            print(f"   {label:<20} {j:>5} ({j / flawed:4.0%}) {f:>6} ({f / final:4.0%})")
        said = [r for r in acted if r.target_run == d.target_run and (r.note or r.flagged)]
        for r in said[:REVIEWS_SHOWN]:
            parts = [f"{r.final_verdict or '—'} (judge: {r.judge_verdict or 'unscored'})"]
            if r.flagged:
                parts.append("flagged as a key problem" + (f": {r.flag_note}" if r.flag_note else ""))
            if r.note:
                parts.append(f"note: {r.note}")
            print(f"   {r.uid}: " + "; ".join(display.line(p) for p in parts))
        if len(said) > REVIEWS_SHOWN:
            print(f"   ... {len(said) - REVIEWS_SHOWN} more with notes or flags (--format json lists them all)")
    a = agreement
    fmt = lambda x: "—" if x is None else f"{x:.3f}"  # noqa: E731
    unjudged = f", {a.reviewed - a.compared} without a judge verdict" if a.reviewed > a.compared else ""
    print(f"judge vs reviewers ({a.reviewed} reviewed{unjudged}): verdict kappa {fmt(a.verdict_kappa)} "
          f"({a.verdict_agree}/{a.compared} agree); "
          f"category kappa {fmt(a.category_kappa)} ({a.category_agree}/{a.category_items} agree)")
    return 0


REVIEWS_SHOWN = 20


def cmd_import_reasoning(args: argparse.Namespace) -> int:
    from ..runs.reasoning_files import import_reasoning

    with open_store(args) as store:
        r = import_reasoning(store, [Path(p) for p in args.paths], source=args.source)
    print_capped("unmatched", r.unmatched)
    print_capped("note", r.notes)
    print(f"attached {r.attached} reasoning trace(s) to imported predictions")
    return 0


def add_commands(sub) -> None:
    """The commands `errors`, `import-reasoning`, `import-predictions`."""
    er = sub.add_parser("errors", help="error categories per run and judge-vs-human agreement")
    one_run(er, bounded_int(1), help="the judged run (default: all)")
    er.add_argument("--format", choices=("table", "json"), default="table", help="table or json (default: table)")
    er.set_defaults(func=cmd_errors)

    ir = sub.add_parser("import-reasoning", help="attach reasoning traces (JSON files) to imported runs")
    ir.add_argument("paths", nargs="+", help="files or folders of {model_id, question_id, reasoning_text}")
    ir.add_argument("--source", help="the source name the questions were imported under")
    ir.set_defaults(func=cmd_import_reasoning)

    ip = sub.add_parser("import-predictions", help="import answers as runs: seed CSVs, Inspect logs, lm-eval samples",
                        description="A CSV of published answers (model_name, question_id, model_answer; one "
                        "run per model), an Inspect log (.eval or .json; one run) or lm-evaluation-harness "
                        "--log_samples output (samples_*.jsonl; one run).")
    ip.add_argument("file", help="the CSV, Inspect log or lm-eval samples file")
    ip.add_argument("--model", metavar="NAME", help="lm-eval/Inspect: the run's model name (default: from the log)")
    ip.add_argument("--source", help="the source name the questions were imported under")
    ip.add_argument("--dry-run", action="store_true", help="show what would be imported, write nothing")
    ip.set_defaults(func=cmd_import_predictions)

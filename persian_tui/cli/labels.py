"""`persian-tui import-labels`, `agreement` and `setting`: labels from files, agreement between
annotators, the shared settings."""

from __future__ import annotations

import argparse
import sys

from .. import display, settings
from .common import open_store, print_capped


def cmd_import_labels(args: argparse.Namespace) -> int:
    from ..annotation.label_files import apply_labels, plan_labels

    with open_store(args, read=args.dry_run) as store:  # a dry run only reads
        plan = plan_labels(store, args.file)
        print_capped("rejected", plan.rejected)
        if args.dry_run:
            print(f"dry run: {plan.path}: {plan.summary()}; nothing written")
            return 0
        added = apply_labels(store, plan, skip_invalid=args.skip_invalid)
        print(f"imported labels from {plan.path}: {plan.summary()} ({added} added)")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    import json

    from ..annotation.agreement import agreement_report, as_dict

    with open_store(args, read=True) as store:
        report = agreement_report(store)
    if args.format == "json":
        print(display.json_safe(json.dumps([as_dict(a) for a in report], ensure_ascii=False, indent=2)))
        return 0
    for a in report:
        print(f"== {a.scope}: {a.items} questions, {a.labelled} labelled, {a.multi} with 2+ votes; "
              f"majority agrees with key {a.majority_agrees}, disagrees {a.majority_disagrees}")
        print(f"   Cohen's kappa (mean of pairs) {display.figure(a.cohen_mean, '{:.3f}')}   "
              f"Fleiss' kappa {display.figure(a.fleiss, '{:.3f}')} (n={a.fleiss_items})   "
              f"Krippendorff's alpha {display.figure(a.alpha, '{:.3f}')} (n={a.alpha_items})")
        for p in a.cohen_pairs:
            print(f"   kappa {p['a']} ~ {p['b']}: {display.figure(p['kappa'], '{:.3f}')} (n={p['items']})")
        for acc in a.annotators:
            ci = f" [{acc.low:.2f}, {acc.high:.2f}]" if acc.low is not None else ""
            print(f"   accuracy vs key {acc.annotator}: {acc.correct}/{acc.total} "
                  f"= {display.figure(acc.accuracy, '{:.3f}')}{ci}; {acc.answered} answers, {acc.fast} fast")
    return 0


def cmd_setting(args: argparse.Namespace) -> int:
    """Show the shared settings, or set one (stored in the database, for every annotator)."""
    shared = settings.SHARED
    if args.name is not None and args.name not in shared:
        print(f"persian-tui: error: unknown setting {args.name!r}; known: {', '.join(shared)}", file=sys.stderr)
        return 2
    if args.value is not None:
        if not shared[args.name].check(args.value):
            print(f"persian-tui: error: {args.name}: {args.value!r} is not valid: {shared[args.name].what}",
                  file=sys.stderr)
            return 2
        with open_store(args) as store:
            store.labels.set_setting(args.name, args.value.strip())
    with open_store(args, read=True) as store:
        for name, setting in shared.items():
            if args.name in (None, name):
                print(f"{name} = {store.labels.get_setting(name) or '(default)'}    # {setting.what}")
    return 0


def add_commands(sub) -> None:
    """The commands `import-labels`, `agreement`, `setting`."""
    lab = sub.add_parser("import-labels", help="import labels from CSV or JSONL",
                         description="Rows: annotator, uid (or source_id [+ source]), answer "
                         "(1..4, ۱..۴ or skip), optional confidence (low|medium|high) and note.")
    lab.add_argument("file", help="a CSV or JSONL file of labels")
    lab.add_argument("--dry-run", action="store_true", help="show what would happen, write nothing")
    lab.add_argument("--skip-invalid", action="store_true", help="import the valid rows and list the rejected ones")
    lab.set_defaults(func=cmd_import_labels)

    agr = sub.add_parser("agreement", help="inter-annotator agreement and accuracy against the key")
    agr.add_argument("--format", choices=("table", "json"), default="table", help="table or json (default: table)")
    agr.set_defaults(func=cmd_agreement)

    st = sub.add_parser("setting", help="show the shared settings, or set one (e.g. label_min_seconds 1.5)")
    st.add_argument("name", nargs="?", help=f"one of: {', '.join(settings.SHARED)}")
    st.add_argument("value", nargs="?", help="the new value (omit to show it)")
    st.set_defaults(func=cmd_setting)

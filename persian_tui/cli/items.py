"""`persian-tui items`: item analysis of every keyed question (difficulty, discrimination,
distractors, flags) from model runs and human labels; `persian-tui samples RUN`: a run asked
each question several times, voted per question."""

from __future__ import annotations

import argparse
import json

from .. import display
from ..models import QUESTION_SETS
from .common import UserError, bounded_int, open_store, run_ids


def cmd_anchors(args: argparse.Namespace) -> int:
    """`persian-tui items anchors --n N`: the anchor questions from the fitted common scale."""
    from dataclasses import asdict

    from ..reports.anchors import choose_anchors
    from ..reports.report_files import text_table
    from ..reports.selection import ReportError

    with open_store(args, read=True) as store:
        try:
            choice = choose_anchors(store, args.n or 50, args.questions, run_ids(args.runs))
        except ReportError as e:
            raise UserError(str(e)) from None
    if args.format == "json":
        print(json.dumps(asdict(choice), ensure_ascii=False, indent=2))
    elif args.format == "csv":
        print("uid,difficulty,discrimination,information,answered")
        for a in choice.anchors:
            print(f"{a.uid},{a.difficulty:.4f},{a.discrimination:.4f},{a.information:.4f},{a.answered}")
    else:
        low, high = choice.span
        print(f"{len(choice.anchors)} anchor(s) of {choice.keyed} keyed question(s): the most informative at "
              f"the abilities of {choice.runs} run(s) ({low:+.2f} to {high:+.2f} logits; {choice.model} "
              "model). Ask a new run only these with: persian-tui run llm --anchors "
              f"{len(choice.anchors)} ...; the report then estimates its whole-set accuracy.")
        print("\n".join(text_table(["question", "difficulty", "discrimination", "information", "runs"],
                                   [[a.uid, f"{a.difficulty:+.2f}", f"{a.discrimination:.2f}",
                                     f"{a.information:.2f}", str(a.answered)] for a in choice.anchors],
                                   right={1, 2, 3, 4})))
    return 0


def cmd_items(args: argparse.Namespace) -> int:
    if args.action == "anchors":
        return cmd_anchors(args)
    if args.n is not None:
        raise UserError("--n goes with `items anchors`")
    from ..reports.item_files import INDEPENDENCE_NOTE, TABLE_HEADER, flag_summary, item_csv, item_dict, item_table_rows
    from ..reports.items import item_analysis
    from ..reports.report_files import text_table
    from ..reports.selection import ReportError, report_inputs

    with open_store(args, read=True) as store:
        try:
            inp, _ = report_inputs(store, run_ids(args.runs), args.questions)
        except ReportError as e:
            raise UserError(str(e)) from None
        rows = item_analysis(store, inp.keyed, [r.id for r in inp.runs], inp.preds, inp.tied_uids())
    if args.format == "json":
        print(display.json_safe(json.dumps([item_dict(r) for r in rows], ensure_ascii=False, indent=2)))
    elif args.format == "csv":
        print(item_csv(rows), end="")
    else:
        print(f"{len(inp.runs)} run(s); " + flag_summary(rows))
        print(INDEPENDENCE_NOTE)
        print("\n".join(text_table(TABLE_HEADER, item_table_rows(rows), right={2, 3, 4, 6, 7})))
        for r in rows:
            for f in r.flags:
                print(f"{r.uid} {f}: {r.evidence[f]}")
    return 0


def cmd_samples(args: argparse.Namespace) -> int:
    from ..reports.report_files import text_table
    from ..reports.sample_files import ITEM_HEADER, item_rows, items_csv, summary_rows
    from ..reports.samples import sample_run

    with open_store(args, read=True) as store:
        run = store.runs.get_run(args.run)
        if run is None:
            raise UserError(f"no run {args.run}")
        keyed = [q for q in store.questions.questions(statuses=QUESTION_SETS[args.questions]) if q.key is not None]
        chosen, voted = store.runs.voted_predictions(run.id)
        result = sample_run(run, voted if voted is not None else store.runs.votes(chosen), keyed)
    if args.format == "json":
        from dataclasses import asdict

        print(display.json_safe(json.dumps({**asdict(result), "agreement_is": result.agreement_label},
                                           ensure_ascii=False, indent=2)))
    elif args.format == "csv":
        print(items_csv([result]), end="")
    else:
        (summary,) = summary_rows([result])
        print(f"run #{result.run_id} {result.model}: {result.samples} sample(s) per question, "
                           f"{result.questions} keyed questions; majority vote {summary[4]} ({summary[5]}; "
                           f"ties {summary[13]}, each 1/t credit), mean {summary[6]} ({summary[7]}), majority − "
                           f"mean {summary[8]} ({summary[9]}), {result.agreement_label} {summary[10]} (chance "
                           f"{summary[11]}), unanimous {summary[12]}")
        rows = [[display.MISSING if c is None else f"{c:.2f}" if isinstance(c, float) else str(c) for c in row[1:]]
                for row in item_rows(result)]
        print("\n".join(text_table(ITEM_HEADER[1:], rows, right={1, 4, 5, 7})))
    return 0


def add_commands(sub) -> None:
    sm = sub.add_parser("samples", help="a run asked each question K times: majority, agreement, accuracy",
                        description="Per question: every sample's answer (- unusable), the majority's "
                        "answer, the agreement among samples (across option orders when shuffled), "
                        "the sample judging uses by default; per run: accuracy by majority and by mean.")
    sm.add_argument("run", type=bounded_int(1), metavar="RUN", help="the run asked several times")
    sm.add_argument("--questions", default="all", choices=QUESTION_SETS,
                    help="question set: ready (includes curated), curated or all (default: all)")
    sm.add_argument("--format", default="table", choices=("table", "csv", "json"),
                    help="table, csv or json, printed (default: table)")
    sm.set_defaults(func=cmd_samples)
    it = sub.add_parser("items", help="item analysis: difficulty, discrimination, distractors, flags",
                        description="Every keyed question's statistics from model runs and human "
                        "labels, sorted by flag severity (suspect_key, low_agreement, too_hard, "
                        "low_discrimination, weak_distractor, too_easy), each flag with its evidence.")
    it.add_argument("action", nargs="?", choices=("anchors",),
                    help="anchors: choose --n anchor questions from the common-scale model (the most "
                    "informative at the runs' abilities) for `run llm --anchors`")
    it.add_argument("--n", type=bounded_int(1), metavar="N", help="with anchors: how many (default: 50)")
    it.add_argument("--runs", metavar="IDS", help="run ids, e.g. 1,2,5 (default: the report's runs)")
    it.add_argument("--questions", default="all", choices=QUESTION_SETS,
                    help="question set: ready (includes curated), curated or all (default: all)")
    it.add_argument("--format", default="table", choices=("table", "csv", "json"),
                    help="table, csv or json, printed (default: table)")
    it.set_defaults(func=cmd_items)

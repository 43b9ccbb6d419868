"""Headless commands over the same core as the TUI: `persian-tui --help`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import __version__, display, settings
from ..files.inputs import InputError
from ..files.outputs import WriteError
from ..files.records import is_text
from ..models import QUESTION_SETS, QUEUE_MODES
from ..runs import RunError
from ..store import DatabaseError, StoreError, discard_if_unused, is_there
from ..store.errors import write_error
from . import access, corpus, curate, items, release, users, web
from . import runs as runs_commands
from .common import MAX_ID, UserError, bounded_int, open_store, print_capped
from .options import DB_HELP, USER_HELP, Parser, db_everywhere, merge_run, one_run


def cmd_import(args: argparse.Namespace) -> int:
    from ..bank.importer import plan_import

    with open_store(args, read=getattr(args, "dry_run", False)) as store:  # a dry run only reads
        plan = plan_import(store, args.file, fmt=args.format, answers=args.answers,
                           source=args.source, allow_duplicates=args.allow_duplicates,
                           allow_dirty=getattr(args, "allow_dirty", False),
                           swapped=not args.no_swap)
        for w in plan.warnings:
            print(f"warning: {w}")
        for outcome in ("duplicate", "conflict", "rejected"):
            print_capped(outcome, (f"{d.record.where}: {d.reason}" for d in plan.of(outcome)))
        if args.verbose:
            for d in plan.decisions:
                for note in d.record.notes:
                    print(f"note: {d.record.where}: {note}")
        if not args.dry_run:
            return _apply_and_report(store, plan, args, head=_import_head(plan))
        print_capped("linked", (_linked_line(d) for d in plan.of("linked")))
        head = _import_head(plan)
        if plan.counts["rejected"] and not args.skip_invalid:
            print(f"dry run: {head}: {plan.summary()}; the import would fail "
                  "(rejected records; --skip-invalid imports the rest)")
        else:
            print(f"dry run: {head}: {plan.summary()}; nothing written")
    return 0


def _import_head(plan) -> str:
    return f"{plan.path} ({plan.format}" + (f", source {plan.source_name!r}" if plan.source_name else "") + ")"


def _linked_line(d) -> str:
    refs = ", ".join(r.label() for r in d.refs)
    return f"{d.record.where}: {d.reason}; {refs} -> {d.target}"


def _apply_and_report(store, plan, args, head: str) -> int:
    from ..bank.importer import OUTCOMES, apply_import

    planned = {id(d): d.outcome for d in plan.decisions}
    added = apply_import(store, plan, skip_invalid=args.skip_invalid)
    # what another import did meanwhile (the plan's lines were printed)
    changed = [d for d in plan.decisions if d.outcome != planned[id(d)] and d.outcome != "linked"]
    for outcome in OUTCOMES:
        print_capped(outcome, (f"{d.record.where}: {d.reason}" for d in changed if d.outcome == outcome))
    print_capped("linked", (_linked_line(d) for d in plan.of("linked")))
    print(f"imported {head}: {plan.summary()} ({added} added)")
    if plan.corpus:
        print(corpus_line(plan.corpus))
    return 0


def corpus_line(counts) -> str:
    """What linking the new questions to the corpus did, in one line."""
    released = f" ({counts['released']} in a release kept as they are)" if counts.get("released") else ""
    return (f"corpus: linked {counts.get('linked', 0)}, ambiguous {counts.get('ambiguous', 0)}, "
            f"unlinked {counts.get('unlinked', 0)}; {counts.get('reordered', 0)} option(s) put in the "
            f"poet's hemistich order{released}")


def cmd_sample(args: argparse.Namespace) -> int:
    args.file, args.format, args.answers, args.source = str(settings.sample_bank_path()), "jsonl", None, None
    return cmd_import(args)


def cmd_export(args: argparse.Namespace) -> int:
    from ..releases.export import export_jsonl

    with open_store(args, read=True) as store:
        n = export_jsonl(store, args.output, status=args.status, category=args.category,
                         with_labels=args.with_labels, anonymize=args.anonymize)
    print(f"exported {n} question(s) to {args.output}")
    if not n:
        scope = f"--status {args.status}" + (f" --category {args.category}" if args.category else "")
        print(f"warning: no question matched {scope}; {args.output} is empty (persian-tui stats shows "
              "the counts)", file=sys.stderr)
    return 0


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

    from ..judging.distribution import distributions, judge_agreement

    with open_store(args, read=True) as store:
        rows = store.judging.judgments(target_run=args.run) if args.run is not None else store.judging.judgments()
        names = {c.name: c for c in store.judging.error_categories()}
    if not rows:
        raise UserError("no judgments yet" + (f" for run {args.run}" if args.run is not None else "")
                        + ": run `persian-tui judge` first")
    dists, agreement = distributions(rows), judge_agreement(rows)
    if args.format == "json":
        from dataclasses import asdict

        print(display.json_safe(json.dumps({"runs": [asdict(d) for d in dists],
                                            "judge_vs_human": asdict(agreement)},
                                           ensure_ascii=False, indent=2)))
        return 0
    for d in dists:
        print(f"== run {d.target_run} ({d.model}): {d.judged} judged, {d.unscored} unscored, "
              f"{d.errors} api errors, {d.reviewed} reviewed")
        print("   verdicts: " + ", ".join(f"{v} {n}" for v, n in sorted(d.verdicts.items())))
        flawed = sum(d.categories.values()) or 1
        final = sum(d.final_categories.values()) or 1
        print(f"   {'category':<20} {'judge':>12} {'after review':>14}")
        for name in sorted(set(d.categories) | set(d.final_categories),
                           key=lambda n: -d.final_categories.get(n, 0)):
            j, f = d.categories.get(name, 0), d.final_categories.get(name, 0)
            label = names[name].label_en if name in names else name
            print(f"   {label:<20} {j:>5} ({j / flawed:4.0%}) {f:>6} ({f / final:4.0%})")
    a = agreement
    fmt = lambda x: "—" if x is None else f"{x:.3f}"  # noqa: E731
    print(f"judge vs reviewers: verdict kappa {fmt(a.verdict_kappa)} ({a.verdict_agree}/{a.reviewed} agree); "
          f"category kappa {fmt(a.category_kappa)} ({a.category_agree}/{a.category_items} agree)")
    return 0


def cmd_import_reasoning(args: argparse.Namespace) -> int:
    from ..runs.reasoning_files import import_reasoning

    with open_store(args) as store:
        r = import_reasoning(store, [Path(p) for p in args.paths], source=args.source)
    print_capped("unmatched", r.unmatched)
    print_capped("note", r.notes)
    print(f"attached {r.attached} reasoning trace(s) to imported predictions")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    with open_store(args, read=True) as store:
        c = store.questions.counts()
        print(f"database: {store.path} (schema v{store.version})")
        print(f"questions: {c.total}  " + "  ".join(f"{s}: {n}" for s, n in sorted(c.by_status.items())))
        if c.categories:
            print(f"categories: {', '.join(c.categories)}")
        refs, known, several = store.sources.source_counts()
        print(f"source references: {refs} of {known} question(s); {several} known by two or more")
        for imp in store.imports.iter_imports():
            print(f"import {imp['created_at']}: {imp['path']} ({imp['format']}) "
                  f"new {imp['new']}, linked {imp['linked']}, unchanged {imp['unchanged']}, "
                  f"duplicate {imp['duplicate']}, conflict {imp['conflict']}, rejected {imp['rejected']}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from ..reports.figures import ReportError, build_report
    from ..reports.report_files import render_text, write_report

    run_ids = None
    if args.runs:
        try:
            run_ids = [bounded_int(1)(x) for x in args.runs.replace(" ", "").split(",") if x]
        except argparse.ArgumentTypeError:
            raise UserError(f"--runs takes run ids (1 to {MAX_ID}) separated by commas, e.g. 1,2,5 "
                            f"(got {args.runs!r})") from None
    with open_store(args, read=True) as store:
        try:
            report = build_report(store, run_ids=run_ids, questions=args.questions, seed=args.seed,
                                  n_boot=args.bootstrap)
        except ReportError as e:
            raise UserError(str(e)) from None
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


def cmd_tui(args: argparse.Namespace) -> int:
    from ..tui.app import run_app

    return run_app(**tui_options(args))


def tui_options(args) -> dict:
    """run_app's arguments from the options add_tui_options declares (app.py and `tui`)."""
    from ..models import QueueScope

    scope = QueueScope(tag=args.queue_tag, category=args.queue_category, source=args.queue_source,
                       status=args.queue_status)
    annotator = args.annotator or getattr(args, "user", None)  # `tui --user NAME` names you too
    return dict(db=args.db, bidi=args.bidi, sample=not args.no_sample, annotator=annotator,
                queue_mode=args.queue, queue_scope=scope if scope != QueueScope() else None,
                shape=args.shape)


def add_tui_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bidi", choices=settings.BIDI_SETTINGS, default=None,
                   help="right-to-left display: app reorders, terminal leaves it to a bidi "
                        "terminal, auto picks (default: $PERSIAN_TUI_BIDI or auto)")
    p.add_argument("--shape", choices=settings.SHAPE_SETTINGS, default=None,
                   help="join Arabic letters for terminals that do not (auto: on in app bidi mode; "
                        "default: $PERSIAN_TUI_SHAPE or auto)")
    p.add_argument("--no-sample", action="store_true",
                   help="do not seed a new database with the bundled sample bank")
    p.add_argument("--annotator", metavar="NAME",
                   help="your name for labels, edits and decisions (asked when needed)")
    q = p.add_argument_group("labelling queue")
    q.add_argument("--queue", choices=QUEUE_MODES, default="overlap",
                   help="overlap: questions others have started first, so annotators share items "
                        "and agreement can be measured (default); spread: fewest labels first")
    q.add_argument("--queue-tag", metavar="TAG", help="only questions with this tag")
    q.add_argument("--queue-category", metavar="NAME", help="only questions of this category")
    q.add_argument("--queue-source", metavar="NAME", help="only questions from this source")
    q.add_argument("--queue-status", choices=("draft", "ready", "curated"),
                   help="only questions with this status (default: all three)")


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="persian-tui",
                                description="Build and evaluate Persian poetry outlier benchmarks.")
    p.add_argument("--version", action="version", version=f"persian-tui {__version__}")
    p.add_argument("--db", metavar="PATH", help=DB_HELP)
    p.add_argument("--user", metavar="NAME", help=USER_HELP)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    imp = sub.add_parser("import", help="import questions from a file",
                         description="Import questions. Formats: benchmark (the seed's "
                         "benchmark_dataset.json), exp1 (question files + --answers), book "
                         "(pages[].data.questions[] + --answers), jsonl (what export writes).")
    imp.add_argument("file", help="the question file")
    imp.add_argument("--format", choices=("benchmark", "exp1", "book", "jsonl"),
                     help="input format (default: detected)")
    imp.add_argument("--answers", metavar="KEYS.json", help="answer-key file {\"id\": 1..4}")
    imp.add_argument("--source", help="source name stored with each question (default: file name)")
    imp.add_argument("--dry-run", action="store_true", help="show what would happen, write nothing")
    imp.add_argument("--skip-invalid", action="store_true",
                     help="import the valid records and list the rejected ones")
    imp.add_argument("--allow-duplicates", action="store_true",
                     help="add near-duplicates of existing questions instead of skipping them")
    imp.add_argument("--allow-dirty", action="store_true",
                     help="import questions with the same couplet twice as drafts tagged dirty "
                          "(default: rejected)")
    imp.add_argument("--no-swap", action="store_true",
                     help="book format: the file's mesra1 is already the first hemistich")
    imp.add_argument("-v", "--verbose", action="store_true", help="also list per-record notes")
    imp.set_defaults(func=cmd_import)

    smp = sub.add_parser("sample", help="import the bundled sample bank (idempotent)")
    smp.add_argument("--dry-run", action="store_true", help="show what would happen, write nothing")
    smp.set_defaults(func=cmd_sample, skip_invalid=False, allow_duplicates=False,
                     no_swap=False, verbose=False)

    exp = sub.add_parser("export", help="export questions as JSONL",
                         description="Write the bank's questions as JSONL (one question per line, the "
                         "format `import` reads back); --with-labels adds labels and decisions.")
    exp.add_argument("-o", "--output", default="exports/questions.jsonl",
                     help="output file (default: exports/questions.jsonl)")
    exp.add_argument("--status", default="all",
                     choices=("all", "draft", "ready", "curated", "retired"),
                     help="ready includes curated (default: all)")
    exp.add_argument("--category", help="only this category")
    exp.add_argument("--with-labels", action="store_true",
                     help="add labels, agreement, adjudication and revision count per question")
    exp.add_argument("--anonymize", action="store_true",
                     help="with --with-labels: annotators as A1, A2, ...")
    exp.set_defaults(func=cmd_export)

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

    runs_commands.add_commands(sub)

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

    st = sub.add_parser("stats", help="counts of the question bank and the import history",
                        description="The database file and schema version, questions by status, "
                        "categories, source references and every import with its counts.")
    st.set_defaults(func=cmd_stats)

    rep = sub.add_parser("report", help="leaderboard with intervals, paired tests, breakdowns, charts",
                         description="Rank runs on every keyed question each answered (Wilson 95 %, "
                         "rank confidence sets, letters), compare each pair on the questions both answered "
                         "(exact McNemar, Holm over the report's pairs, Tango intervals, exact power), the "
                         "majority-key baseline, "
                         "clustered standard errors; on the questions all share: breakdowns, position "
                         "bias, confusion, agreement, hardest questions, the human baseline.")
    rep.add_argument("--runs", metavar="IDS", help="run ids, e.g. 1,2,5 (default: every finished run)")
    rep.add_argument("--questions", default="all", choices=QUESTION_SETS,
                     help="question set (all = draft, ready and curated; default: all)")
    rep.add_argument("--format", default="table", choices=("table", "md", "csv", "json"),
                     help="table prints; md (with PNG charts), csv and json write files (default: table)")
    rep.add_argument("-o", "--output", default="exports/report", metavar="DIR",
                     help="folder for md/csv/json files (default: exports/report)")
    rep.add_argument("--seed", type=bounded_int(0), default=0, help="bootstrap seed (default: 0)")
    rep.add_argument("--bootstrap", type=bounded_int(1, 1_000_000), default=2000, metavar="N",
                     help="bootstrap resamples (default: 2000)")
    rep.add_argument("--intervals", default="pair", choices=("pair", "simultaneous"),
                     help="pair differences: Tango's 95 %% score interval of each pair's difference "
                     "(pair) or Bonferroni-adjusted intervals holding for all pairs at once "
                     "(simultaneous); JSON and CSV always have both (default: pair)")
    rep.set_defaults(func=cmd_report)

    corpus.add_commands(sub)
    curate.add_commands(sub)
    items.add_commands(sub)
    release.add_commands(sub)
    users.add_commands(sub)
    web.add_commands(sub)

    tui = sub.add_parser("tui", help="open the terminal app")
    add_tui_options(tui)
    tui.set_defaults(func=cmd_tui)
    access.declare_acts(p)
    db_everywhere(p)
    return p


def main(argv: list[str] | None = None) -> int:
    # one choke point: everything the CLI prints goes through the display sanitizer
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = display.SafeStream(out), display.SafeStream(err)
    try:
        try:
            return _main(argv)
        finally:
            out.flush()  # output to a pipe is buffered: a closed pipe shows up here at the latest
    except BrokenPipeError:
        return _pipe_closed(out)
    except Exception:  # a bug: its traceback may quote data, so it goes through the sanitizer too
        import traceback

        traceback.print_exc()
        return 1
    finally:
        sys.stdout, sys.stderr = out, err


def _pipe_closed(out) -> int:
    """The reader of our output has gone (`persian-tui stats | head -1`): end quietly with
    status 0, as ripgrep does (git dies of SIGPIPE, 141): the reader chose to stop, which is no
    error. What is still buffered goes nowhere, so Python's own last flush cannot complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        pass
    return 0


PATH_ARGS = frozenset(["file", "path", "paths", "db", "output", "answers"])  # a file name may be any bytes


def _undecodable(args) -> str | None:
    """The first argument (not a file name) that is not valid UTF-8 text: its bytes came from a
    terminal in another encoding and cannot be stored, searched or printed."""
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        if name not in PATH_ARGS and any(isinstance(v, str) and not is_text(v) for v in values):
            return name
    return None


def _main(argv: list[str] | None) -> int:
    args = parser().parse_args(argv)
    if bad := _undecodable(args):
        flag = bad if bad in ("words", "couplet", "name") else "--" + bad.replace("_", "-")
        print(f"persian-tui: error: {flag}: not valid UTF-8 text (check the terminal's encoding)",
              file=sys.stderr)
        return 2
    db = settings.db_path(args.db)
    existed, folder_existed = is_there(db), is_there(db.parent)
    code = _run(args)
    if code and not existed:  # a failed command leaves no new empty database behind
        discard_if_unused(db, folder=not folder_existed)
    return code


def _run(args) -> int:
    try:
        merge_run(args)
        access.check(args)
        return args.func(args)
    except (InputError, StoreError, UserError, RunError, WriteError, access.AccessDenied) as e:
        for line in str(e).splitlines() or [""]:  # several (one per field of a spec): one line each
            print(f"persian-tui: error: {line}", file=sys.stderr)
        return 1
    except OverflowError as e:  # an id or count beyond SQLite's 64-bit integers
        print(f"persian-tui: error: a number is too large ({e}); ids and counts are at most "
              f"{2**63 - 1}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise  # main ends quietly
    except OSError as e:  # a path given as a file is a folder, unreadable, ...
        where = f"{e.filename}: " if e.filename else ""
        print(f"persian-tui: error: {where}{(e.strerror or str(e)).lower()}", file=sys.stderr)
        return 1
    except DatabaseError as e:  # raised by any query on a damaged file
        why = write_error(e) or f"database error: {e} (the file may be damaged)"
        print(f"persian-tui: error: {settings.db_path(args.db)}: {why}; nothing more was written",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("persian-tui: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""`persian-tui import`, `sample`, `export` and `stats`: the question bank in and out, and its counts."""

from __future__ import annotations

import argparse
import sys

from .. import settings
from .common import link_summary, open_store, print_capped


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
        print("corpus: " + link_summary(plan.corpus, up_to_date=False))
    return 0


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


def cmd_stats(args: argparse.Namespace) -> int:
    from ..access import acting
    from .access import acting_name

    with open_store(args, read=True) as store:
        c = acting(store, acting_name(args)).counts(store.questions.counts())  # no statuses for annotators
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


def add_commands(sub) -> None:
    """The commands `import`, `sample`, `export`, `stats`."""
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

    st = sub.add_parser("stats", help="counts of the question bank and the import history",
                        description="The database file and schema version, questions by status, "
                        "categories, source references and every import with its counts.")
    st.set_defaults(func=cmd_stats)

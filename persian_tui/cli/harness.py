"""`persian-tui import-predictions LOG` for other harnesses' results (releases/harness_logs.py): an
Inspect log (.eval/.json) or lm-evaluation-harness samples (.jsonl) become one imported run."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import display
from .common import open_store


def is_harness_log(path: str) -> bool:
    from ..releases.harness_logs import kind_of

    return kind_of(Path(path)) is not None


def cmd_import_log(args: argparse.Namespace) -> int:
    from ..releases.harness_logs import import_harness_log

    with open_store(args, read=args.dry_run) as store:
        r, facts = import_harness_log(store, args.file, source=args.source, model=args.model,
                                      dry_run=args.dry_run)
        keys = store.questions.keys()
    if r.unmatched:
        ids = ", ".join(sorted(r.unmatched)[:15]) + (" ..." if len(r.unmatched) > 15 else "")
        print(f"unmatched: {sum(r.unmatched.values())} sample(s) of {len(r.unmatched)} id(s) not in the bank: {ids}")
    if r.ambiguous:
        print(f"ambiguous: {sum(r.ambiguous.values())} sample(s) skipped: id(s) {', '.join(sorted(r.ambiguous))} "
              "appear twice in one epoch")
    scored = [p for p in facts["predictions"] if keys.get(p.uid) is not None]
    ours = sum(p.usable == keys[p.uid] for p in scored) / len(scored) if scored else None
    harness = facts.get("inspect_accuracy", facts.get("harness_accuracy"))
    name = "Inspect" if facts["harness"] == "inspect" else "lm-eval"
    run = f"run {facts['run_id']}: " if "run_id" in facts else ""
    head = "dry run: would import" if args.dry_run else "imported"
    print(f"{head} {run}{facts['model']} from {name} log {Path(args.file).name}: {len(facts['predictions'])} "
          f"prediction(s), {r.invalid} without a usable answer; accuracy {display.figure(ours, '{:.1%}')} "
          f"against the bank's keys ({name}'s own: {display.figure(harness, '{:.1%}')})"
          + ("; already imported" if r.runs_unchanged else ""))
    if facts.get("cut"):
        from ..releases.log_shapes import MAX_REPLY_CHARS

        print(f"note: {len(facts['cut'])} reply(ies) longer than {MAX_REPLY_CHARS:,} characters were cut to their "
              f"head and tail within it (the longest: {max(facts['cut']):,}); the answer is read from what is kept")
    if ours is not None and harness is not None and abs(ours - harness) > 1e-9:
        print(f"note: the accuracies differ: {name} scored against its own targets or scorer; the bank's keys "
              "and the project's parser give the first figure")
    return 0

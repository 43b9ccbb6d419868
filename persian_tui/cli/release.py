"""`persian-tui release NAME`: freeze the curated set and write its folder (releases/build.py);
`release --list` lists the frozen releases."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import UserError, open_store, run_ids


def cmd_release(args: argparse.Namespace) -> int:
    from ..access import acting
    from ..releases.make import default_folder, make_release
    from ..store import ReleaseExists
    from .access import acting_name

    if args.list:
        with open_store(args, read=True) as store:
            rows = store.releases.releases()
        if not rows:
            print("no releases yet (persian-tui release NAME)")
        for r in rows:
            print(f"{r.name}  {r.questions} questions  frozen {r.created_at}  digest {r.digest[:16]}")
        return 0
    if not args.name:
        raise UserError("name the release, e.g. persian-tui release v1.0 (or --list)")
    out = Path(args.output) if args.output else default_folder(args.name)
    with open_store(args) as store:
        try:  # the core checks the role again (admins release) and records who froze it
            result = make_release(store, acting(store, acting_name(args)), args.name, out,
                                  run_ids=run_ids(args.runs) or [], license_id=args.license, frozen=args.frozen)
        except ReleaseExists as e:
            raise UserError(str(e)) from None
    r = result.release
    print(f"release {r.name}: {r.questions} questions, digest {r.digest[:16]}, "
          f"{'frozen now' if result.created else 'frozen ' + r.created_at}; wrote {out}/ "
          f"({', '.join(p.relative_to(out).as_posix() for p in result.paths)})")
    if args.push:
        from ..releases.hub import push_release

        url, notes = push_release(out, args.push, f"persian-tui release {r.name} (digest {r.digest[:16]})",
                                  private=args.private)
        for note in notes:
            print(note)
        print(f"pushed the release's files (release.json lists them) to {url}")
    return 0


def add_commands(sub) -> None:
    rl = sub.add_parser("release", help="freeze the curated set as a named release and write its folder",
                        description="Freezes the curated questions (uids, content sha256, keys, records) "
                        "under NAME in the database (a name is frozen once: other content under it is "
                        "refused) and writes NAME/ with data/test.jsonl, a datasheet README.md for the "
                        "Hugging Face hub (column types declared for datasets.load_dataset), release.json, the "
                        "leaderboard of --runs, an Inspect task (inspect_task.py + outlier_parser/) and an "
                        "lm-evaluation-harness task folder (lm_eval/). The same database gives the same bytes.")
    rl.add_argument("name", nargs="?", metavar="NAME", help="e.g. v1.0 (letters, digits, . _ -)")
    rl.add_argument("-o", "--output", metavar="DIR", help="the folder (default: exports/releases/NAME)")
    rl.add_argument("--runs", metavar="IDS", help="runs for the leaderboard and item analysis, e.g. 1,2,5")
    rl.add_argument("--license", default=None,
                    help="licence identifier for the datasheet (default: the one the folder's datasheet names, "
                    "else unknown)")
    rl.add_argument("--frozen", action="store_true",
                    help="write the existing release NAME as it was frozen (the curated set may have changed)")
    rl.add_argument("--list", action="store_true", help="list the releases")
    rl.add_argument("--push", metavar="REPO", help="then upload the release's files (release.json and what it "
                    "lists, nothing else) to this Hugging Face dataset repository (owner/name; needs "
                    "huggingface_hub and a token: HF_TOKEN or `hf auth login`)")
    rl.add_argument("--private", action="store_true",
                    help="with --push: create the repository private (an existing public one is refused)")
    rl.set_defaults(func=cmd_release)

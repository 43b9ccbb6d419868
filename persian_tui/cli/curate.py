"""`persian-tui curate`: the adjudication screen's acceptance, headless. `--agreeing` accepts the
key of every open question whose labels all agree with it and that nothing flags (the screen's
`A`); `--all-ready` every ready question with a key that nothing flags and no label contradicts
(unlabelled ones too; one left out is named, with its reasons); explicit uids (on the command
line or `--from-file`, one a line) accept those questions' keys, refusing a flagged one unless
`--force`. Each acceptance is an adjudication by `--annotator`, one short transaction each, as in the screen."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .common import UserError, open_store

if TYPE_CHECKING:
    from ..annotation.consensus import ItemVotes

EXPLICIT_REASON = "accepted with persian-tui curate"


def _check(item: ItemVotes, force: bool) -> str | None:
    """Why the explicit uid's key cannot be accepted (None: it can)."""
    from ..annotation.consensus import flag_reasons

    if item.status == "retired":
        return "retired (a retired question is not curated again)"
    if item.key is None:
        return "has no key to accept (set one in the adjudication screen or import one)"
    reasons = flag_reasons(item)
    if reasons and not force:
        return "; ".join(reasons) + " (--force accepts it anyway)"
    return None


def _still(store, planned: ItemVotes, bulk: bool = False):
    """The re-check made inside each acceptance's write transaction: the question is as planned
    (not retired or curated since, the same key) and no annotator flag or key problem has been
    added since (--force covers only the flags the plan saw); `bulk` (--agreeing, --all-ready,
    which take only questions no label contradicts): nor a label against the key; why not, or None."""
    from ..annotation.consensus import flag_reasons, item_votes

    def check(q) -> str | None:
        if q.status in ("retired", "curated"):
            return f"{q.status} meanwhile"
        if q.key != planned.key:
            return f"key changed meanwhile from {planned.key} to {q.key}"
        (now,) = item_votes(store, [q], item_flags={q.uid: planned.item_flags})
        new = [r for r in flag_reasons(now) if r not in flag_reasons(planned)]
        if new:
            return "flagged meanwhile: " + "; ".join(new)
        against = sorted({a for who, a in now.votes.items() if a != q.key and planned.votes.get(who) != a})
        if bulk and against:
            return f"label(s) {', '.join(map(str, against))} against key {q.key} added meanwhile"
        return None
    return check


ALL_READY_REASON = "ready with a key, nothing flags it (persian-tui curate --all-ready)"


def _uids_from_file(path: str) -> list[str]:
    """One uid a line; blank lines and lines starting with # are skipped."""
    from pathlib import Path

    from ..files.inputs import InputError, read_input

    try:
        text = read_input(Path(path)).decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    return [s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#")]


def why_none_agree(votes: list[ItemVotes]) -> str:
    """Why --agreeing found nothing: the open questions counted by what keeps each out."""
    from collections import Counter

    open_ = [v for v in votes if v.status not in ("curated", "retired")]
    if not open_:
        return "no open question (every question is curated or retired)"
    why: Counter[str] = Counter()
    for v in open_:
        if v.key is None:
            why["without a key"] += 1
        elif not v.votes:
            why["without labels (annotators' answers)"] += 1
        elif any(a != v.key for a in v.votes.values()):
            why["with a label that differs from the key"] += 1
        else:
            why["flagged"] += 1
    parts = ", ".join(f"{n} {what}" for what, n in why.most_common())
    return (f"none of the {len(open_)} open question(s) has every label agreeing with its key and no flag: {parts}"
            + ("; --all-ready takes ready keyed questions without labels" if why["without labels (annotators' "
                                                                               "answers)"] else ""))


def cmd_curate(args: argparse.Namespace) -> int:
    from ..annotation.consensus import BULK_REASON, bulk_acceptable, flag_reasons, item_votes
    from ..reports.items import queue_flags
    from ..store import Changed

    uids = list(args.uids) + (_uids_from_file(args.from_file) if args.from_file else [])
    if not args.agreeing and not args.all_ready and not uids:
        raise UserError("name the questions to accept (UID ..., --from-file FILE) or give --agreeing or --all-ready")
    if not args.dry_run and not (args.annotator or "").strip():
        raise UserError("--annotator NAME is needed: acceptances are recorded as that person's adjudications")
    with open_store(args, read=args.dry_run) as store:
        votes = item_votes(store, item_flags=queue_flags(store))  # read once, as the screen does
        by_uid = {v.uid: v for v in votes}
        plan: list[tuple[ItemVotes, str]] = []  # (item, reason recorded)
        refused: list[str] = []
        for uid in dict.fromkeys(uids):
            item = by_uid.get(uid)
            if item is None:
                refused.append(f"{uid}: no such question")
            elif item.status == "curated":
                print(f"skipped {uid}: already curated")
            elif (why := _check(item, args.force)) is not None:
                refused.append(f"{uid}: {why}")
            else:
                forced = flag_reasons(item)
                plan.append((item, (args.reason or EXPLICIT_REASON)
                             + (f" (forced over: {'; '.join(forced)})" if forced else "")))
        named = {item.uid for item, _ in plan}
        explicit = set(named)  # accepted over labels; the bulk ones only while no label contradicts
        if args.agreeing:
            agreeing = bulk_acceptable(store, votes=votes)
            if not agreeing:
                print(f"--agreeing: {why_none_agree(votes)}")
            plan += [(v, args.reason or BULK_REASON) for v in agreeing if v.uid not in named]
            named |= {v.uid for v in agreeing}
        if args.all_ready:
            for v in votes:
                if v.status != "ready" or v.key is None or v.uid in named:
                    continue
                reasons = flag_reasons(v)
                against = sorted({a for a in v.votes.values() if a != v.key})
                if against:
                    reasons.append(f"label(s) {', '.join(map(str, against))} differ from key {v.key}")
                if reasons:
                    print(f"left {v.uid}: {'; '.join(reasons)} (name it with --force to accept it)")
                else:
                    plan.append((v, args.reason or ALL_READY_REASON))
        for line in refused:
            print(f"refused {line}")
        if refused:
            raise UserError(f"{len(refused)} question(s) refused; nothing was accepted")
        verb = "would accept" if args.dry_run else "accepted"
        done = 0
        for item, reason in plan:
            if not args.dry_run:
                try:
                    store.curation.adjudicate(item.uid, args.annotator.strip(), "accept", reason=reason,
                                              check=_still(store, item, bulk=item.uid not in explicit))
                except Changed as e:  # changed by someone else since the plan was read
                    print(f"skipped {item.uid}: {e}; not accepted")
                    continue
                except (KeyError, ValueError) as e:
                    print(f"not accepted {item.uid}: {e}")
                    continue
            done += 1
            print(f"{verb} {item.uid}: key {item.key} ({reason})")
    tail = "; nothing written" if args.dry_run else f" by {args.annotator.strip()} (curated)"
    print(f"{'dry run: ' if args.dry_run else ''}{verb} the key of {done} question(s){tail}")
    return 0


def add_commands(sub) -> None:
    cu = sub.add_parser(
        "curate", help="accept questions' keys headlessly (the adjudication screen's bulk accept)",
        usage="%(prog)s (UID ... | --from-file FILE | --agreeing | --all-ready) --annotator NAME [--force] "
              "[--reason TEXT] [--dry-run]",
        description="Accept the key of questions, as the adjudication screen does: each becomes curated "
        "and the decision is logged as an adjudication by --annotator. --agreeing takes every open "
        "question whose labels all agree with its key and that no annotator flag, reviewer's key "
        "problem or item-analysis flag questions (the screen's A); --all-ready every ready question "
        "with a key that nothing flags and no label contradicts (unlabelled ones too; one left out is "
        "named). Named UIDs are accepted unless flagged (--force overrides); if any named question is "
        "refused, nothing is accepted.")
    cu.add_argument("uids", nargs="*", metavar="UID", help="questions whose current key is accepted")
    cu.add_argument("--agreeing", action="store_true",
                    help="every open question whose labels all agree with its key, none flagged")
    cu.add_argument("--all-ready", action="store_true",
                    help="every ready question with a key that nothing flags and no label contradicts "
                    "(unlabelled ones too)")
    cu.add_argument("--from-file", metavar="FILE", help="uids to accept, one a line (# comments and blank "
                    "lines skipped), as if named")
    cu.add_argument("--annotator", metavar="NAME", help="who decides (required unless --dry-run)")
    cu.add_argument("--force", action="store_true", help="accept named questions even when flagged")
    cu.add_argument("--reason", metavar="TEXT",
                    help=f"reason recorded (default: '{EXPLICIT_REASON}'; with --agreeing '"
                         f"all labels agree with the key'; with --all-ready '{ALL_READY_REASON}')")
    cu.add_argument("--dry-run", action="store_true", help="list what would be accepted, write nothing")
    cu.set_defaults(func=cmd_curate)

"""`persian-tui curate`: the adjudication screen's acceptance, headless. `--agreeing` accepts the
key of every open question whose labels all agree with it and that nothing flags (the screen's
`A`); explicit uids accept those questions' keys, refusing a flagged one unless `--force`. Each
acceptance is an adjudication by `--annotator`, one short transaction each, as in the screen."""

from __future__ import annotations

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


def _still(store, planned: ItemVotes):
    """The re-check made inside each acceptance's write transaction: the question is as planned
    (not retired or curated since, the same key) and no annotator flag or key problem has been
    added since (--force covers only the flags the plan saw); why not, or None."""
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
        return None
    return check


def cmd_curate(args) -> int:
    from ..annotation.consensus import BULK_REASON, bulk_acceptable, flag_reasons, item_votes
    from ..reports.items import queue_flags
    from ..store import Changed

    if not args.agreeing and not args.uids:
        raise UserError("name the questions to accept (UID ...) or give --agreeing")
    if not args.dry_run and not (args.annotator or "").strip():
        raise UserError("--annotator NAME is needed: acceptances are recorded as that person's adjudications")
    with open_store(args, read=args.dry_run) as store:
        votes = item_votes(store, item_flags=queue_flags(store))  # read once, as the screen does
        by_uid = {v.uid: v for v in votes}
        plan: list[tuple[ItemVotes, str]] = []  # (item, reason recorded)
        refused: list[str] = []
        for uid in dict.fromkeys(args.uids):
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
        if args.agreeing:
            named = {item.uid for item, _ in plan}
            plan += [(v, args.reason or BULK_REASON) for v in bulk_acceptable(store, votes=votes)
                     if v.uid not in named]
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
                                              check=_still(store, item))
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
        usage="%(prog)s (UID ... | --agreeing) --annotator NAME [--force] [--reason TEXT] [--dry-run]",
        description="Accept the key of questions, as the adjudication screen does: each becomes curated "
        "and the decision is logged as an adjudication by --annotator. --agreeing takes every open "
        "question whose labels all agree with its key and that no annotator flag, reviewer's key "
        "problem or item-analysis flag questions (the screen's A). Named UIDs are accepted unless "
        "flagged (--force overrides); if any named question is refused, nothing is accepted.")
    cu.add_argument("uids", nargs="*", metavar="UID", help="questions whose current key is accepted")
    cu.add_argument("--agreeing", action="store_true",
                    help="every open question whose labels all agree with its key, none flagged")
    cu.add_argument("--annotator", metavar="NAME", help="who decides (required unless --dry-run)")
    cu.add_argument("--force", action="store_true", help="accept named questions even when flagged")
    cu.add_argument("--reason", metavar="TEXT",
                    help=f"reason recorded (default: '{EXPLICIT_REASON}'; with --agreeing '"
                         "all labels agree with the key')")
    cu.add_argument("--dry-run", action="store_true", help="list what would be accepted, write nothing")
    cu.set_defaults(func=cmd_curate)

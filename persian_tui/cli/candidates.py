"""`persian-tui corpus propose` and `persian-tui candidates list | accept | reject`: fresh
questions drawn from the corpus and vetted by admins."""

from __future__ import annotations

import argparse
import json

from ..display import json_safe, percent
from ..display import line as sanitize
from ..models.candidates import couplet_link
from .common import ProgressBar, UserError, bounded_int, open_store


def _access(store, args):
    from ..access import acting
    from .access import acting_name

    return acting(store, acting_name(args))


def cmd_propose(args: argparse.Namespace) -> int:
    from .. import settings
    from ..corpus.propose import ProposeError, check_request, propose
    from ..corpus.prose import ProseError, load_prose

    spec = settings.similar_model(args.embedder)
    try:
        with open_store(args, read=True) as store:  # bad input is refused before anything is opened to write
            check_request(store, args.count, args.poet or ())
            if args.paraphrases is not None:
                load_prose(store, args.paraphrases)
    except (ProposeError, ProseError) as e:
        raise UserError(str(e)) from None
    bar = ProgressBar("propose")
    with open_store(args) as store:
        try:
            result = propose(store, _access(store, args), args.count, embedder_spec=spec or "tfidf",
                             poets=args.poet or (), seed=args.seed, paraphrases=args.paraphrases,
                             on_progress=lambda done, total, tried: bar(done, total, f"{tried} seed(s) tried"))
        except ProposeError as e:
            raise UserError(str(e)) from None
        bar(len(result.ids), result.asked, f"{result.tried} seed(s) tried", final=True)
        rate = len(result.ids) / result.seconds * 60 if result.seconds else 0.0
        short = "" if len(result.ids) == result.asked else \
            f" (asked for {result.asked}: the corpus gave no more within {result.tried} seeds)"
        print(f"proposed {len(result.ids)} candidate(s){short} by {sanitize(result.embedder)} in "
              f"{result.seconds:.1f} s ({rate:.0f} a minute); vet them: `persian-tui candidates list`, "
              f"or the Candidates screen")
        if result.prose is not None:
            print(sanitize(result.prose.summary()))
        if result.embedder == "tfidf":
            print("note: TF-IDF reads shared words, not meaning; an embedding model (--embedder st:NAME or "
                  "openai:MODEL) proposes closer trios")
    return 0


def _summary(counts) -> str:
    rate = "no decision yet" if counts.acceptance is None else \
        f"acceptance {percent(counts.acceptance)} of {counts.decided} decided"
    return f"{counts.proposed} proposed, {counts.accepted} accepted, {counts.rejected} rejected; {rate}"


def cmd_candidates_list(args: argparse.Namespace) -> int:
    from ..corpus.vetting import provenance

    with open_store(args, read=True) as store:
        shown = store.candidates.candidates(None if args.state == "all" else args.state)
        counts = store.candidates.counts()
    if args.format == "json":
        print(json_safe(json.dumps({
            "candidates": [{"id": c.id, "state": c.state, "outlier": c.outlier, "embedder": c.embedder,
                            "couplets": [{**x.__dict__, "link": couplet_link(x)} for x in c.couplets],
                            "reasons": c.reasons, "proposed_by": c.proposed_by, "created_at": c.created_at,
                            "decided_by": c.decided_by, "decided_at": c.decided_at, "reason": c.reason,
                            "question": c.question_uid} for c in shown],
            "summary": {"proposed": counts.proposed, "accepted": counts.accepted, "rejected": counts.rejected,
                        "acceptance": counts.acceptance, "reasons": dict(counts.reasons)}},
            ensure_ascii=False, indent=2)))
        return 0
    for c in shown[:args.limit]:
        decided = f" by {sanitize(c.decided_by or '')}" if c.state != "proposed" else ""
        extra = f": {sanitize(c.reason)}" if c.reason else (f" -> {c.question_uid}" if c.question_uid else "")
        print(f"#{c.id}  {c.state}{decided}{extra}  outlier {c.outlier}  {sanitize(c.embedder)}")
        for x, line in zip(c.couplets, provenance(c)):
            print(f"   {sanitize(line)}")
            print(f"      {sanitize(x.mesra1)} / {sanitize(x.mesra2)}")
    if len(shown) > args.limit:
        print(f"... and {len(shown) - args.limit} more (--limit N)")
    print(_summary(counts))
    for reason, n in counts.reasons:
        print(f"  rejected {n}: {sanitize(reason)}")
    return 0


def cmd_candidates_accept(args: argparse.Namespace) -> int:
    from ..corpus.vetting import VettingError, accept

    with open_store(args) as store:
        try:
            q = accept(store, _access(store, args), args.candidate)
        except VettingError as e:
            raise UserError(str(e)) from None
    n = args.candidate
    print(f"accepted candidate {n}: draft question {q.uid} (origin fresh, key {q.key}); it is labelled blind "
          "like any other draft")
    return 0


def cmd_candidates_reject(args: argparse.Namespace) -> int:
    from ..corpus.vetting import VettingError, reject

    with open_store(args) as store:
        try:
            reject(store, _access(store, args), args.candidate, args.reason)
        except VettingError as e:
            raise UserError(str(e)) from None
    print(f"rejected candidate {args.candidate}: {sanitize(' '.join(args.reason.split()))}")
    return 0


def add_propose(co_sub) -> None:
    pr = co_sub.add_parser(
        "propose", help="candidate questions from poems none of whose couplets is in the bank (admins)",
        description="Draw candidate outlier questions from the corpus: three couplets close in meaning and "
                    "one that shares words or form with them but differs in meaning, checked so that the "
                    "TF-IDF baseline does not pick it. Candidates are vetted (candidates list | accept | "
                    "reject, or the Candidates screen) before they become draft questions.")
    pr.add_argument("--count", type=int, required=True, metavar="N", help="candidates to propose")
    pr.add_argument("--embedder", metavar="SPEC",
                    help="meaning embedder: tfidf (offline, weaker), st:NAME_OR_FOLDER, or openai:MODEL with "
                         "PERSIAN_TUI_SIMILAR_BASE_URL (default: the similar-couplets model setting, else tfidf)")
    pr.add_argument("--poet", action="append", metavar="NAME", help="draw only from this poet (repeatable)")
    pr.add_argument("--seed", type=bounded_int(0), default=0, help="random seed (default: 0)")
    pr.add_argument("--paraphrases", type=bounded_int(1), metavar="RUN",
                    help="embed the prose of this corpus paraphrase run (run paraphrase --corpus) rather than "
                         "the verse; only couplets with prose are drawn")
    pr.set_defaults(func=cmd_propose)


def add_commands(sub) -> None:
    ca = sub.add_parser("candidates", help="vet the candidates corpus propose made: list, accept, reject")
    ca_sub = ca.add_subparsers(dest="candidates_command", required=True, metavar="COMMAND")
    ls = ca_sub.add_parser("list", help="candidates with their couplets' provenance, and the acceptance rate")
    ls.add_argument("--state", choices=("proposed", "accepted", "rejected", "all"), default="proposed",
                    help="which candidates (default: proposed)")
    ls.add_argument("--limit", type=bounded_int(1), default=20, help="candidates shown (default: 20)")
    ls.add_argument("--format", choices=("table", "json"), default="table", help="table or json (default: table)")
    ls.set_defaults(func=cmd_candidates_list)
    ac = ca_sub.add_parser("accept", help="make a candidate a draft question (origin fresh)")
    ac.add_argument("candidate", metavar="ID", type=bounded_int(1),
                    help="the candidate's id (candidates list shows them)")
    ac.set_defaults(func=cmd_candidates_accept)
    rj = ca_sub.add_parser("reject", help="reject a candidate with a reason")
    rj.add_argument("candidate", metavar="ID", type=bounded_int(1),
                    help="the candidate's id (candidates list shows them)")
    rj.add_argument("--reason", required=True, help="why (counted in candidates list)")
    rj.set_defaults(func=cmd_candidates_reject)

"""`persian-tui corpus ...`: the Ganjoor corpus (import, stats, search, link)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from ..display import json_safe, percent
from ..display import line as sanitize
from ..models import QUESTION_SETS
from . import candidates
from .common import ProgressBar as _Bar
from .common import UserError, link_summary, open_store


def cmd_corpus_import(args: argparse.Namespace) -> int:
    from ..corpus.ganjoor import import_corpus

    bar = _Bar("import")
    with open_store(args) as store:
        p = import_corpus(store, args.path, strict=args.strict, workers=args.workers,
                          on_progress=lambda p: bar(p.done, p.total, f"{p.rate:.0f} poems/s, ETA {_eta(p)}"))
        bar(p.done, p.total, f"{p.rate:.0f} poems/s", final=True)
        for e in p.errors[:args.max_errors]:
            print(f"skipped: {sanitize(e)}")
        if len(p.errors) > args.max_errors:
            print(f"... and {len(p.errors) - args.max_errors} more skipped file(s)")
        for note in p.notes[:args.max_errors]:
            print(f"repaired: {sanitize(note)}" if "renumbered" in note else f"skipped: {sanitize(note)}")
        if len(p.notes) > args.max_errors:
            print(f"... and {len(p.notes) - args.max_errors} more misnumbered couplet(s)")
        print(f"imported {args.path}: {p.summary()}; {p.rate:.0f} poems/s, "
              f"longest write transaction {p.longest_lock * 1000:.0f} ms (of {p.transactions:,})")
        if not args.no_link and store.questions.questions():
            counts = store.links.link_questions()
            print("linked the bank: " + link_summary(counts))
    return 0


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    cores = os.cpu_count() or 1
    if not 0 <= n <= 4 * cores:  # more readers than cores only slow the writer
        raise argparse.ArgumentTypeError(f"{text!r}: a number of processes from 0 to {4 * cores} "
                                         f"(4 per core, {cores} here)")
    return n


def _eta(p) -> str:
    """Time left at the rate so far (m:ss), or "…" before the first batch."""
    if not p.done or p.rate <= 0:
        return "…"
    left = round((p.total - p.done) / p.rate)
    return f"{left // 60}:{left % 60:02d}"


def cmd_corpus_stats(args: argparse.Namespace) -> int:
    with open_store(args, read=True) as store:
        s = store.corpus.corpus_stats()
        if args.format == "json":
            print(json_safe(json.dumps(s, ensure_ascii=False, indent=2)))
            return 0
        if not s["poems"]:
            print("no corpus loaded (persian-tui corpus import PATH)")
            return 0
        print(f"{s['poets']} poets, {s['poems']} poems, {s['couplets']} couplets, "
              f"{s['hemistichs']} hemistichs; {s['with_metre']} poems with a metre; "
              f"last import {s['last_import']}")
        for p in s["by_poet"][:args.top]:
            print(f"  {sanitize(p['poet'])} ({p['slug']}): {p['poems']} poems, {p['couplets']} couplets")
        if len(s["by_poet"]) > args.top:
            print(f"  ... and {len(s['by_poet']) - args.top} more poets")
        print("forms: " + ", ".join(f"{k} {v}" for k, v in s["by_form"].items()))
        if s["links"]:
            print("option links: " + ", ".join(f"{k} {v}" for k, v in sorted(s["links"].items())))
    return 0


def cmd_corpus_search(args: argparse.Namespace) -> int:
    from ..text import corpus_key

    words = " ".join(args.words)
    if words.strip() and not corpus_key(words).split():
        raise UserError(f"nothing to search for in {words!r}: no letters or digits")
    if not words.strip() and not (args.poet or args.form or args.metre):
        raise UserError("give words to search for (or --poet, --form or --metre to list couplets)")
    with open_store(args, read=True) as store:
        found = store.corpus.search_couplets(words, poet=args.poet, form=args.form,
                                             metre=args.metre, limit=args.limit)
        if args.format == "json":
            print(json_safe(json.dumps([c.__dict__ for c in found], ensure_ascii=False, indent=2)))
            return 0
        for c in found:
            print(f"{c.poem}#{c.couplet + 1}  {sanitize(c.poet)}  "
                  f"{sanitize(c.mesra1)} / {sanitize(c.mesra2)}")
        print(f"{len(found)} couplet(s)" + (" (limit reached)" if len(found) == args.limit else ""))
    return 0


def cmd_corpus_similar(args: argparse.Namespace) -> int:
    from .. import settings
    from ..corpus.similar import similar_couplets, similar_embedder
    from ..runs.embedders import EmbedderError
    from ..text import CoupletError, split_couplet

    try:
        m1, m2 = split_couplet(args.couplet)
    except CoupletError:
        m1, m2 = args.couplet, ""
    spec = settings.similar_model(args.model)
    try:
        embedder = similar_embedder(spec)
    except EmbedderError as e:
        raise UserError(str(e)) from None
    with open_store(args, read=True) as store:
        found = similar_couplets(store, m1, m2, limit=args.limit, embedder=embedder,
                                 poet=args.poet, form=args.form)
        for score, c in found:
            print(f"{score:.3f}  {c.poem}#{c.couplet + 1}  {sanitize(c.poet)}  "
                  f"{sanitize(c.mesra1)} / {sanitize(c.mesra2)}")
        print(f"{len(found)} similar couplet(s) by {spec or 'tfidf'} cosine")
    return 0


def cmd_corpus_link(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        if not store.corpus.has_corpus():
            raise UserError("no corpus loaded: run `persian-tui corpus import PATH` first")
        bar = _Bar("link")
        counts = store.links.link_questions(force=args.force, threshold=args.threshold, on_progress=bar)
        total = sum(v for k, v in counts.items() if k != "up to date")
        bar(total, total, final=True)
        print(link_summary(counts))
        links = store.links.links()
        questions = {q.uid: q for q in store.questions.questions()}
        for status in ("ambiguous", "unlinked"):
            shown = 0
            for uid, per in links.items():
                for pos, link in sorted(per.items()):
                    if link.status != status or shown >= args.examples or uid not in questions:
                        continue
                    o = next(o for o in questions[uid].options if o.position == pos)
                    where = ""
                    if link.couplet:
                        also = "".join(f", {p}#{i + 1}" for p, i, _ in link.others[:4])
                        what = "candidates" if status == "ambiguous" else "only in a work quoting others"
                        where = f" ({what}: {link.couplet.poem}#{link.couplet.couplet + 1}{also})"
                    print(f"{status}: {uid}/{pos}: {sanitize(o.mesra1)} / {sanitize(o.mesra2)}{where}")
                    shown += 1
        methods: dict[str, int] = {}
        for per in links.values():
            for link in per.values():
                if link.status == "linked":
                    method = link.method or "(none)"  # (a linked option always has one)
                    methods[method] = methods.get(method, 0) + 1
        if methods:
            print("methods: " + ", ".join(f"{k} {v}" for k, v in sorted(methods.items())))
    return 0


def cmd_corpus_reorder(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        counts = store.links.undo_reorder(args.uid)
        extra = [f"{counts[k]} {what}" for k, what in (("released", "in a release kept as they are"),
                                                        ("edited", "edited since, kept")) if counts.get(k)]
        print(f"{counts.get('restored', 0)} option(s) back in the file's hemistich order"
              + (f" ({', '.join(extra)})" if extra else ""))
    return 0


def shortcut_report(store, which: str):
    from ..models.recall import PRODUCTION
    from ..reports.memory import memory_rates
    from ..reports.shortcuts import analyse, lexical_picks
    from ..runs import couplet_text, select_questions

    questions = select_questions(store, which)
    texts = {q.uid: [couplet_text(o.mesra1, o.mesra2) for o in sorted(q.options, key=lambda o: o.position)]
             for q in questions if len(q.options) == 4}
    memory = memory_rates(store.probes.recall_rows(uids=[q.uid for q in questions], formats=PRODUCTION))
    return questions, analyse(questions, store.links.links([q.uid for q in questions]),
                              lexical_picks(questions, texts), memory or None)


def store_baseline_runs(store, questions, rep, which: str) -> list[str]:
    """Each cue that fired as a run of kind baseline (abstentions stored as empty answers).
    A cue whose answers equal a stored run's is not stored twice (checked under the write
    lock: two processes store one run). Returns one line per cue."""
    import hashlib

    from ..models import Prediction

    lines = []
    for r in rep.rows:
        model = f"cue:{r.cue}"
        if not r.fired:
            lines.append(f"not stored: {model} never fired on these questions")
            continue
        preds = [Prediction(q.uid, rep.picks[q.uid].get(r.cue),
                            "ok" if r.cue in rep.picks.get(q.uid, {}) else "empty")
                 for q in questions if q.uid in rep.picks]
        answers = sorted((p.uid, p.predicted or 0) for p in preds)
        digest = hashlib.sha256(json.dumps([which, answers]).encode()).hexdigest()
        params = {"cue": r.cue, "questions": which, "sha256": digest}
        run = store.runs.create_run("baseline", model, params, total=len(preds), status="done", predictions=preds,
                                    note="shortcut baseline: abstentions are stored as empty answers",
                                    once_per_file=True)
        if run is None:
            same = next((x.id for x in store.runs.runs(archived=True) if x.kind == "baseline" and x.model == model
                         and x.params.get("sha256") == digest), "?")
            lines.append(f"up to date: run {same} (baseline {model}) has the same answers")
        else:
            lines.append(f"stored run {run.id} (baseline {model}, {len(preds)} predictions)")
    return lines


def cmd_shortcuts(args: argparse.Namespace) -> int:
    from ..files.outputs import write_atomic

    with open_store(args, read=not args.store_runs) as store:  # only --store-runs writes
        questions, rep = shortcut_report(store, args.questions)
        rows = [{"cue": r.cue, "eligible": r.eligible, "fired": r.fired, "hits": r.hits,
                 "precision": r.precision, "ci95": [r.low, r.high] if r.fired else None,
                 "recall": r.recall, "p_value_vs_chance": r.p_value} for r in rep.rows]
        uniform = "—" if rep.uniform_p is None else f"{rep.uniform_p:.3g}"
        keys_line = (f"key positions 1–4: {', '.join(str(rep.keys.get(k, 0)) for k in range(1, 5))}; "
                     f"uniform? {'exact multinomial' if sum(rep.keys.values()) < 20 else 'chi-square'} p = {uniform}")
        if args.store_runs:
            for line in store_baseline_runs(store, questions, rep, args.questions):
                print(line)
        if args.format == "json":
            out = {"questions": rep.questions, "linked": rep.linked, "chance": 0.25, "cues": rows,
                   "keys": {str(k): v for k, v in rep.keys.items()}, "keys_uniform_p": rep.uniform_p,
                   "flagged": rep.flagged}
            text = json.dumps(out, ensure_ascii=False, indent=2)
            if args.output:
                write_atomic(Path(args.output), (text + "\n").encode())
                print(f"wrote {args.output}")
            else:
                print(json_safe(text))
            return 0
        lines = [(f"{rep.questions} questions with a key, {rep.linked} with all four options linked "
                  "to the corpus as whole couplets; chance is 25 %"),
                 keys_line,
                 "",
                 ("| cue | eligible | fired | key found | right when fired (95 % CI) | p vs 25 % (two-sided) | "
                  "finds the key alone |"),
                 "| --- | ---: | ---: | ---: | --- | ---: | ---: |"]
        for r in rep.rows:
            ci = f"{percent(r.precision)} ({percent(r.low)}–{percent(r.high)})" if r.fired else "—"
            p = "—" if r.p_value is None else f"{r.p_value:.3g}"
            lines.append(f"| {r.cue} | {r.eligible} | {r.fired} | {r.hits} | {ci} | {p} | {percent(r.recall)} |")
        lines.append("")
        lines.append(f"{len(rep.flagged)} question(s) flagged: a surface cue finds the key")
        for uid, cues in sorted(rep.flagged.items())[:args.examples]:
            lines.append(f"  {uid}: {', '.join(cues)}")
        if len(rep.flagged) > args.examples:
            lines.append(f"  ... and {len(rep.flagged) - args.examples} more (--format json lists all)")
        text = "\n".join(lines)
        if args.format == "md" and args.output:
            write_atomic(Path(args.output), (text + "\n").encode())
            print(f"wrote {args.output}")
        else:
            print(text)
    return 0


def add_commands(sub) -> None:
    co = sub.add_parser("corpus", help="the Ganjoor corpus: import, stats, search, link options to it")
    co_sub = co.add_subparsers(dest="corpus_command", required=True, metavar="COMMAND")

    imp = co_sub.add_parser("import", help="import a clone of the Ganjoor export (or one poet's folder)",
                            description="Reads poets/*/poet.json and the poem files under PATH "
                            "(git clone https://github.com/ganjoor/ganjoor-data). Re-import updates "
                            "changed poems and skips unchanged ones.")
    imp.add_argument("path", help="the ganjoor-data clone (or one poet's folder)")
    imp.add_argument("--strict", action="store_true",
                     help="check every file first; write nothing if one is malformed")
    imp.add_argument("--no-link", action="store_true", help="do not link the bank's options afterwards")
    imp.add_argument("--max-errors", type=int, default=20, help="skipped files listed (default: 20)")
    imp.add_argument("--workers", type=_workers, default=None, metavar="N",
                     help="processes reading the files while the import writes (0: none, the importing "
                     "process reads them; default: the cores but one, 1 to 4, for 1,000 files or more)")
    imp.set_defaults(func=cmd_corpus_import)

    st = co_sub.add_parser("stats", help="what corpus is loaded")
    st.add_argument("--format", choices=("table", "json"), default="table", help="table or json (default: table)")
    st.add_argument("--top", type=int, default=20, help="poets listed (default: 20)")
    st.set_defaults(func=cmd_corpus_stats)

    se = co_sub.add_parser("search", help="couplets containing every word (normalized, ZWNJ-insensitive)")
    se.add_argument("words", nargs="*", help="words that must all occur")
    se.add_argument("--poet", help="nickname or slug, e.g. حافظ or hafez")
    se.add_argument("--form", help="e.g. Ghazal, Robaee, Masnavi")
    se.add_argument("--metre", help="part of the metre, e.g. هزج")
    se.add_argument("--limit", type=int, default=20, help="couplets shown (default: 20)")
    se.add_argument("--format", choices=("table", "json"), default="table", help="table or json (default: table)")
    se.set_defaults(func=cmd_corpus_search)

    sm = co_sub.add_parser("similar", help="couplets similar to one (TF-IDF, or an embedding model)",
                           description="Candidates share a rarer word with the couplet (FTS5); they are "
                           "ranked by cosine: TF-IDF by default, or --model / PERSIAN_TUI_SIMILAR_MODEL "
                           "(st:FOLDER or a sentence-transformers name already in the local cache).")
    sm.add_argument("couplet", help='"hemistich 1 / hemistich 2" (or " - ", " ** ")')
    sm.add_argument("--model", help="st:FOLDER_OR_NAME, openai:MODEL (default: tfidf)")
    sm.add_argument("--poet", help="only this poet (nickname or slug)")
    sm.add_argument("--form", help="only this form, e.g. Ghazal")
    sm.add_argument("--limit", type=int, default=10, help="couplets shown (default: 10)")
    sm.set_defaults(func=cmd_corpus_similar)

    ln = co_sub.add_parser("link", help="link every option of the bank to its corpus couplet",
                           description="Exact match of the normalized hemistichs (either order), then "
                           "fuzzy (rapidfuzz) over FTS candidates, then single matching hemistichs. "
                           "The source is the earliest poet's poem, never a work quoting others. Links "
                           "are provenance; the one edit: an option found in reversed order is put in "
                           "the poet's order (a revision; `corpus reorder --undo` reverts), except in "
                           "released questions.")
    ln.add_argument("--force", action="store_true", help="relink options that are already linked")
    ln.add_argument("--threshold", type=float, help="fuzzy score threshold 0..100 (default: 85)")
    ln.add_argument("--examples", type=int, default=5, help="examples shown per outcome (default: 5)")
    ln.set_defaults(func=cmd_corpus_link)

    ro = co_sub.add_parser("reorder", help="undo the hemistich re-ordering done by linking",
                           description="--undo puts back the file's order of every option the corpus "
                           "re-ordered (or only those of --uid), one revision per question; those "
                           "options are not re-ordered again.")
    ro.add_argument("--undo", action="store_true", required=True,
                    help="put the file's hemistich order back (required: the one action)")
    ro.add_argument("--uid", action="append", help="only this question (repeatable)")
    ro.set_defaults(func=cmd_corpus_reorder)

    candidates.add_propose(co_sub)

    sc = sub.add_parser("shortcuts", help="can surface cues (poet, metre, rhyme, form, length, "
                        "key position, lexical baseline, memory) find the key without reading?",
                        description="Per question: is the key the only option with a different poet, "
                        "metre, rhyme letters or form (from corpus links), a very different length, or "
                        "the TF-IDF centroid's pick, the most common key position, or (with recall runs) the "
                        "only couplet most probed models remember? Over the bank: "
                        "how often each cue finds the key against chance (25 %), Wilson 95 % interval, "
                        "two-sided exact binomial test; the key positions against uniform (chi-square; the "
                        "exact multinomial test under 20 keys).")
    sc.add_argument("--questions", default="all", choices=QUESTION_SETS,
                    help="question set: ready (includes curated), curated or all (default: all)")
    sc.add_argument("--format", default="table", choices=("table", "md", "json"),
                    help="table prints; md or json print or write -o FILE (default: table)")
    sc.add_argument("-o", "--output", metavar="FILE", help="write md/json to FILE instead of printing")
    sc.add_argument("--examples", type=int, default=10, help="flagged questions listed (default: 10)")
    sc.add_argument("--store-runs", action="store_true",
                    help="store each cue as a run of kind baseline (for the leaderboard)")
    sc.set_defaults(func=cmd_shortcuts)

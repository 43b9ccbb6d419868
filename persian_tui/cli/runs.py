"""Run commands: `run llm|paraphrase|recall|embed`, `judge`, and `runs` (list, archive, delete, history).

Every run is built from its validated spec (persian_tui.runs.spec); a resume may only change how the
endpoint is reached (RESUME_OVERRIDES). SIGTERM and SIGHUP stop a run like Ctrl-C: `cancelled`,
resumable, exit status 1."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

from .. import display, redact
from ..store import LeaseHeld
from .common import UserError, bounded_int, open_store


def spec_of(kind: str, **values):
    """The validated spec of a run kind; field errors as a UserError of one line per field
    (flags named)."""
    from pydantic import ValidationError

    from ..runs.spec import SPECS, describe

    try:
        return SPECS[kind](**{k: v for k, v in values.items() if v is not None})
    except ValidationError as e:
        raise UserError(describe(e, sep="\n")) from None


T = TypeVar("T")


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """asyncio.run with SIGTERM and SIGHUP cancelling the run as Ctrl-C does."""
    import asyncio

    async def main() -> T:
        task = asyncio.current_task()
        assert task is not None  # (main runs as a task)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                loop.add_signal_handler(sig, task.cancel)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        return await coro
    return asyncio.run(main())


class ProgressPrinter:
    """One status line on stderr, redrawn at most every 0.2 s (a new line when not a TTY)."""

    def __init__(self, measure: str = "accuracy"):
        self.last = 0.0
        self.tty = sys.stderr.isatty()
        self.measure = measure  # what the run's "correct" count is: accuracy, or recalled probes

    def __call__(self, p) -> None:
        now = time.monotonic()
        if p.status == "running" and now - self.last < (0.2 if self.tty else 5):
            return
        self.last = now
        acc = f"{p.accuracy:.1%}" if p.accuracy is not None else display.MISSING
        eta = f", ETA {p.eta:.0f}s" if p.eta and p.status == "running" else ""
        line = display.line(f"run {p.run_id}: {p.done}/{p.total} done, {self.measure} {acc}, "
                            f"invalid {p.invalid}, errors {p.errors}, {p.rate:.1f}/s{eta} {p.message}")
        out = getattr(sys.stderr, "raw", sys.stderr)  # our own controls pass, the message is clean
        out.write(("\r" + line + "\033[K") if self.tty else line + "\n")
        out.flush()


def finish(p, what: str = "predictions", measure: str = "accuracy") -> int:
    """The closing line: status, counts, errors prominently; exit 0 only for `done`."""
    if sys.stderr.isatty():
        print(file=sys.stderr)
    acc = f"{p.accuracy:.1%} ({p.correct}/{p.scored})" if p.accuracy is not None else display.MISSING
    print(f"run {p.run_id} {p.status}: {p.done}/{p.total} {what}, {measure} {acc}, "
          f"invalid {p.invalid}, api errors {p.errors}")
    if p.status == "failed":
        again = " --retry-errors" if p.errors else ""  # else the failed items stay failed
        print(f"run {p.run_id} failed: {p.reason or 'see persian-tui runs'} "
              f"(resume with --resume {p.run_id}{again} once it is fixed)", file=sys.stderr)
    elif p.status == "cancelled":
        print(f"run {p.run_id} stopped; --resume {p.run_id} goes on", file=sys.stderr)
    elif p.errors:
        print(f"warning: {p.errors} of {p.done} requests failed; --resume {p.run_id} --retry-errors "
              "asks them again", file=sys.stderr)
    return 0 if p.status == "done" else 1


def _resume(store, args, kind: str) -> tuple[int, dict]:
    """The run to resume and the overrides the command line gives (checked, logged)."""
    from ..runs import RunError, resume_overrides

    run = store.runs.get_run(args.resume)
    if run is None or run.kind != kind:
        raise UserError(f"no {kind} run {args.resume} to resume")
    given = {k: getattr(args, k, None) for k in ("base_url", "api_key_env", "concurrency", "timeout",
                                                  "max_retries", "max_failures", "limit", "model",
                                                  "judge_model", "strategy", "temperature", "max_tokens",
                                                  "seed", "shuffle_seed", "exemplars", "questions",
                                                  "samples", "release", "cue", "format",
                                                  "paraphrase_run", "probe_seed")}
    given["model"] = given.pop("judge_model") or given["model"]
    explicit = {k: v for k, v in given.items() if v is not None and v != _default(args, k)}
    try:  # the values themselves are validated with the run's spec when it starts
        changes = resume_overrides(store, run, explicit)
    except RunError as e:
        raise UserError(str(e)) from None
    return run.id, changes


def _default(args, name: str):
    return getattr(args, "_defaults", {}).get(name)


def _anchors(store, args) -> list[str] | None:
    """--anchors N: the N anchor questions of the set from the common-scale model of the finished
    runs (reports/anchors.py), fixed with the run."""
    n = getattr(args, "anchors", None)
    if n is None:
        return None
    from ..reports.anchors import choose_anchors
    from ..reports.selection import ReportError

    if args.release:
        raise UserError("--anchors and --release choose the questions two ways: give one")
    try:
        return [a.uid for a in choose_anchors(store, n, args.questions).anchors]
    except ReportError as e:
        raise UserError(f"--anchors: {e}") from None


def _corpus_options(args: argparse.Namespace) -> dict:
    """`run paraphrase --corpus`: corpus couplets rather than the bank's questions."""
    if not getattr(args, "corpus", False):
        if getattr(args, "poet", None) or getattr(args, "corpus_seed", None) is not None:
            raise UserError("--poet and --corpus-seed choose corpus couplets: give --corpus too")
        return {}
    if args.release or getattr(args, "anchors", None) is not None:
        raise UserError("--corpus paraphrases corpus couplets, not questions: --release cannot be given with it")
    return {"corpus": True, "poets": args.poet or None, "corpus_seed": args.corpus_seed}


def cmd_run_llm(args: argparse.Namespace, kind: str = "llm") -> int:
    from ..runs import RunError, create_llm_run, execute_llm_run

    with open_store(args) as store:
        if args.resume is not None:
            run_id, overrides = _resume(store, args, kind)
        else:
            if not args.base_url or not args.model:
                raise UserError("--base-url and --model are needed (or --resume RUN)")
            spec = spec_of(kind, base_url=args.base_url, model=args.model,
                           strategy=getattr(args, "strategy", None), api_key_env=args.api_key_env,
                           temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed,
                           shuffle_seed=getattr(args, "shuffle_seed", None),
                           exemplars=getattr(args, "exemplars", None), concurrency=args.concurrency,
                           timeout=args.timeout, max_retries=args.max_retries,
                           max_failures=args.max_failures, cache=not args.no_cache,
                           questions=args.questions, limit=args.limit,
                           samples=getattr(args, "samples", None), release=args.release,
                           anchors=_anchors(store, args), **_corpus_options(args))
            try:
                new_run = create_llm_run(store, spec, kind=kind)
            except RunError as e:
                raise UserError(str(e)) from None
            if spec.samples > 1 and not spec.temperature and spec.seed is None:
                print(f"warning: {spec.samples} samples at temperature 0 without --seed may all be alike "
                      "(give --temperature, or --seed: sample k uses seed+k)", file=sys.stderr)
            run_id, overrides = new_run.id, {"base_url": spec.base_url}  # the real URL, not stored
            leaks = new_run.params.get("few_shot_leaks")
            if leaks:
                print(f"warning: {len(leaks)} question(s) share couplets with the few-shot examples "
                      f"(their answers are in the prompt): {', '.join(leaks[:10])}", file=sys.stderr)
            what = (f"prose of {new_run.total} corpus couplets" if new_run.params.get("corpus")
                    else f"strategy {spec.strategy}")
            print(f"run {run_id}: {spec.model} at {redact.url(spec.base_url)}, {what}"
                  + (f", {spec.samples} samples per question" if spec.samples > 1 else "")
                  + (f", release {spec.release}" if spec.release else ""), file=sys.stderr)
        db = store.path
    progress = run_async(execute_llm_run(db, run_id, retry_errors=args.retry_errors,
                                         on_progress=ProgressPrinter(), overrides=overrides))
    return finish(progress)


def cmd_run_paraphrase(args: argparse.Namespace) -> int:
    return cmd_run_llm(args, kind="paraphrase")


def cmd_run_recall(args: argparse.Namespace) -> int:
    from ..runs import RunError, create_recall_run, execute_recall_run

    with open_store(args) as store:
        if args.resume is not None:
            run_id, overrides = _resume(store, args, "recall")
        else:
            if not args.base_url or not args.model:
                raise UserError("--base-url and --model are needed (or --resume RUN)")
            spec = spec_of("recall", base_url=args.base_url, model=args.model, cue=args.cue, format=args.format,
                           paraphrase_run=args.paraphrase_run, probe_seed=args.probe_seed,
                           api_key_env=args.api_key_env, temperature=args.temperature, max_tokens=args.max_tokens,
                           seed=args.seed, concurrency=args.concurrency, timeout=args.timeout,
                           max_retries=args.max_retries, max_failures=args.max_failures, cache=not args.no_cache,
                           questions=args.questions, limit=args.limit, release=args.release)
            try:
                run, skipped = create_recall_run(store, spec)
            except RunError as e:
                raise UserError(str(e)) from None
            for line in skipped:
                print(f"warning: {display.line(line)}", file=sys.stderr)
            run_id, overrides = run.id, {"base_url": spec.base_url}  # the real URL, not stored
            print(f"run {run_id}: recall probes of {spec.model} at {redact.url(spec.base_url)}, cue {spec.cue}, "
                  f"format {spec.format}, {run.total} couplets"
                  + (f", release {spec.release}" if spec.release else ""), file=sys.stderr)
        db = store.path
    progress = run_async(execute_recall_run(db, run_id, retry_errors=args.retry_errors,
                                            on_progress=ProgressPrinter("recalled"), overrides=overrides))
    return finish(progress, "probes", "recalled")


def cmd_run_embed(args: argparse.Namespace) -> int:
    from ..runs import create_embedding_run, execute_embedding_run

    if args.resume is not None:  # the stored spec; only the endpoint's URL may be given again
        with open_store(args) as store:
            run = store.runs.get_run(args.resume)
            if run is None or run.kind != "embedding":
                raise UserError(f"no embedding run {args.resume} to resume")
            db = store.path
        progress = execute_embedding_run(db, run.id, on_progress=ProgressPrinter(), base_url=args.base_url)
        return finish(progress)
    spec = spec_of("embedding", model=args.model, scorer=args.scorer, prefix=args.prefix,
                   base_url=args.base_url, api_key_env=args.api_key_env, batch_size=args.batch_size,
                   questions=args.questions, limit=args.limit, paraphrase_run=args.paraphrases,
                   release=args.release)
    with open_store(args) as store:
        run = create_embedding_run(store, spec)
        db = store.path
    progress = execute_embedding_run(db, run.id, on_progress=ProgressPrinter(), base_url=spec.base_url)
    return finish(progress)


def cmd_judge(args: argparse.Namespace) -> int:
    from ..judging.run import create_judge_run, execute_judge_run

    with open_store(args) as store:
        if args.resume is not None:
            run_id, overrides = _resume(store, args, "judge")
        else:
            if args.run is None or not args.base_url or not args.judge_model:
                raise UserError("RUN, --judge-model and --base-url are needed (or --resume RUN)")
            spec = spec_of("judge", base_url=args.base_url, model=args.judge_model,
                           api_key_env=args.api_key_env, temperature=args.temperature,
                           max_tokens=args.max_tokens, seed=args.seed, concurrency=args.concurrency,
                           timeout=args.timeout, max_retries=args.max_retries,
                           max_failures=args.max_failures, cache=not args.no_cache,
                           target_run=args.run, only_wrong=args.only_wrong, sample=args.sample,
                           limit=args.limit)
            run_id = create_judge_run(store, spec, spec.target_run, only_wrong=spec.only_wrong).id
            overrides = {"base_url": spec.base_url}
            print(f"judge run {run_id}: {spec.model} judging run {args.run}", file=sys.stderr)
        db = store.path
    progress = run_async(execute_judge_run(db, run_id, retry_errors=args.retry_errors,
                                           on_progress=ProgressPrinter(), overrides=overrides))
    return finish(progress, "judged")



def cmd_runs(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None) or "list"
    if action == "list":
        return _list_runs(args)
    with open_store(args, read=action == "history") as store:
        run = store.runs.get_run(args.id)
        if run is None:
            raise UserError(f"no run {args.id}")
        if action in ("archive", "unarchive"):
            store.runs.archive_run(run.id, action == "archive")
            print(f"run {run.id} {action}d" + (" (hidden from runs and reports; --all shows it)"
                                               if action == "archive" else ""))
        elif action == "delete":
            if not args.yes:
                if not sys.stdin.isatty():
                    raise UserError(f"deleting run {run.id} needs --yes (no terminal to ask)")
                answer = input(f"delete run {run.id} ({run.kind} {display.line(run.model)}) with its "
                               "predictions and judgments? [y/N] ")
                if answer.strip().lower() not in ("y", "yes"):
                    print("nothing deleted")
                    return 1
            try:
                ids = store.runs.delete_run(run.id)
            except LeaseHeld as e:
                raise UserError(str(e)) from None
            print(f"deleted run {', '.join(map(str, ids))} (logged in the run history)")
        elif action == "history":
            for h in store.runs.run_history(run.id):
                print(f"{h['at']}  {h['event']:<18} {h['who'] or ''}  {h['detail']}")
    return 0


def _list_runs(args) -> int:
    with open_store(args, read=True) as store:
        rows = store.runs.run_summaries(archived=args.all)
        sweeps = store.sweeps.sweep_of_runs()
    if not rows:
        print("no runs yet" if args.all else "no runs (archived ones: runs --all)")
    for s in rows:
        acc = display.figure(s.accuracy, "{:.1%}")
        status = s.run.shown_status + (" (archived)" if s.run.archived else "")
        k = int(s.run.params.get("samples") or 1)
        measure = "rec" if s.run.kind == "recall" else "acc"  # a recall run: its recalled probes
        print(f"{s.run.id:>4}  {s.run.kind:<10} {status:<11} {s.done:>5}/{s.run.total:<5} "
              f"{measure} {acc:>6}  invalid {display.figure(s.invalid):<4} "
              f"errors {display.figure(s.errors):<4} {s.run.model}"
              + (f"  ×{k} samples (acc: mean of samples)" if k > 1 else "")
              + (f"  release {s.run.params['release']}" if s.run.params.get("release") else "")
              + (f"  sweep {sweeps[s.run.id]}" if s.run.id in sweeps else "")
              + (f"  ({s.run.reason})" if s.run.reason and s.run.status == "failed" else ""))
    return 0


ENDPOINT_USAGE = ("persian-tui run {kind} --base-url URL --model NAME [options]\n"
                  "       persian-tui run {kind} --resume RUN [options]")


def add_llm_options(p: argparse.ArgumentParser, *, answers: bool, judge: bool = False) -> None:
    p.add_argument("--base-url", metavar="URL",
                   help="OpenAI-compatible endpoint, e.g. https://openrouter.ai/api/v1 or http://localhost:8000/v1")
    if not judge:
        p.add_argument("--model", metavar="NAME", help="the model name the endpoint knows, e.g. openai/gpt-5-mini")
    if answers:
        p.add_argument("--strategy", default="zero-shot",
                       help="zero-shot, few-shot, json, justify or explained-few-shot (default: zero-shot)")
        p.add_argument("--shuffle-seed", type=int, help="shuffle option order per item (position bias)")
        p.add_argument("--exemplars", type=int, default=3, help="explained-few-shot: exemplars per item (default: 3)")
        p.add_argument("--anchors", type=bounded_int(1), metavar="N",
                       help="ask only N anchor questions of the set, chosen from the finished runs' common-scale "
                       "model (persian-tui items anchors --n N); the report estimates the whole-set accuracy")
        p.add_argument("--samples", type=int, default=1, metavar="K",
                       help="ask each question K times (sample k: seed+k, its own cache entry and, "
                            "with --shuffle-seed, its own option order); every reply is stored (default: 1)")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="NAME",
                   help="NAME of the environment variable holding the API key (never stored; default: "
                        "OPENAI_API_KEY)")
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default: 0)")
    p.add_argument("--max-tokens", type=int, help="reply length limit (default: the endpoint's)")
    p.add_argument("--seed", type=int, help="sampling seed sent with each request (default: none)")
    p.add_argument("--concurrency", type=int, default=4, help="requests at once (1-256; default: 4)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds for a whole request, reply body included (default 60)")
    p.add_argument("--max-retries", type=int, default=4, help="retries of a failed request (0-20; default: 4)")
    p.add_argument("--max-failures", type=int, default=5,
                   help="stop the run (failed, resumable) after this many connection or auth "
                        "failures in a row (default 5)")
    p.add_argument("--no-cache", action="store_true", help="do not reuse cached replies")
    if not judge:
        p.add_argument("--questions", default="ready", choices=("ready", "curated", "all"),
                       help="question set: ready (includes curated), curated or all (default: ready)")
        p.add_argument("--release", metavar="NAME",
                       help="ask exactly the questions of this release (recorded with the run)")
    p.add_argument("--limit", type=int, help="at most this many questions: the first of the set in bank (uid) "
                                             "order, or of --release in its order (default: all; with --resume: "
                                             "this many more requests, a (question, sample) pair each)")
    p.add_argument("--resume", type=int, metavar="RUN",
                   help="finish an interrupted run; base URL, key variable, concurrency, timeout, "
                        "retries, failures and limit may be given anew")
    p.add_argument("--retry-errors", action="store_true", help="with --resume: ask failed items again")
    p.set_defaults(_defaults={a.dest: a.default for a in p._actions})


def add_commands(sub) -> None:
    from .options import one_run

    run = sub.add_parser("run", help="evaluation runs: llm, paraphrase, recall or embed")
    run_sub = run.add_subparsers(dest="kind", required=True, metavar="KIND")
    llm = run_sub.add_parser("llm", help="ask an LLM every question (OpenAI-compatible endpoint)",
                             usage=ENDPOINT_USAGE.format(kind="llm"))
    add_llm_options(llm, answers=True)
    llm.set_defaults(func=cmd_run_llm)
    par = run_sub.add_parser("paraphrase", help="an LLM writes each couplet as plain prose "
                             "(embed it later with run embed --paraphrases RUN)",
                             usage=ENDPOINT_USAGE.format(kind="paraphrase"))
    par.add_argument("--corpus", action="store_true",
                     help="paraphrase corpus couplets of poems none of whose couplets is in the bank (for corpus "
                          "propose --paraphrases RUN) rather than the questions; --limit couplets (default: 500)")
    par.add_argument("--poet", action="append", metavar="NAME",
                     help="with --corpus: only this poet's poems (slug or name; repeat for several)")
    par.add_argument("--corpus-seed", type=int, metavar="N",
                     help="with --corpus: seed of the draw of the couplets (default: 0)")
    add_llm_options(par, answers=False)
    par.set_defaults(func=cmd_run_paraphrase)
    rec = run_sub.add_parser("recall", help="recall probes: does a model remember the couplets? "
                             "(GhazalBench's scenarios; see docs/guide/memory.md)",
                             usage=ENDPOINT_USAGE.format(kind="recall") + "\n       (--cue first|prose|words|"
                             "shuffled --format complete|choose)")
    rec.add_argument("--cue", default="first", choices=("first", "prose", "words", "shuffled"),
                     help="what the model is given besides the poet and the first hemistich: nothing (first), "
                          "the couplet's prose (prose, with --paraphrases), the two rarest words of the second "
                          "hemistich (words) or its words shuffled (shuffled) (default: first)")
    rec.add_argument("--format", default="complete", choices=("complete", "choose"),
                     help="write the second hemistich (complete) or pick it among four (choose: cues first "
                          "and prose only) (default: complete)")
    rec.add_argument("--paraphrases", dest="paraphrase_run", type=int, metavar="RUN",
                     help="cue prose: the paraphrase run whose prose is given (it must cover the questions)")
    rec.add_argument("--probe-seed", type=int, default=0, metavar="N",
                     help="seed of the shuffled words and of the choices' order (default: 0)")
    add_llm_options(rec, answers=False)
    rec.set_defaults(func=cmd_run_recall)
    emb = run_sub.add_parser("embed", help="embedding outlier detection")
    emb.add_argument("--model", default="tfidf",
                     help="tfidf (offline baseline), st:NAME_OR_FOLDER, openai:MODEL (with --base-url; "
                          "default: tfidf)")
    emb.add_argument("--scorer", default="centroid", help="centroid, pairwise or isolation (default: centroid)")
    emb.add_argument("--prefix", help="text put before every input, e.g. 'query: ' (default: the model's)")
    emb.add_argument("--base-url", metavar="URL", help="the endpoint of an openai:MODEL embedder")
    emb.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="NAME",
                     help="NAME of the environment variable holding the API key (never stored; default: "
                          "OPENAI_API_KEY)")
    emb.add_argument("--batch-size", type=int, default=64, help="texts per request or batch (default: 64)")
    emb.add_argument("--questions", default="ready", choices=("ready", "curated", "all"),
                     help="question set: ready (includes curated), curated or all (default: ready)")
    emb.add_argument("--limit", type=int, help="at most this many questions: the first of the set in bank (uid) "
                                               "order, or of --release in its order (default: all)")
    emb.add_argument("--paraphrases", type=int, metavar="RUN", help="embed this paraphrase run's prose")
    emb.add_argument("--release", metavar="NAME", help="score exactly this release's questions (recorded)")
    emb.add_argument("--resume", type=int, metavar="RUN",
                     help="go on with a failed or stopped embedding run (its vectors so far are cached; "
                          "--base-url again when its URL held a password)")
    emb.set_defaults(func=cmd_run_embed)

    jd = sub.add_parser("judge", help="an LLM judge classifies the errors of a run",
                        usage="%(prog)s RUN --judge-model NAME --base-url URL [options]\n"
                              "       %(prog)s --resume RUN [options]")
    one_run(jd, int, help="the run whose predictions are judged (not with --resume)")
    jd.add_argument("--judge-model", metavar="NAME", help="the judge's model name at --base-url")
    jd.add_argument("--only-wrong", action="store_true", help="judge only wrong or unusable answers")
    jd.add_argument("--sample", type=int, metavar="K",
                    help="for a run asked several times: judge sample K (0-based; default: each "
                         "question's majority's first sample)")
    add_llm_options(jd, answers=False, judge=True)
    jd.set_defaults(func=cmd_judge)

    rs = sub.add_parser("runs", help="list runs; archive, unarchive, delete, history of one run",
                        description="`runs` lists runs (archived ones with --all); `runs archive RUN` "
                        "hides a run from lists and default reports; `runs delete RUN` removes it with "
                        "its predictions, judgments and judge runs (asks, or --yes); `runs history RUN`.")
    rs.add_argument("--all", action="store_true", help="include archived runs")
    rs_sub = rs.add_subparsers(dest="action", metavar="ACTION")
    for name, help_ in (("archive", "hide a run from lists and default reports"),
                        ("unarchive", "show an archived run again"),
                        ("delete", "delete a run, its predictions and judgments (logged)"),
                        ("history", "what happened to a run: resume overrides, archive, delete")):
        a = rs_sub.add_parser(name, help=help_)
        a.add_argument("id", type=int, metavar="RUN", help="the run's id (persian-tui runs lists them)")
        if name == "delete":
            a.add_argument("--yes", action="store_true", help="do not ask")
    rs.set_defaults(func=cmd_runs)

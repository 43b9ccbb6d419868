"""LLM and paraphrase runs: a run spec in, predictions streamed into the store, progress out.

Each prediction is committed the moment it is made, so a run killed at any point resumes
where it stopped (a resume asks only the (question, sample) pairs that have no row;
`retry_errors` asks the `api_error` ones again). A run with `samples` K asks each question K
times (sample k: the seed moved by k, the cache's repeat index k, with --shuffle-seed its own
option order) and stores every reply. Progress goes to a callback (the CLI prints it; the TUI
posts it as a message); cancelling is a threading.Event checked between requests.

`LLMSession` (runs/session.py) is the set-up every run that asks an endpoint shares. A paraphrase
run of corpus couplets is made and executed by runs/corpus_prose.py."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from .. import redact
from ..models import Prediction, Question, Run
from ..store import Store
from .lifecycle import save_when_free
from .progress import Callback, RunError, RunProgress, select_questions, stored_progress
from .session import LLMSession, cached_reply, load_soon, stored_spec  # noqa: F401 - also imported from here
from .spec import RESUME_OVERRIDES, LLMRunSpec, ParaphraseRunSpec

if TYPE_CHECKING:
    from .pace import RunPace


def create_llm_run(store: Store, spec: LLMRunSpec, *, kind: str = "llm") -> Run:
    """Record a new run (its questions fixed now, so a resume asks the same ones). `kind`
    "paraphrase" asks for the prose meaning of every couplet instead of an answer."""
    from .prompts import PARAPHRASE_HASH, PARAPHRASE_TEMPLATE, STRATEGIES

    if isinstance(spec, ParaphraseRunSpec):
        kind = "paraphrase"
        if spec.corpus:  # corpus couplets rather than the bank's questions
            from .corpus_prose import create_corpus_paraphrase_run

            return create_corpus_paraphrase_run(store, spec)
    if kind == "paraphrase":
        spec.strategy = "paraphrase"
        questions = select_questions(store, spec.questions, spec.limit, spec.release, spec.anchors)
        if not questions:
            raise RunError(f"no questions to paraphrase (set {spec.questions!r})")
        params = {**spec.stored(), "uids": [q.uid for q in questions]}
        run = store.runs.create_run("paraphrase", spec.model, params, total=len(questions),
                                    prompt_template=PARAPHRASE_TEMPLATE, prompt_hash=PARAPHRASE_HASH)
        assert run is not None  # (None only for once_per_file)
        return run
    if spec.strategy not in STRATEGIES:
        raise RunError(f"unknown strategy {spec.strategy!r}; choose {', '.join(STRATEGIES)}")
    run = store.runs.create_run(**llm_run_fields(spec, select_questions(store, spec.questions, spec.limit,
                                                                        spec.release, spec.anchors)))
    assert run is not None  # (None only for once_per_file)
    return run


def llm_run_fields(spec: LLMRunSpec, questions: list[Question]) -> dict:
    """The stored fields of a new LLM run asking `questions` (create_run's arguments)."""
    from .prompts import render

    if not questions:
        raise RunError(f"no questions to ask (set {spec.questions!r})")
    sample = render(spec.strategy, questions[0])
    params = {**spec.stored(), "uids": [q.uid for q in questions]}
    if spec.strategy == "few-shot":  # the seed's examples are in the prompt, answers included
        from .prompts import leaks_few_shot

        params["few_shot_leaks"] = [q.uid for q in questions if leaks_few_shot(q)]
    return {"kind": "llm", "model": spec.model, "params": params, "total": len(questions) * spec.samples,
            "prompt_template": sample.template, "prompt_hash": sample.template_hash}


def resume_overrides(store: Store, run: Run, given: dict) -> dict:
    """Check what a resume changes: reaching the endpoint and pushing it (base URL, key
    variable, concurrency, timeout, retries, limit) may change, and is recorded in the
    run's history; anything else would change what is asked, and is refused."""
    changed = {k: v for k, v in given.items() if v is not None and run.params.get(k) != v}
    refused = sorted(k for k in changed if k not in RESUME_OVERRIDES)
    if refused:
        raise RunError(f"run {run.id} cannot be resumed with a different "
                       f"{', '.join(k.replace('_', ' ') for k in refused)}: that changes what is asked; "
                       "start a new run instead")
    if changed:
        shown = {k: redact.url(v) if k == "base_url" else v for k, v in changed.items()}
        store.runs.log_run(run.id, "resume-overrides", shown)
    return changed


async def execute_llm_run(db_path: str | Path, run_id: int, *, retry_errors: bool = False,
                          on_progress: Callback | None = None,
                          cancel: threading.Event | None = None,
                          overrides: dict | None = None, pace: RunPace | None = None,
                          questions: Mapping[str, Question] | None = None) -> RunProgress:
    """Ask every (question, sample) of the run that has no prediction yet (and, with
    retry_errors, those that failed); one committed row per answer. `overrides` are checked resume
    overrides (see resume_overrides) or the real base URL of a new run. One process at a
    time: the run's lease is taken first (RunError names the holder). `pace`: the run is one of
    a sweep's (runs/pace.py); a budget reached stops it `cancelled` with the reason.
    `questions`: by uid, read by the caller for several runs at once (a sweep's); read here
    when they do not hold every question of the run."""
    from .llm_client import LLMError
    from .pace import BudgetReached
    from .prompts import original_answer, pick_exemplars, render, render_paraphrase, shuffled_order

    store = Store(db_path)
    try:
        found = store.runs.get_run(run_id)
        if found is not None and found.kind == "paraphrase" and found.params.get("corpus"):
            from .corpus_prose import execute_corpus_paraphrase_run

            store.close()
            return await execute_corpus_paraphrase_run(db_path, run_id, retry_errors=retry_errors,
                                                       on_progress=on_progress, cancel=cancel, overrides=overrides)
        session = await LLMSession.open(store, run_id, ("llm", "paraphrase"), "LLM or paraphrase", overrides,
                                        cancel, pace)
        run, spec, uids, cancel = session.run, session.spec, session.uids, session.cancel
        K = spec.samples
        done = store.runs.predicted_samples(run_id, excluding=("api_error",) if retry_errors else ())
        # the whole bank only for few-shot exemplars; else only the run's questions
        few_shot = getattr(spec, "strategy", None) == "explained-few-shot"
        if few_shot:
            by_uid = {q.uid: q for q in store.questions.questions()}
        elif questions is not None and all(u in questions for u in uids):
            by_uid = {u: questions[u] for u in uids}
        else:
            by_uid = store.questions.questions_for_uids(uids)
        # sample-major: a run stopped early (a budget, a kill) holds a sample of every question
        # rather than every sample of a few, and repeats of one prompt are spread apart
        todo = session.limited([(by_uid[u], k) for k in range(K) for u in uids if u in by_uid
                                if (u, k) not in done])
        # rows asked again (retry_errors) are counted afresh, the others as stored
        progress = stored_progress(store, run, uids, K, skip={(q.uid, k) for q, k in todo}, questions=by_uid)
        await session.start(lambda preds: store.runs.save_predictions(run_id, preds))
        bank = [q for q in by_uid.values() if q.key is not None and q.explanation]
        breaker = session.breaker

        async def paraphrase(item: tuple[Question, int]) -> None:
            q = item[0]
            async with session.slot():
                if cancel.is_set():
                    return
                pred = Prediction(q.uid, None, "api_error", prompt_hash=run.prompt_hash)
                texts = []
                try:
                    for o in sorted(q.options, key=lambda o: o.position):
                        reply = await session.reply(render_paraphrase(o.mesra1, o.mesra2))
                        from .parse import split_reasoning  # see ask
                        parsed_text = split_reasoning(reply.text or "")[0].strip()
                        if not parsed_text:
                            pred.parse_status, pred.error = "empty", f"no prose for couplet {o.position}"
                            break
                        texts.append(parsed_text)
                    else:
                        pred.parse_status = "ok"
                        store.runs.save_paraphrases(run_id, q.uid, texts)
                    pred.raw_output = json.dumps(texts, ensure_ascii=False)
                    breaker.record()
                except LLMError as e:
                    pred.error = str(e)
                    breaker.record(e)
                await save_when_free(store.runs.save_predictions, run_id, [pred], db=store)
                progress.count(pred, None)
                if on_progress:
                    on_progress(progress)

        async def ask(item: tuple[Question, int]) -> None:
            q, k = item
            reply = None
            async with session.slot():  # held while asking: the reply is read and stored after it is freed
                if cancel.is_set():
                    return
                # each sample its own option order (sample 0: the order a single run uses)
                order = shuffled_order(q.uid, spec.shuffle_seed + k) if spec.shuffle_seed is not None else None
                exemplars = (pick_exemplars(q, bank, spec.exemplars, seed=spec.seed or 0)
                             if spec.strategy == "explained-few-shot" else ())
                prompt = render(spec.strategy, q, exemplars=exemplars, order=order)
                pred = Prediction(q.uid, None, "api_error", permutation=list(prompt.order),
                                  prompt_hash=hashlib.sha256(repr(prompt.messages).encode()).hexdigest(),
                                  exemplars=list(prompt.exemplars) or None, sample=k)
                load_soon("persian_tui.runs.parse")  # read at the first reply
                try:
                    reply = await session.reply(prompt.messages, prompt.response_format, k)
                    breaker.record()
                except LLMError as e:
                    pred.error = str(e)
                    breaker.record(e)
                except BudgetReached:
                    return  # not asked: no row (a resume with a larger budget asks it)
            if reply is not None:
                from .parse import parse_answer  # (see load_soon)

                parsed = parse_answer(reply.text, reasoning=reply.reasoning)
                pred.raw_output, pred.reasoning = reply.text, parsed.reasoning
                pred.parse_status = parsed.status
                pred.predicted = original_answer(parsed.answer, prompt.order)
                pred.tokens_in, pred.tokens_out = reply.tokens_in, reply.tokens_out
                pred.latency = reply.latency
                # the endpoint's reported cost, else the tokens at the spec's prices
                pred.cost = reply.cost if reply.cost is not None else spec.priced(reply.tokens_in, reply.tokens_out)
                pred.error = reply.warning
            await session.writer.save(pred)
            progress.count(pred, q.key)
            if pred.parse_status != "ok":
                which = f" sample {k}" if K > 1 else ""
                progress.message = f"{q.uid}{which}: {pred.error or pred.parse_status}"[:200]
            if on_progress:
                on_progress(progress)

        work = paraphrase if run.kind == "paraphrase" else ask
        await session.drive(work, todo)
        finished = store.runs.predicted_samples(run_id) >= {(u, k) for u in uids for k in range(K)}
        return await session.finish(progress, finished, on_progress)
    finally:
        store.close()

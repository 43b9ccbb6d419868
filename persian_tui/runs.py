"""Run orchestration: a run spec in, predictions streamed into the store, progress out.

Each prediction is committed the moment it is made, so a run killed at any point resumes
where it stopped (a resume asks only the (question, sample) pairs that have no row;
`retry_errors` asks the `api_error` ones again). A run with `samples` K asks each question K
times (sample k: the seed moved by k, the cache's repeat index k, with --shuffle-seed its own
option order) and stores every reply. Progress goes to a callback (the CLI prints it; the TUI posts it as
a message); cancelling is a threading.Event checked between requests."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .models import Prediction, Question, Run, accuracy
from .specs import RESUME_OVERRIDES, EmbedRunSpec, JudgeRunSpec, LLMRunSpec, ParaphraseRunSpec  # noqa: F401 (re-exported)
from .store import LeaseHeld, Store, StoreError

LEASE_SECONDS = 60.0  # a killed process's run is free again after this
BUSY_RETRIES = 8  # a busy database is retried (with backoff) before a run gives up

STATUS_SETS = {"ready": ("ready", "curated"), "curated": ("curated",),
               "all": ("draft", "ready", "curated")}


class RunError(Exception):
    """A run that cannot start or go on (bad spec, unknown run); the message is for the user."""


@dataclass
class RunProgress:
    run_id: int
    total: int
    done: int = 0
    correct: int = 0
    scored: int = 0  # done predictions of questions with a key
    invalid: int = 0
    errors: int = 0
    started: float = field(default_factory=time.monotonic)
    new: int = 0  # predictions made in this session (for the rate)
    status: str = "running"
    message: str = ""
    reason: str | None = None  # why it ended failed

    @property
    def accuracy(self) -> float | None:
        return accuracy(self.correct, self.scored, self.done, self.errors)

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.new / elapsed if elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        left = self.total - self.done
        return left / self.rate if self.rate > 0 else None

    def count(self, p: Prediction, key: int | None) -> None:
        self.done += 1
        self.new += 1
        if p.parse_status == "api_error":
            self.errors += 1
        elif p.parse_status != "ok":
            self.invalid += 1
        if key is not None:
            self.scored += 1
            self.correct += p.predicted == key


Callback = Callable[[RunProgress], None]


def select_questions(store: Store, which: str, limit: int | None = None,
                     release: str | None = None) -> list[Question]:
    """The questions of a set (ready | curated | all), or exactly those of a release (in its
    order; a question no longer in the bank is an error)."""
    if release is not None:
        uids = store.release_uids(release)
        if uids is None:
            raise RunError(f"no release {release!r} (see persian-tui release --list)")
        by_uid = store.questions_for_uids(uids)
        gone = [u for u in uids if u not in by_uid]
        if gone:
            raise RunError(f"release {release!r}: {len(gone)} question(s) are no longer in the bank, "
                           f"e.g. {gone[0]}")
        questions = [by_uid[u] for u in uids]
    else:
        if which not in STATUS_SETS:
            raise RunError(f"unknown question set {which!r}; choose {', '.join(STATUS_SETS)}")
        questions = [q for q in store.questions(statuses=STATUS_SETS[which])]
    return questions[:limit] if limit else questions


def _progress_from(store: Store, run: Run, uids: list[str], samples: int = 1,
                   skip: set[tuple[str, int]] = frozenset()) -> RunProgress:
    """Progress over (question, sample) pairs: every stored reply counts once, but those of
    `skip` (the pairs about to be asked again: a retry counts them afresh)."""
    progress = RunProgress(run.id, len(uids) * samples)
    keys = {q.uid: q.key for q in store.questions()}
    wanted = set(uids)
    for p in store.predictions(run.id, samples=True):
        if p.uid in wanted and p.sample < samples and (p.uid, p.sample) not in skip:
            progress.count(p, keys.get(p.uid))
            if p.parse_status != "ok":  # the last failure stays quotable in the run's reason
                progress.message = f"{p.uid}: {p.error or p.parse_status}"[:200]
    progress.new = 0
    return progress


# ---------------------------------------------------------------- LLM runs


def create_llm_run(store: Store, spec: LLMRunSpec, *, kind: str = "llm") -> Run:
    """Record a new run (its questions fixed now, so a resume asks the same ones). `kind`
    "paraphrase" asks for the prose meaning of every couplet instead of an answer."""
    from .eval.prompts import PARAPHRASE_HASH, PARAPHRASE_TEMPLATE, STRATEGIES, render

    if isinstance(spec, ParaphraseRunSpec):
        kind = "paraphrase"
    if kind == "paraphrase":
        spec.strategy = "paraphrase"
        questions = select_questions(store, spec.questions, spec.limit, spec.release)
        if not questions:
            raise RunError(f"no questions to paraphrase (set {spec.questions!r})")
        params = {**spec.stored(), "uids": [q.uid for q in questions]}
        return store.create_run("paraphrase", spec.model, params, total=len(questions),
                                prompt_template=PARAPHRASE_TEMPLATE, prompt_hash=PARAPHRASE_HASH)
    if spec.strategy not in STRATEGIES:
        raise RunError(f"unknown strategy {spec.strategy!r}; choose {', '.join(STRATEGIES)}")
    questions = select_questions(store, spec.questions, spec.limit, spec.release)
    if not questions:
        raise RunError(f"no questions to ask (set {spec.questions!r})")
    sample = render(spec.strategy, questions[0])
    params = {**spec.stored(), "uids": [q.uid for q in questions]}
    if spec.strategy == "few-shot":  # the seed's examples are in the prompt, answers included
        from .eval.prompts import leaks_few_shot

        params["few_shot_leaks"] = [q.uid for q in questions if leaks_few_shot(q)]
    return store.create_run("llm", spec.model, params, total=len(questions) * spec.samples,
                            prompt_template=sample.template, prompt_hash=sample.template_hash)


def _spec(run: Run, overrides: dict | None = None) -> LLMRunSpec:
    """The run's stored spec with the allowed resume overrides (see resume_overrides)."""
    fields = LLMRunSpec.model_fields
    data = {k: v for k, v in run.params.items() if k in fields}
    data.update(overrides or {})
    if "***@" in (data.get("base_url") or ""):
        raise RunError(f"run {run.id}'s base URL had a password, which is never stored: "
                       "give --base-url again to resume it")
    from pydantic import ValidationError

    from .specs import describe

    try:
        return LLMRunSpec.model_validate(data)
    except ValidationError as e:
        raise RunError(f"run {run.id}: {describe(e)}") from None


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
        from . import redact

        shown = {k: redact.url(v) if k == "base_url" else v for k, v in changed.items()}
        store.log_run(run.id, "resume-overrides", shown)
    return changed


class Breaker:
    """The circuit breaker: `limit` connection, timeout, auth or endpoint failures (429/5xx after
    the retries, 402, 404) in a row stop the run (an endpoint that is down or out of quota must
    not be asked for an hour). Any success, or an item's own error, resets it."""

    def __init__(self, limit: int, cancel: threading.Event):
        self.limit, self.cancel = limit, cancel
        self.streak = 0
        self.successes = 0
        self.tripped: str | None = None

    def record(self, error=None) -> None:
        if error is None:
            self.streak, self.successes = 0, self.successes + 1
            return
        self.streak = self.streak + 1 if getattr(error, "unreachable", False) else 0
        if self.streak >= self.limit and self.tripped is None:
            what = "failing" if getattr(error, "kind", "") == "unavailable" else "unreachable"
            self.tripped = (f"endpoint {what}: {self.streak} failures in a row "
                            f"(last: {str(error)[:200]})")
            self.cancel.set()


async def _save(call, *args, **kw) -> None:
    """A run's write, retried while another process holds the database (an import, say)."""
    for attempt in range(BUSY_RETRIES + 1):
        try:
            return call(*args, **kw)
        except StoreError as e:
            if "busy" not in str(e) or attempt == BUSY_RETRIES:
                raise
            await asyncio.sleep(min(5.0, 0.2 * 2 ** attempt))


def _lease(store: Store, run_id: int) -> None:
    try:
        store.take_lease(run_id, LEASE_SECONDS)
    except LeaseHeld as e:
        raise RunError(str(e)) from None


async def _heartbeat(store: Store, run_id: int) -> None:
    while True:
        await asyncio.sleep(LEASE_SECONDS / 3)
        try:
            store.renew_lease(run_id, LEASE_SECONDS)
        except StoreError:
            pass  # busy: the next beat renews it


async def _drive(tasks: list, store: Store, run_id: int, client, cancel: threading.Event) -> None:
    """Wait for a run's request tasks. Ctrl-C, SIGTERM or SIGHUP (the task is cancelled)
    cancels them and the run ends `cancelled`; an unexpected error marks the run `failed` and
    propagates. The run's lease is renewed meanwhile."""
    beat = asyncio.ensure_future(_heartbeat(store, run_id))
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        cancel.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    except BaseException as e:
        for t in tasks:
            t.cancel()
        store.set_run_status(run_id, "failed", reason=f"{type(e).__name__}: {str(e)[:300]}")
        store.release_lease(run_id)
        raise
    finally:
        beat.cancel()
        await client.close()


def _finish(store: Store, progress: RunProgress, complete: bool, on_progress: Callback | None,
            breaker: Breaker | None = None) -> RunProgress:
    """The run's final status: `failed` when the breaker stopped it or no request succeeded
    (with the reason), `done` when every item has a row, else `cancelled` (resumable)."""
    reason = None
    if breaker is not None and breaker.tripped:
        progress.status, reason = "failed", breaker.tripped
    elif complete and progress.done and progress.errors >= progress.done:
        progress.status = "failed"
        reason = f"no request succeeded ({progress.errors} API errors; last: {progress.message[:200]})"
    else:
        progress.status = "done" if complete else "cancelled"
    progress.reason = reason
    if reason:
        progress.message = reason
    store.set_run_status(progress.run_id, progress.status, reason=reason)
    store.release_lease(progress.run_id)
    if on_progress:
        on_progress(progress)
    return progress


async def cached_reply(store: Store, client, spec: LLMRunSpec, messages: list[dict],
                       response_format: dict | None = None, sample: int = 0):
    """A completion from the cache when `spec.cache` and it was asked before, else from the
    endpoint (then cached; errors raise LLMError and are never cached). Sample k has its own
    cache entry (the key's repeat index) and seed."""
    from .eval.llm import Completion, cache_key

    params = spec.request_params(sample)
    key = cache_key(spec.base_url, spec.model, messages, params, response_format, repeat=sample)
    cached = store.cached_response(key) if spec.cache else None
    if cached is not None:
        return Completion(**cached, cached=True)
    reply = await client.complete(messages, params=params, response_format=response_format)
    if spec.cache:
        store.cache_response(key, reply.to_cache())
    return reply


async def execute_llm_run(db_path: str | Path, run_id: int, *, retry_errors: bool = False,
                          on_progress: Callback | None = None,
                          cancel: threading.Event | None = None,
                          overrides: dict | None = None) -> RunProgress:
    """Ask every (question, sample) of the run that has no prediction yet (and, with
    retry_errors, those that failed); one committed row per answer. `overrides` are checked resume
    overrides (see resume_overrides) or the real base URL of a new run. One process at a
    time: the run's lease is taken first (RunError names the holder)."""
    from .eval.llm import LLMClient, LLMError
    from .eval.parse import parse_answer, split_reasoning
    from .eval.prompts import original_answer, pick_exemplars, render, render_paraphrase, shuffled_order

    store = Store(db_path)
    try:
        run = store.get_run(run_id)
        if run is None or run.kind not in ("llm", "paraphrase"):
            raise RunError(f"no LLM or paraphrase run {run_id}")
        spec, uids = _spec(run, overrides), run.params["uids"]
        K = spec.samples
        _lease(store, run_id)
        done = store.predicted_samples(run_id)
        if retry_errors:
            done -= store.predicted_samples(run_id, statuses=("api_error",))
        by_uid = {q.uid: q for q in store.questions()}
        todo = [(by_uid[u], k) for u in uids if u in by_uid for k in range(K) if (u, k) not in done]
        if overrides and overrides.get("limit"):  # a resume may ask only this many more
            todo = todo[:overrides["limit"]]
        # rows asked again (retry_errors) are counted afresh, the others as stored
        progress = _progress_from(store, run, uids, K, skip={(q.uid, k) for q, k in todo})
        store.set_run_status(run_id, "running")
        bank = [q for q in by_uid.values() if q.key is not None and q.explanation]
        client = LLMClient(spec.base_url, spec.model, api_key_env=spec.api_key_env,
                           timeout=spec.timeout, max_retries=spec.max_retries)
        gate = asyncio.Semaphore(spec.concurrency)
        cancel = cancel or threading.Event()
        breaker = Breaker(spec.max_failures, cancel)

        async def reply_to(messages: list[dict], response_format: dict | None = None, sample: int = 0):
            return await cached_reply(store, client, spec, messages, response_format, sample)

        async def paraphrase(q: Question, k: int = 0) -> None:
            async with gate:
                if cancel.is_set():
                    return
                pred = Prediction(q.uid, None, "api_error", prompt_hash=run.prompt_hash)
                texts = []
                try:
                    for o in sorted(q.options, key=lambda o: o.position):
                        reply = await reply_to(render_paraphrase(o.mesra1, o.mesra2))
                        parsed_text = split_reasoning(reply.text or "")[0].strip()
                        if not parsed_text:
                            pred.parse_status, pred.error = "empty", f"no prose for couplet {o.position}"
                            break
                        texts.append(parsed_text)
                    else:
                        pred.parse_status = "ok"
                        store.save_paraphrases(run_id, q.uid, texts)
                    pred.raw_output = json.dumps(texts, ensure_ascii=False)
                    breaker.record()
                except LLMError as e:
                    pred.error = str(e)
                    breaker.record(e)
                await _save(store.save_predictions, run_id, [pred])
                progress.count(pred, None)
                if on_progress:
                    on_progress(progress)

        async def ask(q: Question, k: int) -> None:
            async with gate:
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
                try:
                    reply = await reply_to(prompt.messages, prompt.response_format, k)
                    parsed = parse_answer(reply.text, reasoning=reply.reasoning)
                    pred.raw_output, pred.reasoning = reply.text, parsed.reasoning
                    pred.parse_status = parsed.status
                    pred.predicted = original_answer(parsed.answer, prompt.order)
                    pred.tokens_in, pred.tokens_out = reply.tokens_in, reply.tokens_out
                    pred.latency, pred.cost = reply.latency, reply.cost
                    pred.error = reply.warning
                    breaker.record()
                except LLMError as e:
                    pred.error = str(e)
                    breaker.record(e)
                await _save(store.save_predictions, run_id, [pred])
                progress.count(pred, q.key)
                if pred.parse_status != "ok":
                    which = f" sample {k}" if K > 1 else ""
                    progress.message = f"{q.uid}{which}: {pred.error or pred.parse_status}"[:200]
                if on_progress:
                    on_progress(progress)

        work = paraphrase if run.kind == "paraphrase" else ask
        tasks = [asyncio.ensure_future(work(q, k)) for q, k in todo]
        await _drive(tasks, store, run_id, client, cancel)
        finished = store.predicted_samples(run_id) >= {(u, k) for u in uids for k in range(K)}
        return _finish(store, progress, finished and not cancel.is_set(), on_progress, breaker)
    finally:
        store.close()


# ---------------------------------------------------------------- embedding runs


def couplet_text(mesra1: str, mesra2: str) -> str:
    """How a couplet is given to an embedder: the seed's "mesra1 - mesra2"."""
    return f"{mesra1} - {mesra2}"


def create_embedding_run(store: Store, spec: EmbedRunSpec) -> Run:
    """Record an embedding run (its questions fixed now); execute_embedding_run does the work.
    A model this install cannot load is refused first (no run recorded)."""
    from .eval.embed import EmbedderError, check_available

    try:
        check_available(spec.model)
    except EmbedderError as e:
        raise RunError(str(e)) from None
    questions = select_questions(store, spec.questions, spec.limit, spec.release)
    if not questions:
        raise RunError(f"no questions to score (set {spec.questions!r})")
    if spec.paraphrase_run is not None:
        prose = store.paraphrases(spec.paraphrase_run)
        missing = [q.uid for q in questions if len(prose.get(q.uid, [])) != 4]
        if missing:
            raise RunError(f"paraphrase run {spec.paraphrase_run} lacks {len(missing)} question(s), "
                           f"e.g. {missing[0]}")
    params = {**spec.stored(), "uids": [q.uid for q in questions]}
    return store.create_run("embedding", spec.model, params, total=len(questions))


def execute_embedding_run(store: Store, run_id: int, *, on_progress: Callback | None = None,
                          cancel: threading.Event | None = None, base_url: str | None = None) -> RunProgress:
    """Embed each distinct text once (through the cache), score the four options of each
    question, and store one prediction per question with its per-option scores. The same
    lifecycle as LLM runs: a lease, `failed` with the reason, `cancelled` between batches."""
    import numpy as np

    from .eval.embed import EmbedderError, make_embedder
    from .eval.outlier import predict

    run = store.get_run(run_id)
    if run is None or run.kind != "embedding":
        raise RunError(f"no embedding run {run_id}")
    spec = EmbedRunSpec.model_validate({k: v for k, v in run.params.items() if k in EmbedRunSpec.model_fields}
                                       | ({"base_url": base_url} if base_url else {}))
    _lease(store, run_id)
    by_uid = store.questions_for_uids(run.params["uids"])
    questions = [by_uid[u] for u in run.params["uids"] if u in by_uid]
    progress = RunProgress(run.id, len(questions))
    cancel = cancel or threading.Event()

    def stop(status: str, reason: str | None = None) -> RunProgress:
        progress.status, progress.reason = status, reason
        store.set_run_status(run.id, status, reason=reason)
        store.release_lease(run.id)
        if on_progress:
            on_progress(progress)
        return progress

    if spec.paraphrase_run is not None:
        prose = store.paraphrases(spec.paraphrase_run)
        texts = {q.uid: prose.get(q.uid, []) for q in questions}
    else:
        texts = {q.uid: [couplet_text(o.mesra1, o.mesra2) for o in q.options] for q in questions}
    distinct = sorted({t for ts in texts.values() for t in ts})
    try:
        embedder = make_embedder(spec.model, corpus=distinct, prefix=spec.prefix,
                                 base_url=spec.base_url, api_key_env=spec.api_key_env)
    except EmbedderError as e:
        stop("failed", str(e))
        raise RunError(str(e)) from None
    store.update_run(run.id, model=embedder.model_id,
                     params={**run.params, "model_id": embedder.model_id, "revision": embedder.revision})
    cache_key = (embedder.model_id, embedder.revision, embedder.prefix, embedder.normalization)
    sha = {t: hashlib.sha256(t.encode()).hexdigest() for t in distinct}
    cacheable = getattr(embedder, "cacheable", True)
    vectors = store.cached_vectors(cache_key, list(sha.values())) if cacheable else {}
    missing = [t for t in distinct if sha[t] not in vectors]
    progress.message = f"{len(distinct) - len(missing)} cached, {len(missing)} to embed"
    for start in range(0, len(missing), spec.batch_size):
        if cancel.is_set():
            return stop("cancelled")
        batch = missing[start:start + spec.batch_size]
        try:
            out = embedder.embed(batch)
        except EmbedderError as e:
            stop("failed", str(e))
            raise RunError(str(e)) from None
        fresh = {sha[t]: v for t, v in zip(batch, out)}
        if cacheable:
            store.cache_vectors(cache_key, fresh)
        vectors.update({k: np.asarray(v, dtype=np.float32) for k, v in fresh.items()})
        progress.message = f"embedded {min(start + len(batch), len(missing))}/{len(missing)} texts"
        if on_progress:
            on_progress(progress)
    E = np.stack([np.stack([vectors[sha[t]] for t in texts[q.uid]]) for q in questions])
    try:
        predicted, scores = predict(E, spec.scorer)
    except ValueError as e:  # vectors no scorer can use (NaN from a local model, say)
        stop("failed", f"cannot score the vectors of {embedder.model_id}: {e}")
        raise RunError(f"cannot score the vectors of {embedder.model_id}: {e}") from None
    preds = [Prediction(q.uid, int(p), "ok", scores=[round(float(s), 6) for s in row])
             for q, p, row in zip(questions, predicted, scores)]
    for chunk in range(0, len(preds), 500):
        store.save_predictions(run.id, preds[chunk:chunk + 500])
    for q, p in zip(questions, preds):
        progress.count(p, q.key)
    return stop("done")


def run_embedding(store: Store, spec: EmbedRunSpec, *, on_progress: Callback | None = None,
                  cancel: threading.Event | None = None) -> RunProgress:
    """Create and execute an embedding run."""
    run = create_embedding_run(store, spec)
    return execute_embedding_run(store, run.id, on_progress=on_progress, cancel=cancel,
                                 base_url=spec.base_url)


# ---------------------------------------------------------------- judge runs


def create_judge_run(store: Store, spec: LLMRunSpec, target_run: int, *, only_wrong: bool = False) -> Run:
    """A judge run over the predictions of `target_run` (only the wrong ones with only_wrong).
    A target asked several times is judged on `spec.sample` when given, else on each question's
    majority's first sample; the picked sample per question is fixed now (params `picked`)."""
    from .eval.judge import DEFAULT_TAXONOMY, JUDGE_VERSION, prompt_hash

    target = store.get_run(target_run)
    if target is None:
        raise RunError(f"no run {target_run} to judge")
    store.ensure_error_categories(DEFAULT_TAXONOMY)
    keys = {q.uid: q.key for q in store.questions()}
    pick = getattr(spec, "sample", None)
    preds = [p for p in store.predictions(target_run, sample=pick)
             if keys.get(p.uid) is not None and p.parse_status != "api_error"
             and not (only_wrong and p.predicted == keys[p.uid])]
    if not preds:
        raise RunError(f"run {target_run} has no predictions to judge"
                       + (f" in sample {pick}" if pick is not None else ""))
    categories = [c.name for c in store.error_categories()]
    params = {**spec.stored(), "strategy": "judge", "target_run": target_run, "only_wrong": only_wrong,
              "uids": [p.uid for p in preds], "categories": categories}
    if any(p.sample for p in preds):
        params["picked"] = {p.uid: p.sample for p in preds if p.sample}
    return store.create_run("judge", spec.model, params, total=len(preds),
                            prompt_template=JUDGE_VERSION, prompt_hash=prompt_hash(categories))


async def execute_judge_run(db_path: str | Path, run_id: int, *, retry_errors: bool = False,
                            on_progress: Callback | None = None,
                            cancel: threading.Event | None = None,
                            overrides: dict | None = None) -> RunProgress:
    """Judge every prediction of the run's target that has no judgment yet; one committed
    row per verdict. A reply without a clear verdict is stored as `unscored`."""
    from .eval.judge import parse_judgment, render_judge
    from .eval.llm import LLMClient, LLMError

    store = Store(db_path)
    try:
        run = store.get_run(run_id)
        if run is None or run.kind != "judge":
            raise RunError(f"no judge run {run_id}")
        spec, uids = _spec(run, overrides), run.params["uids"]
        target, categories = run.params["target_run"], run.params["categories"]
        _lease(store, run_id)
        done = store.judged_uids(run_id)
        if retry_errors:
            done -= store.judged_uids(run_id, statuses=("api_error",))
        questions = {q.uid: q for q in store.questions()}
        picked = run.params.get("picked") or {}
        preds = {p.uid: p for p in store.predictions(target, samples=True) if p.sample == picked.get(p.uid, 0)}
        todo = [u for u in uids if u not in done and u in preds]
        if overrides and overrides.get("limit"):
            todo = todo[:overrides["limit"]]
        kept = (store.judged_uids(run_id) & set(uids)) - set(todo)  # judged before, not asked again: as they were
        progress = RunProgress(run_id, len(uids), done=len(kept))
        progress.invalid = len(store.judged_uids(run_id, statuses=("unscored",)) & kept)
        progress.errors = len(store.judged_uids(run_id, statuses=("api_error",)) & kept)
        store.set_run_status(run_id, "running")
        client = LLMClient(spec.base_url, spec.model, api_key_env=spec.api_key_env,
                           timeout=spec.timeout, max_retries=spec.max_retries)
        gate = asyncio.Semaphore(spec.concurrency)
        cancel = cancel or threading.Event()
        breaker = Breaker(spec.max_failures, cancel)

        async def judge(uid: str) -> None:
            async with gate:
                if cancel.is_set():
                    return
                prompt = render_judge(questions[uid], preds[uid], categories)
                row = {"status": "api_error", "prompt": prompt.text, "prompt_version": prompt.version}
                try:
                    reply = await cached_reply(store, client, spec, prompt.messages, prompt.response_format)
                    j = parse_judgment(reply.text, categories)
                    row.update(status=j.status, verdict=j.verdict, error_category=j.error_category,
                               rationale=j.rationale, error=j.reason, raw_reply=reply.text, tokens_in=reply.tokens_in,
                               tokens_out=reply.tokens_out, latency=reply.latency, cost=reply.cost)
                    breaker.record()
                except LLMError as e:
                    row["error"] = str(e)
                    breaker.record(e)
                await _save(store.save_judgment, run_id, target, uid, **row, sample=picked.get(uid, 0))
                progress.done += 1
                progress.new += 1
                progress.invalid += row["status"] == "unscored"
                progress.errors += row["status"] == "api_error"
                if row["status"] != "ok":
                    progress.message = f"{uid}: {row.get('error') or row['status']}"[:200]
                if on_progress:
                    on_progress(progress)

        tasks = [asyncio.ensure_future(judge(u)) for u in todo]
        await _drive(tasks, store, run_id, client, cancel)
        finished = store.judged_uids(run_id) >= set(uids)
        return _finish(store, progress, finished and not cancel.is_set(), on_progress, breaker)
    finally:
        store.close()

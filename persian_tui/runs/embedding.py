"""Embedding runs: embed each couplet (or a paraphrase run's prose) once, through the vector
cache, score the four options of each question, store one prediction per question. The same
lifecycle as LLM runs: a lease, `failed` with the reason, `cancelled` between batches; a run
that stopped (failed, cancelled, killed) resumes with the vectors it had (the cache)."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from ..models import Prediction, Run
from ..store import Store, StoreError
from .lifecycle import end_run, take_lease
from .progress import Callback, RunError, RunProgress, select_questions
from .spec import EmbedRunSpec


def couplet_text(mesra1: str, mesra2: str) -> str:
    """How a couplet is given to an embedder: the seed's "mesra1 - mesra2"."""
    return f"{mesra1} - {mesra2}"


def create_embedding_run(store: Store, spec: EmbedRunSpec) -> Run:
    """Record an embedding run (its questions fixed now); execute_embedding_run does the work.
    A model this install cannot load is refused first (no run recorded)."""
    from .embedders import EmbedderError, check_available

    try:
        check_available(spec.model)
    except EmbedderError as e:
        raise RunError(str(e)) from None
    questions = select_questions(store, spec.questions, spec.limit, spec.release)
    if not questions:
        raise RunError(f"no questions to score (set {spec.questions!r})")
    if spec.paraphrase_run is not None:
        prose = store.runs.paraphrases(spec.paraphrase_run)
        missing = [q.uid for q in questions if len(prose.get(q.uid, [])) != 4]
        if missing:
            raise RunError(f"paraphrase run {spec.paraphrase_run} lacks {len(missing)} question(s), "
                           f"e.g. {missing[0]}")
    params = {**spec.stored(), "uids": [q.uid for q in questions]}
    run = store.runs.create_run("embedding", spec.model, params, total=len(questions))
    assert run is not None  # (None only for once_per_file)
    return run


def execute_embedding_run(db_path: str | Path, run_id: int, *, on_progress: Callback | None = None,
                          cancel: threading.Event | None = None, base_url: str | None = None) -> RunProgress:
    """Embed each distinct text once (through the cache), score the four options of each
    question, and store one prediction per question with its per-option scores. `base_url`:
    the real endpoint of a new run (never stored when it holds a password)."""
    with Store(db_path) as store:  # its own connection: a worker thread may run it
        return _embed(store, run_id, on_progress, cancel or threading.Event(), base_url)


def _failed_store(store: Store, progress: RunProgress, on_progress: Callback | None, e: StoreError) -> RunError:
    """The database failed mid-run (a full disk): end the run as failed with the reason, if that
    can still be written, rather than leave it `running` for good."""
    reason = f"the database failed: {e}"
    try:
        end_run(store, progress, "failed", reason[:500], on_progress)
    except StoreError:
        reason += " (the run's status could not be recorded either: `persian-tui runs` shows it running until " \
                  "its lease lapses)"
    return RunError(reason)


def _embed(store: Store, run_id: int, on_progress: Callback | None, cancel: threading.Event,
           base_url: str | None) -> RunProgress:
    run = store.runs.get_run(run_id)
    if run is None or run.kind != "embedding":
        raise RunError(f"no embedding run {run_id}")
    if run.status == "done":
        raise RunError(f"embedding run {run_id} is done: nothing to resume")
    spec = EmbedRunSpec.model_validate({k: v for k, v in run.params.items() if k in EmbedRunSpec.model_fields}
                                       | ({"base_url": base_url} if base_url else {}))
    take_lease(store, run_id)
    by_uid = store.questions.questions_for_uids(run.params["uids"])
    questions = [by_uid[u] for u in run.params["uids"] if u in by_uid]
    progress = RunProgress(run.id, len(questions))

    def stop(status: str, reason: str | None = None) -> RunProgress:
        return end_run(store, progress, status, reason, on_progress)

    try:
        return _embed_leased(store, run, spec, questions, progress, stop, cancel, on_progress)
    except StoreError as e:
        raise _failed_store(store, progress, on_progress, e) from None
    except RunError:
        raise  # ended with its reason already
    except KeyboardInterrupt:
        stop("cancelled")  # never left `running`: `run embed --resume` goes on, cached vectors kept
        raise
    except BaseException as e:  # noqa: BLE001 - recorded, then raised as it was
        stop("failed", f"stopped by {type(e).__name__}: {str(e)[:300]}")
        raise


def _embed_leased(store: Store, run: Run, spec: EmbedRunSpec, questions: list, progress: RunProgress, stop,
                  cancel: threading.Event, on_progress: Callback | None) -> RunProgress:
    import numpy as np

    from .embedders import EmbedderError, make_embedder
    from .outlier import predict

    if spec.paraphrase_run is not None:
        prose = store.runs.paraphrases(spec.paraphrase_run)
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
    store.runs.update_run(run.id, model=embedder.model_id,
                          params={**run.params, "model_id": embedder.model_id, "revision": embedder.revision})
    cache_key = (embedder.model_id, embedder.revision, embedder.prefix, embedder.normalization)
    sha = {t: hashlib.sha256(t.encode()).hexdigest() for t in distinct}
    cacheable = getattr(embedder, "cacheable", True)
    vectors = store.runs.cached_vectors(cache_key, list(sha.values())) if cacheable else {}
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
            store.runs.cache_vectors(cache_key, fresh)
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
        store.runs.save_predictions(run.id, preds[chunk:chunk + 500])
    for q, p in zip(questions, preds):
        progress.count(p, q.key)
    return stop("done")


def run_embedding(store: Store, spec: EmbedRunSpec, *, on_progress: Callback | None = None,
                  cancel: threading.Event | None = None) -> RunProgress:
    """Create and execute an embedding run (executed over its own connection to `store`'s file)."""
    run = create_embedding_run(store, spec)
    return execute_embedding_run(store.path, run.id, on_progress=on_progress, cancel=cancel,
                                 base_url=spec.base_url)

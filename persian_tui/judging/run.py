"""Judge runs: an LLM classifies the errors of another run's answers, one committed verdict per
prediction (a reply without a clear verdict is stored `unscored`). The set-up, lease, breaker
and end are the LLM run's (`LLMSession`)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..models import Question, Run
from ..runs.progress import Callback, RunError, RunProgress
from ..runs.session import LLMSession, load_soon
from ..runs.spec import LLMRunSpec
from ..store import Store

if TYPE_CHECKING:
    from ..runs.pace import RunPace


def create_judge_run(store: Store, spec: LLMRunSpec, target_run: int, *, only_wrong: bool = False) -> Run:
    """A judge run over the predictions of `target_run` (only the wrong ones with only_wrong).
    A target asked several times is judged on `spec.sample` when given, else on each question's
    majority's first sample; the picked sample per question is fixed now (params `picked`)."""
    run = store.runs.create_run(**judge_run_fields(store, spec, target_run, only_wrong=only_wrong))
    assert run is not None  # (None only for once_per_file)
    return run


def judge_run_fields(store: Store, spec: LLMRunSpec, target_run: int, *, only_wrong: bool = False) -> dict:
    """The stored fields of a new judge run (create_run's arguments; RunError: nothing to judge)."""
    from .verdicts import DEFAULT_TAXONOMY, JUDGE_VERSION, prompt_hash

    target = store.runs.get_run(target_run)
    if target is None:
        raise RunError(f"no run {target_run} to judge")
    store.judging.ensure_error_categories(DEFAULT_TAXONOMY)
    keys = store.questions.keys()
    pick = getattr(spec, "sample", None)
    preds = [p for p in store.runs.predictions(target_run, sample=pick)
             if keys.get(p.uid) is not None and p.parse_status != "api_error"
             and not (only_wrong and p.predicted == keys[p.uid])]
    if not preds:
        raise RunError(f"run {target_run} has no predictions to judge"
                       + (f" in sample {pick}" if pick is not None else ""))
    preds = preds[:spec.limit] if spec.limit else preds  # a cost cap on a paid judge
    categories = [c.name for c in store.judging.error_categories()]
    params = {**spec.stored(), "strategy": "judge", "target_run": target_run, "only_wrong": only_wrong,
              "uids": [p.uid for p in preds], "categories": categories}
    if any(p.sample for p in preds):
        params["picked"] = {p.uid: p.sample for p in preds if p.sample}
    return {"kind": "judge", "model": spec.model, "params": params, "total": len(preds),
            "prompt_template": JUDGE_VERSION, "prompt_hash": prompt_hash(categories)}


async def execute_judge_run(db_path: str | Path, run_id: int, *, retry_errors: bool = False,
                            on_progress: Callback | None = None,
                            cancel: threading.Event | None = None,
                            overrides: dict | None = None, pace: RunPace | None = None,
                            questions: Mapping[str, Question] | None = None) -> RunProgress:
    """Judge every prediction of the run's target that has no judgment yet; one committed
    row per verdict. A reply without a clear verdict is stored as `unscored`. `pace`: the run
    is a sweep's (runs/pace.py). `questions`: by uid, read by the caller for several runs at
    once (a sweep's); read here when they do not hold every question the run judges."""
    from ..runs.llm_client import LLMError
    from ..runs.pace import BudgetReached
    from .verdicts import parse_judgment, render_judge

    store = Store(db_path)
    try:
        session = await LLMSession.open(store, run_id, ("judge",), "judge", overrides, cancel, pace)
        run, uids, cancel = session.run, session.uids, session.cancel
        target, categories = run.params["target_run"], run.params["categories"]
        done = store.judging.judged_uids(run_id)
        if retry_errors:
            done -= store.judging.judged_uids(run_id, statuses=("api_error",))
        if questions is None or not all(u in questions for u in uids):
            questions = store.questions.questions_for_uids(uids)  # its own, not the bank's
        picked = run.params.get("picked") or {}
        preds = {p.uid: p for p in store.runs.predictions(target, samples=True) if p.sample == picked.get(p.uid, 0)}
        todo = session.limited([u for u in uids if u not in done and u in preds])
        # judged before, not asked again: as they were
        kept = (store.judging.judged_uids(run_id) & set(uids)) - set(todo)
        progress = RunProgress(run_id, len(uids), done=len(kept))
        progress.invalid = len(store.judging.judged_uids(run_id, statuses=("unscored",)) & kept)
        progress.errors = len(store.judging.judged_uids(run_id, statuses=("api_error",)) & kept)
        await session.start(lambda rows: store.judging.save_judgments(run_id, target, rows))
        breaker = session.breaker

        async def judge(uid: str) -> None:
            reply = None
            async with session.slot():  # held while asking: the reply is read and stored after it is freed
                if cancel.is_set():
                    return
                prompt = render_judge(questions[uid], preds[uid], categories)
                row: dict[str, Any] = {"status": "api_error", "prompt": prompt.text, "prompt_version": prompt.version}
                load_soon("persian_tui.runs.parse")  # read by parse_judgment at the first reply
                try:
                    reply = await session.reply(prompt.messages, prompt.response_format)
                    breaker.record()
                except LLMError as e:
                    row["error"] = str(e)
                    breaker.record(e)
                except BudgetReached:
                    return  # not asked: no row (a resume with a larger budget asks it)
            if reply is not None:
                j = parse_judgment(reply.text, categories)
                row.update(status=j.status, verdict=j.verdict, error_category=j.error_category,
                           rationale=j.rationale, error=j.reason, raw_reply=reply.text, tokens_in=reply.tokens_in,
                           tokens_out=reply.tokens_out, latency=reply.latency,
                           cost=reply.cost if reply.cost is not None else
                           session.spec.priced(reply.tokens_in, reply.tokens_out))
            await session.writer.save({**row, "uid": uid, "sample": picked.get(uid, 0)})
            progress.done += 1
            progress.new += 1
            progress.invalid += row["status"] == "unscored"
            progress.errors += row["status"] == "api_error"
            if row["status"] != "ok":
                progress.message = f"{uid}: {row.get('error') or row['status']}"[:200]
            if on_progress:
                on_progress(progress)

        await session.drive(judge, todo)
        return await session.finish(progress, store.judging.judged_uids(run_id) >= set(uids), on_progress)
    finally:
        store.close()

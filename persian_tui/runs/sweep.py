"""Sweeps: a spec (runs/sweep_spec.py) expanded to LLM runs recorded as one sweep, and all of
them asked at once in one event loop through the shared limits of their endpoints and their
budgets (runs/pace.py).

`plan_sweep` gives the runs, the request count and the estimated cost (a dry run prints it);
`create_sweep` records the sweep and its runs in one transaction; `execute_sweep` asks what each
run is missing (so a killed sweep resumes with only its missing (question, sample) pairs: each run
is resumed as `run llm --resume` would), reporting a `SweepProgress` to a callback four times a
second; the retries of its requests are written to the retry log as it goes."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import redact, settings
from ..models import Question
from ..store import Store
from .lifecycle import save_when_free
from .pace import Budget, EndpointPace, ModelShare, RunPace
from .progress import RunError, RunProgress, select_questions
from .spec import LLMRunSpec
from .sweep_spec import ModelSection, SweepSpec, parse_sweep_spec

TICK = 0.25  # seconds between progress reports (and retry-log writes)
JUDGE_SLOT = "judge:"  # a judge run's slot: this and its target's slot
# a request's assumed tokens for the dry run's estimate when no max_tokens is set
ESTIMATE_OUT = 256


@dataclass
class PlannedRun:
    slot: str
    model: ModelSection
    spec: LLMRunSpec
    requests: int
    cost: float | None  # estimated USD (None: the endpoint's price is unknown)


@dataclass
class SweepPlan:
    spec: SweepSpec
    questions: list[Question]
    runs: list[PlannedRun]

    @property
    def requests(self) -> int:
        return sum(r.requests for r in self.runs)

    @property
    def cost(self) -> float | None:
        costs = [r.cost for r in self.runs]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


def plan_sweep(store: Store, spec: SweepSpec) -> SweepPlan:
    """The sweep's runs with their request counts and estimated costs (input tokens about a
    third of the prompt's characters, output max_tokens or 256 tokens)."""
    from .prompts import render

    s = spec.sweep
    questions = select_questions(store, s.questions, s.limit, s.release)
    if not questions:
        raise RunError(f"no questions to ask (set {s.questions!r})")
    runs = []
    for slot, model, run_spec in spec.run_specs():
        n = len(questions) * s.samples
        chars = sum(len(m["content"]) for m in render(run_spec.strategy, questions[0]).messages)
        per = run_spec.priced(chars // 3, s.max_tokens or ESTIMATE_OUT)
        runs.append(PlannedRun(slot, model, run_spec, n, None if per is None else per * n))
    return SweepPlan(spec, questions, runs)


def create_sweep(store: Store, plan: SweepPlan) -> int:
    """Record the sweep and its runs (one transaction; RunError when the name is taken)."""
    from .llm import llm_run_fields

    name = plan.spec.sweep.name
    if store.sweeps.get_sweep(name) is not None:
        raise RunError(f"a sweep named {name!r} exists: --resume goes on with it, or give another name")
    runs = [(r.slot, llm_run_fields(r.spec, plan.questions)) for r in plan.runs]
    return store.sweeps.create_sweep(name, plan.spec.stored(), runs).id


def stored_sweep_spec(store: Store, name: str) -> SweepSpec:
    """The spec a sweep was made with (its URLs as stored: without passwords)."""
    sweep = store.sweeps.get_sweep(name)
    if sweep is None:
        raise RunError(f"no sweep {name!r} (see persian-tui sweep status)")
    for e in sweep.spec["endpoint"]:
        if redact.was_redacted(e["base_url"]):
            raise RunError(f"sweep {name!r}: endpoint {e['name']}'s URL had a password, which is never "
                           "stored: resume with the spec file (sweep SPEC --resume)")
    return parse_sweep_spec(sweep.spec, f"sweep {name!r}")


def check_resume(store: Store, spec: SweepSpec) -> int:
    """The sweep `spec` names, when the spec asks what it asked (RunError otherwise): a resume may
    change endpoints' URLs, keys, connections and limits, the models' connections, prices and
    budgets, never what is asked."""
    sweep = store.sweeps.get_sweep(spec.sweep.name)
    if sweep is None:
        raise RunError(f"no sweep {spec.sweep.name!r} to resume (run it without --resume first)")
    stored = {slot for slot, _ in store.sweeps.sweep_runs(sweep.id) if not slot.startswith(JUDGE_SLOT)}
    wanted = {slot for slot, _, _ in spec.run_specs()}
    if stored != wanted:
        extra = sorted(wanted - stored) or sorted(stored - wanted)
        raise RunError(f"sweep {spec.sweep.name!r} was made with other runs ({extra[0]} differs): "
                       "a resume asks what the sweep asked; give the new spec another name")
    asked = ("questions", "release", "samples", "temperature", "max_tokens", "seed", "limit")
    for key in asked:
        if sweep.spec["sweep"].get(key) != getattr(spec.sweep, key):
            raise RunError(f"sweep {spec.sweep.name!r} cannot be resumed with a different "
                           f"sweep.{key}: that changes what is asked")
    return sweep.id


@dataclass
class RunState:
    slot: str
    run_id: int
    total: int
    pace: RunPace
    kind: str = "llm"  # or judge
    progress: RunProgress | None = None  # the latest report (before its first: the rows stored)
    status: str = "waiting"
    failed: str | None = None  # why it could not go on (its lease held by another process)


@dataclass
class SweepProgress:
    name: str
    runs: list[RunState]
    endpoints: list[EndpointPace]
    budget: Budget
    started: float = field(default_factory=time.monotonic)
    status: str = "running"

    @property
    def done(self) -> int:
        return sum(r.progress.done if r.progress else 0 for r in self.runs)

    @property
    def total(self) -> int:
        return sum(r.total for r in self.runs)

    @property
    def new(self) -> int:
        return sum(r.progress.new if r.progress else 0 for r in self.runs)

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.new / elapsed if elapsed > 0 else 0.0

    @property
    def spent(self) -> float:
        return self.budget.spent

    def stops(self) -> list[str]:
        """Why runs stopped short, a line a cause: a budget (the runs it stopped, what it has
        spent now), a run another process holds."""
        stopped: dict[Budget, list[str]] = {}  # (a budget is its own key: by identity)
        for r in self.runs:
            if r.pace.stopped_by is not None:
                stopped.setdefault(r.pace.stopped_by, []).append(r.slot)
        return [f"{', '.join(slots)}: {budget.reached()}" for budget, slots in stopped.items()] + \
            [f"{r.slot}: {r.failed}" for r in self.runs if r.failed]


SweepCallback = Callable[[SweepProgress], None]


async def execute_sweep(db_path: str | Path, spec: SweepSpec, *, max_cost: float | None = None,
                        retry_errors: bool = False, on_progress: SweepCallback | None = None,
                        cancel: threading.Event | None = None,
                        judge_with: tuple[Callable, Callable] | None = None) -> SweepProgress:
    """Ask every run of the sweep `spec` names what it is missing, all at once; with a judge in
    the spec, judge each answer run as soon as it is done. `max_cost` (USD) overrides the spec's
    sweep budget; costs already recorded count against budgets. `judge_with`: (judge_run_fields,
    execute_judge_run) of judging/run.py (a layer above this one), needed for a judge."""
    if spec.judge is not None and judge_with is None:
        raise RunError("this sweep has a judge: give judge_with")
    judge_run_fields, execute_judge_run = judge_with or (None, None)
    from .llm import execute_llm_run

    cancel = cancel or threading.Event()
    store = Store(db_path)
    try:
        sweep = store.sweeps.get_sweep(spec.sweep.name)
        if sweep is None:
            raise RunError(f"no sweep {spec.sweep.name!r}")
        runs = store.sweeps.sweep_runs(sweep.id)
        costs = store.sweeps.run_costs([r.id for _, r in runs])
        by_slot = {slot: (m, s) for slot, m, s in spec.run_specs()}
        limit = max_cost if max_cost is not None else spec.sweep.max_cost
        if limit != sweep.spec["sweep"].get("max_cost"):  # the budget it was last asked under is its own:
            store.sweeps.set_budget(sweep.id, limit)    # the report's and a later `sweep resume NAME`'s
        budget = Budget(limit, "sweep", sum(c.cost for c in costs.values()))
        endpoints = {e.name: EndpointPace(e.name, e.base_url, settings.api_key(e.api_key_env or "") or "not-set",
                                          connections=e.connections, timeout=spec.sweep.timeout,
                                          requests_per_minute=e.requests_per_minute,
                                          tokens_per_minute=e.tokens_per_minute, tolerate_429=e.tolerate_429)
                     for e in spec.endpoint}
        shares: dict[str, ModelShare] = {}
        retry_log: list[dict] = []
        states = []
        judged = {slot.removeprefix(JUDGE_SLOT): run for slot, run in runs if slot.startswith(JUDGE_SLOT)}
        for slot, run in runs:
            if slot.startswith(JUDGE_SLOT):
                continue  # judge runs: once their targets are done (below)
            model, run_spec = by_slot[slot]
            key = f"{spec.endpoint_of(model).name}/{model.name}"
            if key not in shares:
                mine = [costs[r.id] for s2, r in runs if s2.startswith(key + "/")]
                shares[key] = ModelShare(asyncio.Semaphore(model.connections),
                                         Budget(model.max_cost, f"model {model.name}", sum(c.cost for c in mine)),
                                         most_cost=max((c.most for c in mine), default=0.0))
                budget.most = max(budget.most, shares[key].most_cost)
            pace = RunPace(run.id, endpoints[spec.endpoint_of(model).name], shares[key], budget, run_spec,
                           on_retry=retry_log.append, cost=costs[run.id].cost)
            states.append(RunState(slot, run.id, run.total, pace, status=run.status))
        progress = SweepProgress(spec.sweep.name, states, list(endpoints.values()), budget)

        def flush(at_once: bool = False) -> None:
            """The retry log written; `at_once` (each tick, in the event loop): refused at once
            while another process holds the database, and the next tick writes it."""
            rows, retry_log[:] = list(retry_log), []
            try:
                with store.at_once() if at_once else contextlib.nullcontext():
                    store.sweeps.log_retries(rows)
            except Exception:  # noqa: BLE001 - busy: the next tick writes them
                retry_log[:0] = rows

        async def one(state: RunState) -> None:
            def seen(p: RunProgress) -> None:
                state.progress, state.status = p, p.status
            execute = functools.partial(execute_judge_run if state.kind == "judge" and execute_judge_run
                                        else execute_llm_run, questions=questions)
            try:
                await execute(db_path, state.run_id, retry_errors=retry_errors, on_progress=seen,
                              cancel=cancel, overrides={"base_url": state.pace.spec.base_url}, pace=state.pace)
            except RunError as e:  # a run that cannot go on (its lease is held): the others do
                state.status, state.failed = "failed", str(e)
            finally:
                state.pace.ended = time.monotonic()

        async def tick() -> None:
            while True:
                await asyncio.sleep(TICK)
                flush(at_once=True)
                if on_progress:
                    on_progress(progress)

        todo = [s for s in states if s.status != "done" or retry_errors]
        # the runs ask the same questions: read once for all of them
        asked = {s.run_id for s in todo}
        questions = store.questions.questions_for_uids(
            u for _, r in runs if r.id in asked for u in r.params.get("uids", ()))
        for s in states:
            if s.status == "done" and not retry_errors:
                s.progress = RunProgress(s.run_id, s.total, done=s.total, status="done")
            else:  # the rows it has, until its own first report (a resume does not start at 0)
                had = store.runs.predicted_samples(s.run_id, excluding=("api_error",) if retry_errors else ())
                s.progress = RunProgress(s.run_id, s.total, done=len(had), status=s.status)
        def judging(target: RunState) -> RunState | None:
            """The judge run of a done answer run (made now when it has none; None: nothing to judge)."""
            assert spec.judge is not None and sweep is not None and judge_run_fields is not None
            run = judged.get(target.slot)
            if run is None:
                try:
                    fields = judge_run_fields(store, spec.judge_spec(target.run_id), target.run_id,
                                              only_wrong=spec.judge.only_wrong)
                except RunError:
                    return None  # (no answer to judge: every one right, with only_wrong)
                run = store.runs.get_run(store.sweeps.add_run(sweep.id, JUDGE_SLOT + target.slot, fields))
                assert run is not None
            if "judge" not in shares:
                j = spec.judge
                mine = [c for slot, r in runs if slot.startswith(JUDGE_SLOT) for c in [costs[r.id]]]
                shares["judge"] = ModelShare(asyncio.Semaphore(j.connections),
                                             Budget(j.max_cost, f"judge {j.model}", sum(c.cost for c in mine)),
                                             most_cost=max((c.most for c in mine), default=0.0))
            pace = RunPace(run.id, endpoints[spec.endpoint_of(spec.judge).name], shares["judge"], budget,
                           spec.judge_spec(target.run_id), on_retry=retry_log.append,
                           cost=costs[run.id].cost if run.id in costs else 0.0)
            state = RunState(JUDGE_SLOT + target.slot, run.id, run.total, pace, kind="judge", status=run.status)
            if run.status == "done" and not retry_errors:
                state.progress = RunProgress(run.id, run.total, done=run.total, status="done")
            states.append(state)
            return state

        async def judge_once_done(target: RunState) -> None:
            if spec.judge is None or cancel.is_set() or target.status != "done":
                return
            made = await save_when_free(judging, target, db=store)  # a busy database waited for, as rows are
            if made is not None and (made.status != "done" or retry_errors):
                await one(made)

        async def answered_then_judged(state: RunState) -> None:
            if state.run_id in asked:
                await one(state)
            await judge_once_done(state)  # at once: its judge does not wait for the slowest answer run

        async def phases() -> None:
            await asyncio.gather(*(answered_then_judged(s) for s in list(states) if s.kind == "llm"))

        ticker = asyncio.ensure_future(tick())
        task = asyncio.ensure_future(phases())
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:  # Ctrl-C, SIGTERM, SIGHUP: every run ends cancelled, resumable
            cancel.set()
            task.cancel()  # requests in flight too, as a single run's Ctrl-C
            await asyncio.gather(task, return_exceptions=True)
        finally:
            ticker.cancel()
            for e in endpoints.values():
                await e.close()
            flush()
        statuses = {s.status for s in states}
        progress.status = "done" if statuses == {"done"} else \
            "failed" if "failed" in statuses else "cancelled"
        if on_progress:
            on_progress(progress)
        return progress
    finally:
        store.close()


@dataclass
class SweepRunRow:
    slot: str
    run_id: int
    status: str
    done: int
    total: int
    errors: int
    cost: float | None  # None: no reply has a cost (no price, none reported)
    retries: int
    throttled: int
    reason: str | None


def sweep_rows(store: Store, name: str) -> list[SweepRunRow]:
    """Every run of a sweep as stored: status, rows, API errors, cost, retries (429s)."""
    sweep = store.sweeps.get_sweep(name)
    if sweep is None:
        raise RunError(f"no sweep {name!r} (see persian-tui sweep status)")
    runs = store.sweeps.sweep_runs(sweep.id)
    ids = [r.id for _, r in runs]
    costs, retries = store.sweeps.run_costs(ids), store.sweeps.retry_counts(ids)
    summaries = {s.run.id: s for s in store.runs.run_summaries(archived=True)}
    out = []
    for slot, run in runs:
        s = summaries.get(run.id)
        out.append(SweepRunRow(slot, run.id, run.shown_status, s.done if s else 0, run.total,
                               (s.errors or 0) if s else 0,
                               costs[run.id].cost if costs[run.id].priced else None,
                               *retries[run.id], run.reason))
    return out

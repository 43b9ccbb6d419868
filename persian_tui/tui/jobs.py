"""Run jobs: each launched or resumed run is a Textual thread worker on the app (so it goes
on when the runs screen is closed), with its own cancel event.

Workers reach the UI only through messages: ``RunProgressed`` carries a frozen copy of the
figures, at most ~10 per second per job, and replaces an older one of the same job still in
the queue (Toolong's pattern); ``RunFailed`` says why a job stopped. They go to the runs
screen that is open (``Jobs.listener``); with none open, the end of a run is a notification."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from textual.app import App
from textual.message import Message
from textual.message_pump import MessagePump
from textual.worker import Worker, get_current_worker

from ..runs import EmbedRunSpec, RunProgress, resume_command
from .base import TuiApp
from .messages import RunFailed, RunFigures, RunProgressed  # noqa: F401 (re-exported)

FINAL = ("done", "cancelled", "failed")
INTERVAL = 0.1  # seconds between two progress messages of one job


@dataclass
class Job:
    key: int
    kind: str  # llm | embedding
    model: str
    run_id: int | None  # None until an embedding run has created its row
    cancel: threading.Event = field(default_factory=threading.Event)
    retry_errors: bool = False
    worker: Worker[None] | None = None
    figures: RunFigures | None = None  # the last figures the UI received (main thread only)

    @property
    def active(self) -> bool:
        """The worker has not ended."""
        return self.worker is not None and not self.worker.is_finished

    @property
    def running(self) -> bool:
        """Active, and the UI has not had its final figures yet."""
        return self.active and not (self.figures is not None and self.figures.status in FINAL)


class Jobs:
    """The app's run jobs (one registry per app, see ``jobs_for``)."""

    def __init__(self) -> None:
        self.jobs: dict[int, Job] = {}
        self.listener: MessagePump | None = None  # the open runs screen
        # the last launched form's values, by run kind (a judge run's model is not an LLM's)
        self.last_forms: dict[str, dict[str, str]] = {}
        self.last_kind: str | None = None  # the kind launched last: the form opens on it
        self.sweeps: set[str] = set()  # the sweeps this app is asking now (tui/screens/sweep.py)
        self._next = 1

    def new(self, kind: str, model: str, run_id: int | None, retry_errors: bool = False) -> Job:
        job = Job(self._next, kind, model, run_id, retry_errors=retry_errors)
        self._next += 1
        self.jobs[job.key] = job
        return job

    def active(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.active]

    def for_run(self, run_id: int | None) -> Job | None:
        """The running job of this run, if any."""
        return next((j for j in self.active() if j.running and run_id is not None and j.run_id == run_id),
                    None)


_REGISTRY: WeakKeyDictionary[App[Any], Jobs] = WeakKeyDictionary()


def jobs_for(app: App[Any]) -> Jobs:
    if app not in _REGISTRY:
        _REGISTRY[app] = Jobs()
    return _REGISTRY[app]


def live_runs(app: App[Any]) -> list[str]:
    """What quitting does to each run this app is executing now, one line each ("run 12 (llm
    gpt-4o-mini): it stops now ..."), with the command that goes on with it."""
    jobs = _REGISTRY.get(app)
    out = []
    for j in jobs.active() if jobs else []:
        if not j.running:
            continue
        line = f"run {j.run_id or '(new)'} ({j.kind} {j.model}): it stops now and is marked cancelled"
        command = resume_command(j.kind, j.run_id) if j.run_id is not None else None
        if command:
            line += f"; the answers it has are kept, and u on the runs screen (or {command}) goes on from there"
        out.append(line)
    for name in sorted(jobs.sweeps if jobs else ()):
        out.append(f"sweep {name}: it stops now, its runs marked cancelled; the answers it has are kept, and w on "
                   f"the runs screen with its spec (or persian-tui sweep resume {name}) goes on from there")
    return out


# ------------------------------------------------------------------ worker side


class _Reporter:
    """The ``on_progress`` callback: copies the figures and posts them (throttled)."""

    def __init__(self, app: App[Any], jobs: Jobs, job: Job) -> None:
        self.app, self.jobs, self.job = app, jobs, job
        self.worker = get_current_worker()
        self.last = 0.0
        self.final_sent = False

    def _post(self, message: Message) -> bool:
        target = self.jobs.listener  # read once: the screen may close meanwhile
        return target is not None and target.post_message(message)

    def __call__(self, p: RunProgress) -> None:
        if self.worker.is_cancelled:  # app closing: stop the run cleanly
            self.job.cancel.set()
        now = time.monotonic()
        final = p.status in FINAL
        if (not final and now - self.last < INTERVAL) or (final and self.final_sent):
            return
        self.last, self.final_sent = now, final
        figures = RunFigures.of(self.job.key, self.job.kind, self.job.model, p)
        if not self._post(RunProgressed(figures)) and final:
            acc = f", accuracy {figures.accuracy:.1%}" if figures.accuracy is not None else ""
            self.app.notify(f"run {p.run_id} {p.status}: {p.done}/{p.total}{acc}", timeout=6)

    def starting(self, message: str) -> None:
        job = self.job
        self._post(RunProgressed(RunFigures(job.key, job.run_id, job.kind, job.model, message=message)))

    def failed(self, run_id: int | None, error: str) -> None:
        if not self._post(RunFailed(self.job.key, run_id, error)):
            self.app.notify(f"run {run_id or ''} failed: {error}", severity="error", timeout=10)


def _llm_work(app: App[Any], jobs: Jobs, job: Job, run_id: int, db_path: Path,
              overrides: dict[str, Any] | None = None) -> None:
    from ..judging.run import execute_judge_run
    from ..runs import execute_llm_run, execute_recall_run

    report = _Reporter(app, jobs, job)
    report.starting("retrying API errors…" if job.retry_errors else "starting…")
    execute = {"judge": execute_judge_run, "recall": execute_recall_run}.get(job.kind, execute_llm_run)

    async def main() -> RunProgress:
        task = asyncio.ensure_future(execute(
            db_path, run_id, retry_errors=job.retry_errors, on_progress=report, cancel=job.cancel,
            overrides=overrides))
        stopped = False
        while not task.done():
            if report.worker.is_cancelled and not stopped:
                # the app is closing: stop now, requests in flight too (the run says cancelled)
                stopped = True
                job.cancel.set()
                task.cancel()
            await asyncio.wait({task}, timeout=INTERVAL)
        return task.result()

    try:
        asyncio.run(main())  # its last on_progress call carries the final status
    except (Exception, asyncio.CancelledError) as e:  # noqa: BLE001 - shown; the row says failed
        report.failed(job.run_id, str(e) or type(e).__name__)


def _embed_work(app: App[Any], jobs: Jobs, job: Job, run_id: int, db_path: Path, spec: EmbedRunSpec) -> None:
    from ..runs import execute_embedding_run

    report = _Reporter(app, jobs, job)
    report.starting(f"loading {spec.model} and embedding…")
    try:  # the run opens its own connection (sqlite connections belong to one thread)
        progress = execute_embedding_run(db_path, run_id, on_progress=report, cancel=job.cancel,
                                         base_url=spec.base_url)
    except Exception as e:  # noqa: BLE001
        report.failed(job.run_id, str(e) or type(e).__name__)
        return
    report(progress)


def _start(app: App[Any], job: Job, work: Callable[[], None]) -> Job:
    job.worker = app.run_worker(work, thread=True, group="runs", exit_on_error=False,
                                name=f"{job.kind} run {job.run_id or ''}".strip(),
                                description=job.model)
    return job


def start_llm(app: TuiApp, run_id: int, model: str, *, retry_errors: bool = False, kind: str = "llm",
              overrides: dict[str, Any] | None = None) -> Job:
    """Execute (or resume) an LLM, paraphrase, recall or judge run in a thread worker on the app;
    ``overrides``: the real base URL of a new run (never stored) or resume overrides."""
    jobs = jobs_for(app)
    job = jobs.new(kind, model, run_id, retry_errors)
    return _start(app, job, partial(_llm_work, app, jobs, job, run_id, Path(app.db_path), overrides))


def start_embedding(app: TuiApp, run_id: int, spec: EmbedRunSpec) -> Job:
    """Execute embedding run ``run_id`` (created from ``spec``) in a thread worker."""
    jobs = jobs_for(app)
    job = jobs.new("embedding", spec.model, run_id)
    return _start(app, job, partial(_embed_work, app, jobs, job, run_id, Path(app.db_path), spec))

"""The sweep dashboard: a sweep (runs/sweep.py) launched from the runs screen, asked in a thread
worker on the app, its runs and endpoints drawn four times a second (runs/sweep_view.py: the
figures the CLI's live view shows). Closing the screen leaves the sweep going; `c` stops it
(resumable: `w` with the same spec goes on with it)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from ... import display
from ...judging.run import execute_judge_run, judge_run_fields
from ...runs import RunError
from ...runs.sweep import SweepProgress, check_resume, create_sweep, execute_sweep, plan_sweep
from ...runs.sweep_spec import SweepSpec
from ...runs.sweep_view import money, render
from ...store import StoreError
from ..base import AppState
from ..jobs import jobs_for
from ..keys import Key, bindings, help_key
from ..widgets.key_bar import KeyBar


class SweepShown(Message):
    """A new picture of the sweep (posted from its worker thread)."""

    def __init__(self, view: Any, status: str, line: str) -> None:
        super().__init__()
        self.view, self.status, self.line = view, status, line


class SweepScreen(AppState, Screen[None]):
    KEYS_TITLE = "sweep"
    KEY_TABLE = (
        Key("escape,q", "back", "Back", "back to the runs (the sweep goes on)", palette="Back"),
        Key("c", "stop", "Stop", "stop the sweep: requests in flight finish, the rest is resumable",
            palette="Stop the sweep"),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, spec: SweepSpec) -> None:
        super().__init__()  # (no id: the dashboard of a finished sweep and of its resume may both be installed)
        self.spec = spec
        self.cancel = threading.Event()
        self.status = "starting"

    def compose(self) -> ComposeResult:
        yield Static(id="sweep-head", markup=False)
        yield Static(id="sweep-view")
        yield KeyBar()

    def on_mount(self) -> None:
        """Record the sweep (or go on with the one of that name) here, so that a bad spec is
        told at once; ask it in a worker."""
        try:
            plan = plan_sweep(self.store, self.spec)
            if self.store.sweeps.get_sweep(self.spec.sweep.name) is None:
                create_sweep(self.store, plan)
                what = "started"
            else:
                check_resume(self.store, self.spec)
                what = "resumed"
        except (RunError, StoreError) as e:
            self.status = "failed"
            self._head(display.line(str(e)))
            return
        self._head(f"{what}: {len(plan.runs)} runs, {plan.requests} requests")
        jobs_for(self.app).sweeps.add(self.spec.sweep.name)  # (quitting names it; `w` reopens this screen)
        self.app.run_worker(self._work, thread=True, group="runs", exit_on_error=False,
                            name=f"sweep {self.spec.sweep.name}")

    def _head(self, text: str) -> None:
        self.query_one("#sweep-head", Static).update(
            display.line(f"sweep {self.spec.sweep.name} │ {self.status} │ {text}"))

    def _work(self) -> None:
        worker = get_current_worker()

        def seen(p: SweepProgress) -> None:
            line = f"{p.done}/{p.total} rows, spent {money(p.spent)}"
            self.post_message(SweepShown(render(p), p.status, line))

        async def main() -> None:
            task = asyncio.ensure_future(execute_sweep(Path(self.app.db_path), self.spec, on_progress=seen,
                                                       cancel=self.cancel,
                                                       judge_with=(judge_run_fields, execute_judge_run)))
            while not task.done():
                if worker.is_cancelled and not task.cancelling():
                    task.cancel()  # the app is closing: stop now, requests in flight too (runs cancelled)
                await asyncio.wait({task}, timeout=0.25)
            task.result()

        try:
            asyncio.run(main())
        except (Exception, asyncio.CancelledError) as e:  # noqa: BLE001 - shown on the dashboard
            self.post_message(SweepShown(None, "failed", display.line(str(e) or type(e).__name__)))
        finally:
            jobs_for(self.app).sweeps.discard(self.spec.sweep.name)

    def on_sweep_shown(self, message: SweepShown) -> None:
        self.status = "stopping" if self.cancel.is_set() and message.status == "running" else message.status
        if message.view is not None:
            self.query_one("#sweep-view", Static).update(message.view)
        self._head(message.line)
        if message.status in ("done", "cancelled", "failed"):
            self.notify(f"sweep {self.spec.sweep.name} {message.status}: {message.line}",
                        severity="error" if message.status == "failed" else "information", timeout=6)

    def action_stop(self) -> None:
        if self.status not in ("running", "starting"):
            self.notify("the sweep is not running", timeout=2)
            return
        self.cancel.set()
        self.status = "stopping"
        self.notify("stopping the sweep: waiting for the requests in flight", timeout=3)

    def action_back(self) -> None:
        self.dismiss()

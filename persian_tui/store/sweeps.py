"""Sweeps (a spec expanded to runs, each run named by its slot in the sweep) and the retry log of
their requests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..models import Run
from ..models.keys import now
from .db import Database
from .rows import to_json
from .runs import RunsRepo


@dataclass
class Sweep:
    id: int
    name: str
    spec: dict[str, Any]
    created_at: str


@dataclass
class RunCost:
    cost: float  # USD recorded over the run's predictions
    tokens_in: int
    tokens_out: int
    priced: int  # predictions with a cost
    most: float  # the largest cost of one prediction


class SweepsRepo:
    def __init__(self, db: Database, runs: RunsRepo):
        self.db, self.runs = db, runs

    def create_sweep(self, name: str, spec: dict[str, Any], runs: Sequence[tuple[str, dict[str, Any]]]) -> Sweep:
        """The sweep and its runs ((slot, create_run arguments) each), in one transaction."""
        with self.db.tx():
            cur = self.db.conn.execute("INSERT INTO sweeps (name, spec, created_at) VALUES (?,?,?)",
                                       (name, to_json(spec, sort_keys=True), now()))
            sweep_id = cur.lastrowid
            assert sweep_id is not None
            for slot, fields in runs:
                run_id = self.runs.insert_run(**fields)
                self.db.conn.execute("INSERT INTO sweep_runs (sweep_id, run_id, slot) VALUES (?,?,?)",
                                     (sweep_id, run_id, slot))
        sweep = self.get_sweep(name)
        assert sweep is not None
        return sweep

    def add_run(self, sweep_id: int, slot: str, fields: dict[str, Any]) -> int:
        """A run made later in the sweep (a judge run, once its target is done): one transaction."""
        with self.db.tx():
            run_id = self.runs.insert_run(**fields)
            self.db.conn.execute("INSERT INTO sweep_runs (sweep_id, run_id, slot) VALUES (?,?,?)",
                                 (sweep_id, run_id, slot))
        return run_id

    def set_budget(self, sweep_id: int, max_cost: float | None) -> None:
        """The sweep's budget (its spec's sweep.max_cost): the one it was last asked under."""
        with self.db.tx():
            self.db.conn.execute("UPDATE sweeps SET spec = json_set(spec, '$.sweep.max_cost', ?) WHERE id = ?",
                                 (max_cost, sweep_id))

    def get_sweep(self, name: str) -> Sweep | None:
        row = self.db.conn.execute("SELECT id, name, spec, created_at FROM sweeps WHERE name = ?",
                                   (name,)).fetchone()
        return _sweep(row) if row else None

    def sweeps(self) -> list[Sweep]:
        return [_sweep(r) for r in self.db.conn.execute("SELECT id, name, spec, created_at FROM sweeps ORDER BY id")]

    def sweep_runs(self, sweep_id: int) -> list[tuple[str, Run]]:
        """(slot, run) of the sweep's runs still in the database, in the order they were made."""
        rows = self.db.conn.execute("SELECT run_id, slot FROM sweep_runs WHERE sweep_id = ? ORDER BY run_id",
                                    (sweep_id,)).fetchall()
        out = []
        for r in rows:
            run = self.runs.get_run(r["run_id"])
            if run is not None:
                out.append((r["slot"], run))
        return out

    def sweep_of_runs(self) -> dict[int, str]:
        """{run id: its sweep's name} of every run made by a sweep."""
        return {r["run_id"]: r["name"] for r in self.db.conn.execute(
            "SELECT sr.run_id, s.name FROM sweep_runs sr JOIN sweeps s ON s.id = sr.sweep_id")}

    def run_costs(self, run_ids: Sequence[int]) -> dict[int, RunCost]:
        """What each run's replies recorded (an answer run's predictions, a judge run's judgments):
        cost, tokens."""
        out = {}
        for rid in run_ids:
            r = self.db.conn.execute(
                "SELECT COALESCE(SUM(cost), 0) AS cost, COALESCE(SUM(tokens_in), 0) AS tin, "
                "COALESCE(SUM(tokens_out), 0) AS tout, COUNT(cost) AS priced, COALESCE(MAX(cost), 0) AS most "
                "FROM (SELECT cost, tokens_in, tokens_out FROM predictions WHERE run_id = ? "
                "UNION ALL SELECT cost, tokens_in, tokens_out FROM judgments WHERE run_id = ?)",
                (rid, rid)).fetchone()
            out[rid] = RunCost(float(r["cost"]), int(r["tin"]), int(r["tout"]), int(r["priced"]),
                               float(r["most"]))
        return out

    def log_retries(self, rows: Sequence[dict[str, Any]]) -> None:
        """Retries of requests ({run_id, attempt, status, kind, delay, message} each), one transaction."""
        if not rows:
            return
        with self.db.tx():
            self.db.conn.executemany(
                "INSERT INTO request_retries (run_id, at, attempt, status, kind, delay, message) "
                "VALUES (:run_id, :at, :attempt, :status, :kind, :delay, :message)",
                [{"at": now(), **r} for r in rows])

    def retries(self, run_id: int) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.conn.execute(
            "SELECT at, attempt, status, kind, delay, message FROM request_retries WHERE run_id = ? ORDER BY id",
            (run_id,))]

    def retry_counts(self, run_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        """{run id: (retries, of them 429s)}."""
        out = {}
        for rid in run_ids:
            r = self.db.conn.execute("SELECT COUNT(*) AS n, COALESCE(SUM(status = 429), 0) AS busy "
                                     "FROM request_retries WHERE run_id = ?", (rid,)).fetchone()
            out[rid] = (int(r["n"]), int(r["busy"]))
        return out


def _sweep(row: Any) -> Sweep:
    return Sweep(id=row["id"], name=row["name"], spec=json.loads(row["spec"]), created_at=row["created_at"])
